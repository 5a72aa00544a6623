/**
 * What the Redis client (ioredis) costs this process per reply, apart from Redis itself: 64 commands in flight on the
 * auto-pipeline, as the API sends them, for the reply shapes a bet reads.
 * - `redisClient.hgetall25Us`: a 25-field hash (a bet's record);
 * - `redisClient.scriptArrayUs`: a script's array reply (a commit's answer);
 * - `redisClient.get3kUs`: a 3.6 kB string (a receipt body).
 *
 * Client CPU in microseconds per command. bench/HISTORY.md compares ioredis 5.11 and 6.0 with it.
 * @module
 */
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

export async function benchRedisClient(): Promise<Record<string, number>> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { enableAutoPipelining: true });
  const key = `bench-redis-client:${process.pid}`;
  try {
    const fields: string[] = [];
    for (let i = 0; i < 25; i++) fields.push(`field${i}`, i % 3 ? String(1_000_000 + i) : 'x'.repeat(64));
    await redis.hset(key, ...fields);
    await redis.set(`${key}:body`, 'y'.repeat(3_600));
    const reply = "return {'ok', '12', '345', 'abcdef0123456789abcdef0123456789', '2026-11-27T00:00:00.000Z', '2026-11-27T00:05:00.000Z', 'committed'}";
    return {
      'redisClient.hgetall25Us': await cpuUsPer(() => redis.hgetall(key)),
      'redisClient.scriptArrayUs': await cpuUsPer(() => redis.eval(reply, 0)),
      'redisClient.get3kUs': await cpuUsPer(() => redis.get(`${key}:body`)),
    };
  } finally {
    await redis.del(key, `${key}:body`);
    await redis.quit();
  }
}
