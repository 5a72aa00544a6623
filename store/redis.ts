// Redis connections: one for commands (scripts included), others for blocking use (BullMQ, pub/sub).
import { Redis, type ChainableCommander, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { redactUrl, StartupError } from '../config/startup.ts';
import type { RedisTarget } from '../config/env.ts';

export type { Redis, RedisTarget };

/** A Redis URL, or a Sentinel-managed primary (config/env.ts). */
export type RedisAddress = string | RedisTarget;

const urlOf = (target: RedisAddress): string => (typeof target === 'string' ? target : target.url);

/**
 * ioredis's options for a target. With Sentinels, each (re)connection asks them for the primary, and a node found
 * demoted (READONLY) is left for the new primary. Not ioredis's `failoverDetector`: a switch announced while a
 * reconnection is under way ends the client for good (ioredis 6), and a primary that was killed drops its
 * connections anyway. The URL's credentials and database still apply to the primary.
 */
export function sentinelOptions(target: RedisAddress): RedisOptions {
  if (typeof target === 'string' || !target.sentinels?.length || !target.sentinelName) return {};
  return {
    sentinels: target.sentinels,
    name: target.sentinelName,
    sentinelRetryStrategy: (times: number) => Math.min(times * 100, 1_000),
    // Quick retries: a failover's new primary should be found within a few hundred ms of being named.
    retryStrategy: (times: number) => Math.min(times * 50, 500),
    reconnectOnError: (err: Error) => (/^READONLY\b/.test(err.message) ? 1 : false),
  };
}

/** What a failed start names: the URL, or the Sentinels and the primary's name. */
export const describeTarget = (target: RedisAddress): string =>
  typeof target === 'string' || !target.sentinels?.length
    ? redactUrl(urlOf(target))
    : `the primary "${target.sentinelName}" of the Sentinels ${target.sentinels.map((s) => `${s.host}:${s.port}`).join(',')}`;

/**
 * The replies of a pipeline, in order, or the first command's error: a read that failed (a timeout, a Redis still
 * loading its data, a failover) must never pass for a value that is not there.
 */
export async function pipelineReplies(pipeline: ChainableCommander): Promise<unknown[]> {
  const replies = await pipeline.exec();
  if (!replies) throw new Error('the Redis pipeline was aborted');
  return replies.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}

/**
 * Commands go out as they are issued, not auto-pipelined. ioredis batches an auto-pipelined tick into a `Pipeline`,
 * whose constructor gives each instance an accessor of its own (`length`): V8 then keeps every batch, with its
 * commands, their arguments and their replies, through each young-generation collection until a full one. In an API
 * process under the Dice load that was most of what its scavenges promoted (bench/HISTORY.md, "Auto-pipelining and the
 * collector"). A batch also holds the next tick's commands back until its replies are in (one batch in flight).
 */
export function createRedis(target: RedisAddress, options: RedisOptions = {}): Redis {
  return new Redis(urlOf(target), {
    ...sentinelOptions(target),
    enableAutoPipelining: false,
    lazyConnect: false,
    ...options,
  });
}

/**
 * Each command's own timeout, from the longest a request may wait for Redis (REDIS_COMMAND_TIMEOUT_MS): half of it, so
 * that a request step's two commands in turn (a reveal's read, then its settlement) stay within it.
 */
export const commandTimeoutOf = (requestWaitMs: number): number => Math.max(50, Math.floor(requestWaitMs / 2));

/**
 * The service's command connection, for request paths: a request waits at most `requestWaitMs` for Redis, and a
 * command issued while Redis is unreachable fails at once instead of waiting in a queue to be sent later, after
 * its client was told 503. Commands in flight when a connection drops are re-sent on reconnect (their reply may be
 * all that was lost); the scripts are idempotent, and those that move money refuse to run after the API stopped
 * waiting (store/scripts/_lib.lua `too_late`).
 */
export async function createServiceRedis(target: RedisAddress, requestWaitMs: number, logger: Logger): Promise<Redis> {
  const redis = createRedis(target, { commandTimeout: commandTimeoutOf(requestWaitMs), enableOfflineQueue: false, autoResendUnfulfilledCommands: true });
  logOutages(redis, logger);
  // Not events.once: it rejects on the first 'error', so a Redis that drops during start-up (reachable a moment
  // before) would end the process; the connection retries and `logOutages` reports it meanwhile.
  if (redis.status !== 'ready') await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  return redis;
}

/** One line when a connection is lost (not one per reconnect attempt) and one when it is back. */
export function logOutages(redis: Redis, logger: Logger): void {
  let down = false;
  redis.on('error', (err: Error & { code?: string }) => {
    if (down) return;
    down = true;
    logger.error({ err: { message: err.message, code: err.code } }, 'Redis unreachable; requests get 503 until it is back');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info('Redis reachable again');
  });
}

/**
 * When a request path's script must no longer run (unix ms, compared with Redis's TIME in the script): a little
 * before the script times out (scripts go out at once, each command as it is issued), so a script Redis runs
 * late does nothing rather than race the 503. Assumes the API hosts' clocks and Redis's agree to well under a
 * second (NTP).
 */
export type NotAfter = () => number;

export const notAfterOf = (requestWaitMs: number): NotAfter => {
  const timeoutMs = commandTimeoutOf(requestWaitMs);
  return () => Date.now() + timeoutMs - Math.min(250, Math.floor(timeoutMs / 4));
};

/** No limit (tests and tools that call the stores directly). */
export const noDeadline: NotAfter = () => 0;

const UNAVAILABLE = [/^Command timed out/, /enableOfflineQueue options is false/, /^Connection is closed/, /^Reached the max retries per request limit/];

/**
 * Refusals of a node that cannot take the command now, not of the command: an isolated primary
 * (`min-replicas-to-write`), a node demoted mid-failover, one still loading its data. Nothing was written.
 */
const UNAVAILABLE_REPLIES = /^(NOREPLICAS|READONLY|LOADING|MASTERDOWN|TRYAGAIN)\b/;

/** A Redis command failed because Redis was unreachable, too slow or not the primary, not because of what it asked. */
export function isRedisUnavailable(err: unknown): boolean {
  const e = err as { name?: string; message?: string; previousErrors?: unknown[] } | null;
  if (!e || typeof e.message !== 'string') return false;
  // A MULTI whose commands a demoted or isolated node refused as they were queued fails its EXEC as EXECABORT.
  if (e.name === 'ReplyError' && e.message.startsWith('EXECABORT')) return (e.previousErrors ?? []).some(isRedisUnavailable);
  if (e.name === 'ReplyError') return UNAVAILABLE_REPLIES.test(e.message);
  return e.name === 'MaxRetriesPerRequestError' || UNAVAILABLE.some((re) => re.test(e.message as string));
}

/** BullMQ requires `maxRetriesPerRequest: null` on its connections. */
export const createQueueRedis = (target: RedisAddress): Redis =>
  new Redis(urlOf(target), { ...sentinelOptions(target), maxRetriesPerRequest: null, enableAutoPipelining: false });

/** The BullMQ connections of one role part: each queue and worker gets its own, and all close together. */
export interface QueueConnections {
  connection(): Redis;
  closeAll(): Promise<void>;
}

export function queueConnections(target: RedisAddress): QueueConnections {
  const open: Redis[] = [];
  return {
    connection() {
      const c = createQueueRedis(target);
      open.push(c);
      return c;
    },
    async closeAll() {
      await Promise.all(open.map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}

/**
 * One ping at start, on a connection of its own that never retries, so an unreachable Redis stops the start
 * within `timeoutMs` and names REDIS_URL. The service's own connections keep their retry settings.
 * @throws {StartupError} naming what failed and the fix
 */
export async function assertRedisReachable(target: RedisAddress, timeoutMs = 3_000): Promise<void> {
  const url = urlOf(target);
  const sentinel = sentinelOptions(target);
  const probe = new Redis(url, {
    ...sentinel,
    ...(sentinel.sentinels ? { sentinelRetryStrategy: () => null } : {}),
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
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
        `Redis at ${describeTarget(target)} refused the credentials: put the right user and password in REDIS_URL (redis://user:password@host:port)`,
      );
    }
    if (sentinel.sentinels) {
      throw new StartupError(
        `Redis is unreachable as ${describeTarget(target)} (${reason}): start the Sentinels and the Redis primary they monitor, or fix REDIS_SENTINELS and REDIS_SENTINEL_NAME`,
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
