// Redis connections: one for commands (auto-pipelined, scripts excepted), others for blocking use (BullMQ, pub/sub).
import { Redis, type RedisOptions } from 'ioredis';
import { SCRIPT_NAMES } from './scripts.ts';
import { redactUrl, StartupError } from '../config/startup.ts';

export type { Redis };

export function createRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { enableAutoPipelining: true, autoPipeliningIgnoredCommands: SCRIPT_NAMES, lazyConnect: false, ...options });
}

/** BullMQ requires `maxRetriesPerRequest: null` on its connections. */
export const createQueueRedis = (url: string): Redis => new Redis(url, { maxRetriesPerRequest: null, enableAutoPipelining: false });

/**
 * One ping at start, on a connection of its own that never retries, so an unreachable Redis stops the start
 * within `timeoutMs` and names REDIS_URL. The service's own connections keep their retry settings.
 * @throws {StartupError} naming what failed and the fix
 */
export async function assertRedisReachable(url: string, timeoutMs = 3_000): Promise<void> {
  const probe = new Redis(url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  // ioredis rejects with "Connection is closed"; the socket's own error (ECONNREFUSED, ENOTFOUND, ...) says why.
  let socketError: (Error & { code?: string }) | null = null;
  probe.on('error', (err: Error & { code?: string }) => {
    socketError ??= err;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    await Promise.race([probe.connect().then(() => probe.ping()), timeout]);
  } catch (err) {
    const cause = (socketError ?? err) as Error & { code?: string };
    const reason = cause.code ?? cause.message;
    if (/NOAUTH|WRONGPASS|\bAUTH\b|invalid password|invalid username/i.test(`${cause.message} ${(err as Error).message}`)) {
      throw new StartupError(
        `Redis at ${redactUrl(url)} refused the credentials: put the right user and password in REDIS_URL (redis://user:password@host:port)`,
      );
    }
    throw new StartupError(
      `Redis is unreachable at ${redactUrl(url)} (${reason}): start Redis there (redis-server --port ${new URL(url).port || 6379}), or set REDIS_URL to a reachable server`,
    );
  } finally {
    clearTimeout(timer);
    probe.disconnect();
  }
}
