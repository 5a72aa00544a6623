// Redis connections: one for commands (auto-pipelined, scripts excepted), others for blocking use (BullMQ, pub/sub).
import { Redis, type RedisOptions } from 'ioredis';
import { SCRIPT_NAMES } from './scripts.ts';

export type { Redis };

export function createRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { enableAutoPipelining: true, autoPipeliningIgnoredCommands: SCRIPT_NAMES, lazyConnect: false, ...options });
}

/** BullMQ requires `maxRetriesPerRequest: null` on its connections. */
export const createQueueRedis = (url: string): Redis => new Redis(url, { maxRetriesPerRequest: null, enableAutoPipelining: false });
