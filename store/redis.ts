// Redis connections: one for commands (auto-pipelined), others for blocking use (BullMQ, pub/sub).
import { Redis, type RedisOptions } from 'ioredis';

export type { Redis };

export function createRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { enableAutoPipelining: true, lazyConnect: false, ...options });
}

/** BullMQ requires `maxRetriesPerRequest: null` on its connections. */
export const createQueueRedis = (url: string): Redis =>
  new Redis(url, { maxRetriesPerRequest: null, enableAutoPipelining: false });
