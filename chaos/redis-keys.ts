// Removes every key under a Redis prefix: a test's, a benchmark's or an attack run's own, so nothing outlives it.
import type { Redis } from 'ioredis';

export async function removeKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}
