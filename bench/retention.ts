/**
 * What dropping settled plays from Redis costs (store/retention.ts), on 25,600 plays shaped like Dice's (a 6 kB
 * receipt with its entry text and anchor, a 1.5 kB bet), at the worker's batch of 64 and at 256:
 * - `retention.redisUsPerPlay.<batch>`: Redis CPU per play dropped;
 * - `retention.workerUsPerPlay.<batch>`: the dropping process's CPU per play;
 * - `retention.scriptMs.<batch>`: how long one script holds Redis (nothing else runs meanwhile).
 * @module
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Keys } from '../store/keys.ts';
import { RetentionStore } from '../store/retention.ts';
import { defineScripts } from '../store/scripts.ts';
import { removeKeys } from '../chaos/redis-keys.ts';

const PLAYS = 25_600;
const WALLET = 'Wa11et1111111111111111111111111111111111111';
const SESSION_KEY = 'Sess1onKey111111111111111111111111111111111';

async function seed(redis: Redis, keys: Keys): Promise<void> {
  const hex = () => randomBytes(32).toString('hex');
  for (let i = 0; i < PLAYS; i += 512) {
    const pipeline = redis.pipeline();
    for (let j = i; j < i + 512; j++) {
      const hash = hex();
      const id = `dice_${hash.slice(0, 32)}`;
      const entry = `{"betPayloadHash":"${hash}","clientSeedRaw":"${hex()}","game":"dice","receiptId":"${id}","settledAt":"2026-01-01T00:00:00.000Z","v":1}`;
      pipeline.rpush(keys.betLog(), `${hex()}:${id}`);
      pipeline.hset(
        keys.receipt(id),
        'body',
        `{"id":"${id}","pad":"${'x'.repeat(6_000)}"}`,
        'entry',
        entry.padEnd(700),
        'anchor',
        `{"status":"committed","betLogProof":["${hex()}"]}`,
      );
      pipeline.hset(keys.bet(hash), 'wallet', WALLET, 'sessionPubkey', SESSION_KEY, 'payload', 'y'.repeat(1_500), 'state', 'settled');
    }
    await pipeline.exec();
  }
}

async function redisCpuUs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const seconds = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (seconds('used_cpu_sys') + seconds('used_cpu_user')) * 1e6;
}

async function dropAll(redis: Redis, batch: number): Promise<Record<string, number>> {
  const keys = new Keys(`bench-retention-${randomBytes(4).toString('hex')}`);
  try {
    await seed(redis, keys);
    const store = new RetentionStore(redis, keys, defineScripts(redis));
    await redis.config('RESETSTAT');
    const redisBefore = await redisCpuUs(redis);
    const before = process.cpuUsage();
    for (let dropped = 0; dropped < PLAYS; ) dropped += await store.prune(PLAYS, Date.now(), batch);
    const used = process.cpuUsage(before);
    const redisUs = (await redisCpuUs(redis)) - redisBefore;
    const script = /cmdstat_evalsha:calls=\d+,usec=\d+,usec_per_call=([\d.]+)/.exec(await redis.info('commandstats'));
    const round = (n: number) => Math.round(n * 10) / 10;
    return {
      [`retention.redisUsPerPlay.${batch}`]: round(redisUs / PLAYS),
      [`retention.workerUsPerPlay.${batch}`]: round((used.user + used.system) / PLAYS),
      [`retention.scriptMs.${batch}`]: Math.round(Number(script?.[1] ?? 0)) / 1000,
    };
  } finally {
    await removeKeys(redis, keys.prefix);
  }
}

export async function benchRetention(): Promise<Record<string, number>> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  try {
    return { ...(await dropAll(redis, 64)), ...(await dropAll(redis, 256)) };
  } finally {
    await redis.quit();
  }
}
