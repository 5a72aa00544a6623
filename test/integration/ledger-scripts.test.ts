// The ledger's Lua scripts go to Redis as EVALSHA on the connection's auto-pipeline: the scripts and commands of one
// tick leave in one socket write, and the source crosses the wire (SCRIPT LOAD) only when Redis does not know it.
// Runs its own redis-server, because it flushes the script cache.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, type Redis } from '../../store/redis.ts';
import { defineScripts } from '../../store/scripts.ts';

let server: ChildProcess;
let redis: Redis;

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

const calls = async (command: string) => {
  const stats = await redis.info('commandstats');
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
};

beforeAll(async () => {
  const port = await freePort();
  server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  redis = createRedis(`redis://127.0.0.1:${port}`, { retryStrategy: () => 50 });
  redis.on('error', () => {}); // refused until the server listens; ioredis retries
  await redis.ping();
});

afterAll(async () => {
  await redis.quit();
  server.kill();
});

describe('ledger scripts', () => {
  it('run by EVALSHA, send their source once, and survive a flushed script cache', async () => {
    const scripts = defineScripts(redis);
    const view = () => scripts.prepareView(['sk', 'commitments', 'player', 'house'], ['key', 'commitment']);
    // Concurrent calls share one auto-pipelined batch, as requests do in the API.
    const first = await Promise.all(Array.from({ length: 20 }, view));
    expect(first[0]).toEqual(['', 0, '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0']);
    await redis.script('FLUSH');
    expect(await view()).toEqual(first[0]);
    await Promise.all(Array.from({ length: 20 }, view));
    for (let i = 0; i < 5; i++) await view();
    // The source went once at first use and once after the flush, whatever the number of calls waiting on it.
    expect(await calls('script\\|load')).toBe(2);
    expect(await calls('eval')).toBe(0);
    expect(await calls('evalsha')).toBeGreaterThanOrEqual(46);
  });

  it('leave in one socket write with the commands of the same tick', async () => {
    const scripts = defineScripts(redis);
    const view = () => scripts.prepareView(['sk', 'commitments', 'player', 'house'], ['key', 'commitment']);
    await view();
    const stream = (redis as unknown as { stream: { write: (...args: unknown[]) => boolean } }).stream;
    const write = stream.write;
    let writes = 0;
    stream.write = function (this: unknown, ...args: unknown[]) {
      writes++;
      return write.apply(this, args);
    };
    try {
      const views = Array.from({ length: 50 }, view);
      const read = redis.get('sk');
      expect(await Promise.all(views)).toHaveLength(50);
      expect(await read).toBeNull();
    } finally {
      stream.write = write;
    }
    expect(writes).toBe(1);
  });

  it('a script that fails reports its error once and is not retried', async () => {
    const scripts = defineScripts(redis);
    await redis.set('sk', 'not a hash');
    await expect(scripts.prepareView(['sk', 'commitments', 'player', 'house'], ['key', 'commitment'])).rejects.toThrow(/WRONGTYPE/);
    await redis.del('sk');
  });
});
