// Sentinel mode (REDIS_SENTINELS, REDIS_SENTINEL_NAME): validated once at start, and every kind of connection the
// service makes (commands, BullMQ, a duplicate for blocking reads) reaches the primary the Sentinels name, whatever
// REDIS_URL's host says. Refusals of a node that cannot take writes now are outages (503), not bad requests.
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReplyError } from 'ioredis';
import { ConfigError, loadConfig } from '../../config/env.ts';
import { StartupError } from '../../config/startup.ts';
import { RedisServer } from '../../chaos/redis-server.ts';
import { Sentinel } from '../../chaos/sentinel.ts';
import { assertRedisReachable, createQueueRedis, createRedis, isRedisUnavailable } from '../../store/redis.ts';
import { freePort } from '../helpers/process.ts';

describe('Redis configuration', () => {
  it('takes the Sentinels and the primary name together, and waits for one replica by default with them', () => {
    const config = loadConfig({ REDIS_SENTINELS: 's1:26379,10.0.0.2:26380,[::1]:26381', REDIS_SENTINEL_NAME: 'pfws' });
    expect(config.redis.sentinels).toEqual([
      { host: 's1', port: 26379 },
      { host: '10.0.0.2', port: 26380 },
      { host: '::1', port: 26381 },
    ]);
    expect(config.redis.sentinelName).toBe('pfws');
    expect(config.REDIS_WAIT_REPLICAS).toBe(1);
    expect(loadConfig({ REDIS_SENTINELS: 's1:26379', REDIS_SENTINEL_NAME: 'pfws', REDIS_WAIT_REPLICAS: '0' }).REDIS_WAIT_REPLICAS).toBe(0);
    expect(loadConfig({}).REDIS_WAIT_REPLICAS).toBe(0);
    expect(loadConfig({}).redis).toEqual({ url: 'redis://127.0.0.1:6379' });
  });

  it('refuses one without the other, a malformed list, and a WAIT that could outlast its own command', () => {
    expect(() => loadConfig({ REDIS_SENTINELS: 's1:26379' })).toThrow(/REDIS_SENTINELS and REDIS_SENTINEL_NAME go together/);
    expect(() => loadConfig({ REDIS_SENTINEL_NAME: 'pfws' })).toThrow(ConfigError);
    expect(() => loadConfig({ REDIS_SENTINELS: 's1', REDIS_SENTINEL_NAME: 'pfws' })).toThrow(/REDIS_SENTINELS="s1": expected comma-separated host:port/);
    expect(() => loadConfig({ REDIS_WAIT_REPLICAS: '1', REDIS_WAIT_TIMEOUT_MS: '1000', REDIS_COMMAND_TIMEOUT_MS: '2000' })).toThrow(
      /REDIS_WAIT_TIMEOUT_MS="1000": must be below half of REDIS_COMMAND_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ REDIS_WAIT_REPLICAS: '17' })).toThrow(/REDIS_WAIT_REPLICAS/);
  });

  it('counts a node that cannot take writes now as an outage, not as a bad command', () => {
    for (const message of [
      'NOREPLICAS Not enough good replicas to write.',
      "READONLY You can't write against a read only replica. script: 8b2a, on @user_script:1.",
      'LOADING Redis is loading the dataset in memory',
      'MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to no.',
    ])
      expect(isRedisUnavailable(new ReplyError(message)), message).toBe(true);
    expect(isRedisUnavailable(new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value'))).toBe(false);
    expect(isRedisUnavailable(new ReplyError('ERR unknown command'))).toBe(false);
  });

  it('counts a MULTI that a read-only node refused (EXECABORT) as an outage, not one with a bad command', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-readonly-'));
    // A replica of a primary that is not there: it refuses every write with READONLY, as a demoted node does.
    const replica = new RedisServer({ dir, args: ['--replicaof', '127.0.0.1', String(await freePort())] });
    await replica.start();
    const redis = createRedis(replica.url);
    try {
      const refused = await redis
        .multi()
        .set('k', '0', 'PX', 1000, 'NX')
        .incrby('k', 1)
        .exec()
        .catch((err: unknown) => err);
      expect((refused as Error).message).toMatch(/^EXECABORT/);
      expect(isRedisUnavailable(refused)).toBe(true);
      const badCommand = Object.assign(new ReplyError('EXECABORT Transaction discarded because of previous errors.'), {
        previousErrors: [new ReplyError("ERR wrong number of arguments for 'set' command")],
      });
      expect(isRedisUnavailable(badCommand)).toBe(false);
    } finally {
      redis.disconnect();
      await replica.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('connections in Sentinel mode', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-sentinel-'));
  let primary: RedisServer;
  let sentinel: Sentinel;
  let target: { url: string; sentinels: { host: string; port: number }[]; sentinelName: string };

  beforeAll(async () => {
    primary = new RedisServer({ dir: path.join(dir, 'primary'), appendfsync: 'everysec' });
    await primary.start();
    sentinel = new Sentinel({ dir: path.join(dir, 'sentinel'), name: 'pfws-test', primaryPort: primary.port, quorum: 1, downAfterMs: 1_000 });
    await sentinel.start();
    // REDIS_URL's host and port name nothing: only the Sentinels lead to the primary.
    target = { url: 'redis://127.0.0.1:1/0', sentinels: [{ host: '127.0.0.1', port: sentinel.port }], sentinelName: 'pfws-test' };
  }, 60_000);

  afterAll(async () => {
    await sentinel?.stop();
    await primary?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the start-up probe, the command connection, its duplicates and BullMQ connections reach the primary', async () => {
    await assertRedisReachable(target);
    const port = async (client: ReturnType<typeof createRedis>) => Number(/tcp_port:(\d+)/.exec(await client.info('server'))?.[1]);
    const command = createRedis(target);
    const queue = createQueueRedis(target);
    const blocking = command.duplicate({ enableOfflineQueue: true });
    try {
      for (const client of [command, queue, blocking]) expect(await port(client)).toBe(primary.port);
    } finally {
      for (const client of [command, queue, blocking]) client.disconnect();
    }
  });

  it('a start with no Sentinel answering stops at once, naming the Sentinels and the variables to fix', async () => {
    const nowhere = { ...target, sentinels: [{ host: '127.0.0.1', port: await freePort() }] };
    const err = await assertRedisReachable(nowhere, 2_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupError);
    expect((err as Error).message).toMatch(/the primary "pfws-test" of the Sentinels 127\.0\.0\.1:\d+ .*REDIS_SENTINELS and REDIS_SENTINEL_NAME/);
  });
});
