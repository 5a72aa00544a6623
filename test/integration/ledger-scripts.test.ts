// The ledger's Lua scripts go to Redis as EVALSHA, each as it is issued (never held in the client behind a batch in
// flight), and the source crosses the wire (SCRIPT LOAD) only when Redis does not know it.
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
    const view = () =>
      scripts.prepareBet(['sk', 'commitments', 'player', 'house', 'prepared', 'walletPrepared'], { sessionPubkey: 'key', commitment: 'commitment' });
    // Concurrent calls, as requests make them in the API.
    const first = await Promise.all(Array.from({ length: 20 }, view));
    expect(first[0]).toEqual(['', 0, '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', 0]);
    await redis.script('FLUSH');
    expect(await view()).toEqual(first[0]);
    await Promise.all(Array.from({ length: 20 }, view));
    for (let i = 0; i < 5; i++) await view();
    // The source went once at first use and once after the flush, whatever the number of calls waiting on it.
    expect(await calls('script\\|load')).toBe(2);
    expect(await calls('eval')).toBe(0);
    expect(await calls('evalsha')).toBeGreaterThanOrEqual(46);
  });

  it('go out as they are issued, not held until the commands before them are answered', async () => {
    const scripts = defineScripts(redis);
    const view = () =>
      scripts.prepareBet(['sk', 'commitments', 'player', 'house', 'prepared', 'walletPrepared'], { sessionPubkey: 'key', commitment: 'commitment' });
    await view();
    const stream = (redis as unknown as { stream: { write: (...args: unknown[]) => boolean } }).stream;
    const write = stream.write;
    let writes = 0;
    stream.write = function (this: unknown, ...args: unknown[]) {
      writes++;
      return write.apply(this, args);
    };
    try {
      // Another request's command keeps Redis busy for 300 ms. An auto-pipelined client would hold the next command
      // back until that one's reply is in, so its time would run out before it was even sent.
      const busy = redis.eval(
        "local t = redis.call('TIME') local start = t[1] * 1000000 + t[2] repeat local n = redis.call('TIME') until n[1] * 1000000 + n[2] - start > 300000 return 1",
        0,
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      const sent = writes;
      const viewed = view();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(writes).toBe(sent + 1);
      expect(await busy).toBe(1);
      expect(await viewed).toEqual(['', 0, '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', 0]);
    } finally {
      stream.write = write;
    }
  });

  it('a script that fails reports its error once and is not retried', async () => {
    const scripts = defineScripts(redis);
    await redis.set('sk', 'not a hash');
    await expect(
      scripts.prepareBet(['sk', 'commitments', 'player', 'house', 'prepared', 'walletPrepared'], { sessionPubkey: 'key', commitment: 'commitment' }),
    ).rejects.toThrow(/WRONGTYPE/);
    await redis.del('sk');
  });
});
