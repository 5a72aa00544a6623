/**
 * What the Redis client (ioredis) costs this process per command, apart from Redis itself: 64 commands in flight, sent
 * as the service sends them (each as it is issued), for the reply shapes a bet reads and a settlement's arguments.
 * - `redisClient.hgetall25Us`: a 25-field hash (a bet's record);
 * - `redisClient.scriptArrayUs`: a script's array reply (a commit's answer);
 * - `redisClient.get3kUs`: a 3.6 kB string (a receipt body);
 * - `redisClient.script5kArgsUs`: a script called with 40 short fields and a 5 kB one (a settlement's receipt);
 * - `redisClient.scavengeUsPer1k`: the young-generation collections' pause per 1,000 of those script calls.
 * The same figures with `.autoPipeline` come from a connection that auto-pipelines, as the service's did before.
 *
 * Client CPU in microseconds per command. bench/HISTORY.md compares ioredis 5.11 and 6.0, and the two ways of
 * sending, with it.
 * @module
 */
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { Redis } from 'ioredis';

const COMMANDS = 40_000;
const IN_FLIGHT = 64;

async function cpuUsPer(command: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 2_000; i++) await command();
  const before = process.cpuUsage();
  for (let i = 0; i < COMMANDS; i += IN_FLIGHT) await Promise.all(Array.from({ length: IN_FLIGHT }, command));
  const used = process.cpuUsage(before);
  return Math.round(((used.user + used.system) / COMMANDS) * 100) / 100;
}

/** Scavenge pause (ms) while `run` runs, from the process's own GC entries. */
async function scavengeMs(run: () => Promise<unknown>): Promise<number> {
  let ms = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if ((entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) ms += entry.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  await run();
  // GC entries are delivered asynchronously.
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return ms;
}

async function figuresOf(redis: Redis, key: string, suffix: string): Promise<Record<string, number>> {
  const reply = "return {'ok', '12', '345', 'abcdef0123456789abcdef0123456789', '2026-11-27T00:00:00.000Z', '2026-11-27T00:05:00.000Z', 'committed'}";
  const sha = (await redis.script('LOAD', 'return 1')) as string;
  const body = 'r'.repeat(5_000);
  let n = 0;
  const settle = () => {
    const argv: string[] = [];
    for (let i = 0; i < 40; i++) argv.push(`field${i}`, String(1_000_000 + i + n));
    argv.push('receiptJson', body + n++);
    return redis.evalsha(sha, 1, `${key}:settle`, ...argv);
  };
  let scriptUs = 0;
  const pauseMs = await scavengeMs(async () => {
    scriptUs = await cpuUsPer(settle);
  });
  return {
    [`redisClient.hgetall25Us${suffix}`]: await cpuUsPer(() => redis.hgetall(key)),
    [`redisClient.scriptArrayUs${suffix}`]: await cpuUsPer(() => redis.eval(reply, 0)),
    [`redisClient.get3kUs${suffix}`]: await cpuUsPer(() => redis.get(`${key}:body`)),
    [`redisClient.script5kArgsUs${suffix}`]: scriptUs,
    // cpuUsPer runs 42,000 calls (2,000 of them warming up).
    [`redisClient.scavengeUsPer1k${suffix}`]: Math.round((pauseMs * 1000) / 42),
  };
}

export async function benchRedisClient(): Promise<Record<string, number>> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const issued = new Redis(url, { enableAutoPipelining: false });
  const batched = new Redis(url, { enableAutoPipelining: true });
  const key = `bench-redis-client:${process.pid}`;
  try {
    const fields: string[] = [];
    for (let i = 0; i < 25; i++) fields.push(`field${i}`, i % 3 ? String(1_000_000 + i) : 'x'.repeat(64));
    await issued.hset(key, ...fields);
    await issued.set(`${key}:body`, 'y'.repeat(3_600));
    return { ...(await figuresOf(issued, key, '')), ...(await figuresOf(batched, key, '.autoPipeline')) };
  } finally {
    await issued.del(key, `${key}:body`);
    await issued.quit();
    await batched.quit();
  }
}
