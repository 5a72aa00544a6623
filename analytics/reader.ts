/**
 * The analytics reads as the API serves them (design §8): parameters checked first (INVALID_REQUEST), then one
 * answer per distinct query for about a second, shared by every caller of this process. An engine that cannot
 * answer is SERVICE_UNAVAILABLE, never an internal error: play goes on without ClickHouse.
 * @module
 */
import { PfwsError } from '../protocol/errors.ts';
import { EngineError, type AnalyticsEngine } from './engine.ts';
import { AnalyticsRequestError, parseGame, parseLimit, parseMetric, parsePeriod, parseSource } from './params.ts';
import type { GameFilter, Metric, Period, SourceFilter } from './params.ts';
import type { Activity, Bankroll, Rankings, Stats } from '../protocol/analytics.ts';
import { activity, rankings, shippedPlaySeq, stats } from './queries.ts';
import { archivedReceiptTexts, MAX_ARCHIVED_READ } from './archive.ts';
import { MAX_ARCHIVED_EVENTS, type ArchivedReceiptText, type JournalArchive, type ReceiptArchive } from '../store/retention.ts';
import type { JournalRecord } from '../store/journal-records.ts';
import { RecoveryArchive } from './recovery-archive.ts';

/** Query parameters as they arrive (strings from a URL, or already parsed). */
export interface ActivityQuery {
  game?: unknown;
  limit?: unknown;
}
export interface RankingsQuery {
  game?: unknown;
  source?: unknown;
  metric?: unknown;
}
export interface StatsQuery {
  game?: unknown;
  period?: unknown;
}
/** `client`: whose share of the archive's budget the read spends (the request's address); reads that name none share one. */
export interface ArchivedReceiptsQuery {
  receiptIds?: unknown;
  client?: unknown;
}
export interface ArchivedEventsQuery {
  afterSeq?: unknown;
  toSeq?: unknown;
  client?: unknown;
}

export interface AnalyticsReader {
  /** @throws {PfwsError} INVALID_REQUEST for a bad parameter, SERVICE_UNAVAILABLE while ClickHouse cannot answer */
  activity(query: ActivityQuery): Promise<Activity>;
  /** @throws {PfwsError} INVALID_REQUEST for a bad parameter, SERVICE_UNAVAILABLE while ClickHouse cannot answer */
  rankings(query: RankingsQuery): Promise<Rankings>;
  /** @throws {PfwsError} INVALID_REQUEST for a bad parameter, SERVICE_UNAVAILABLE while ClickHouse cannot answer */
  stats(query: StatsQuery): Promise<Stats>;
  /**
   * The activity with the journal seq it was read as of, for the live stream (see analytics/snapshot-tail.ts).
   * @throws {PfwsError} as {@link activity}
   */
  shippedActivity(query: ActivityQuery): Promise<ShippedActivity>;
  /**
   * The archived texts of receipts (`receiptIds`: 1 to 512 ids), those the archive holds: where receipts Redis no
   * longer keeps are read (store/retention.ts). Never cached.
   * @throws {PfwsError} INVALID_REQUEST for bad ids, SERVICE_UNAVAILABLE while ClickHouse cannot answer
   */
  archivedReceipts(query: ArchivedReceiptsQuery): Promise<ArchivedReceiptText[]>;
  /**
   * The archived journal events with `afterSeq < seq <= toSeq` (at most 1,000 seqs), in seq order: where events
   * trimmed from the Redis stream are read. Never cached.
   * @throws {PfwsError} INVALID_REQUEST for a bad range, SERVICE_UNAVAILABLE while ClickHouse cannot answer
   */
  archivedEvents(query: ArchivedEventsQuery): Promise<JournalRecord[]>;
  /** Resolves when the engine answers a trivial query (readiness). */
  ping(): Promise<void>;
}

export interface ShippedActivity {
  /** Every play up to this journal seq is in `activity` (read before it, see `shippedPlaySeq`). */
  shippedSeq: number;
  activity: Activity;
}

/** The parsed forms: what a cache key and an IPC message carry. */
export interface ParsedActivity {
  game: GameFilter;
  limit: number;
}
export interface ParsedRankings {
  game: GameFilter;
  source: SourceFilter;
  metric: Metric;
}
export interface ParsedStats {
  game: GameFilter;
  period: Period;
}

/**
 * Checks parameters against their whitelists.
 * @throws {PfwsError} INVALID_REQUEST naming the parameter
 */
export function parseQuery(kind: 'activity', query: ActivityQuery): ParsedActivity;
export function parseQuery(kind: 'rankings', query: RankingsQuery): ParsedRankings;
export function parseQuery(kind: 'stats', query: StatsQuery): ParsedStats;
export function parseQuery(kind: 'activity' | 'rankings' | 'stats', query: ActivityQuery & RankingsQuery & StatsQuery): object {
  try {
    if (kind === 'activity') return { game: parseGame(query.game), limit: parseLimit(query.limit) };
    if (kind === 'rankings') return { game: parseGame(query.game), source: parseSource(query.source), metric: parseMetric(query.metric) };
    return { game: parseGame(query.game), period: parsePeriod(query.period) };
  } catch (err) {
    if (err instanceof AnalyticsRequestError) {
      const { param, allowed } = err.details;
      throw new PfwsError('INVALID_REQUEST', err.message, allowed ? { param, allowed: allowed.join(',') } : { param });
    }
    throw err;
  }
}

export const unavailable = (cause: unknown): PfwsError =>
  new PfwsError('SERVICE_UNAVAILABLE', 'Analytics are unavailable right now (ClickHouse cannot answer); play is not affected, retry shortly', undefined, {
    cause,
  });

/**
 * Checks a list of receipt ids.
 * @throws {PfwsError} INVALID_REQUEST unless it is 1 to 512 strings of 1 to 200 characters
 */
export function parseReceiptIds(ids: unknown): string[] {
  const ok =
    Array.isArray(ids) && ids.length > 0 && ids.length <= MAX_ARCHIVED_READ && ids.every((id) => typeof id === 'string' && id.length > 0 && id.length <= 200);
  if (!ok) throw new PfwsError('INVALID_REQUEST', `receiptIds must be 1 to ${MAX_ARCHIVED_READ} strings of 1 to 200 characters`);
  return ids as string[];
}

/**
 * Checks a seq range.
 * @throws {PfwsError} INVALID_REQUEST unless `0 <= afterSeq < toSeq <= afterSeq + 1000`, integers
 */
export function parseSeqRange(query: ArchivedEventsQuery): { afterSeq: number; toSeq: number } {
  const { afterSeq, toSeq } = query;
  const ok =
    Number.isSafeInteger(afterSeq) &&
    Number.isSafeInteger(toSeq) &&
    (afterSeq as number) >= 0 &&
    (toSeq as number) > (afterSeq as number) &&
    (toSeq as number) - (afterSeq as number) <= MAX_ARCHIVED_EVENTS;
  if (!ok) throw new PfwsError('INVALID_REQUEST', `afterSeq and toSeq must be integers with 0 <= afterSeq < toSeq <= afterSeq + ${MAX_ARCHIVED_EVENTS}`);
  return { afterSeq: afterSeq as number, toSeq: toSeq as number };
}

/** The archive reads of an engine, as this process makes them. */
export type EngineArchive = ReceiptArchive & JournalArchive & Pick<AnalyticsReader, 'archivedReceipts' | 'archivedEvents'>;

/** How long a client counts among those sharing the archive's budget after its last read. */
export const ARCHIVE_CLIENT_ACTIVE_MS = 5_000;

/** A client's address or other identity, as a budget keys it: at most 100 characters, or none. */
export const budgetClientOf = (client: unknown): string | undefined => (typeof client === 'string' && client.length <= 100 ? client : undefined);

/**
 * The archive reads of an engine this process may query, at most `readsPerSec` a second in all: each is a query of
 * its own, 11–12 ms of chDB's CPU measured here for a receipt, against well under 1 ms for a read Redis answers, so an
 * unbounded stream of requests for old receipts could take the cores play runs on. The budget is shared evenly by the
 * clients that read in the last {@link ARCHIVE_CLIENT_ACTIVE_MS}: each has a bucket filling at `readsPerSec` over
 * their number, so a client that asks for everything cannot keep another's audit of old history waiting. Past its
 * share a read is SERVICE_UNAVAILABLE (503) with a Retry-After of when its next read fits. The routes name the client
 * in each read: an AsyncLocalStorage would carry it implicitly, but on Node 20, once enabled, it about doubles the cost
 * of every `await` in the process (60–85 → 130–180 ms for a million here), the bet path's included.
 */
export function engineArchive(
  engine: () => Promise<AnalyticsEngine>,
  readsPerSec = Number.POSITIVE_INFINITY,
  now: () => number = () => performance.now(),
): EngineArchive {
  const unavailableOnEngineError = (err: unknown) => (err instanceof EngineError ? unavailable(err) : err);
  const buckets = new Map<string, { tokens: number; at: number }>();
  let prunedAt = now();
  const take = (asked: unknown) => {
    if (readsPerSec === Number.POSITIVE_INFINITY) return;
    const client = budgetClientOf(asked) ?? '';
    const t = now();
    // Clients that went quiet leave once a second, so a read counts the clients in O(1), however many there are.
    if (t - prunedAt >= 1_000) {
      for (const [c, b] of buckets) if (t - b.at >= ARCHIVE_CLIENT_ACTIVE_MS) buckets.delete(c);
      prunedAt = t;
    }
    const active = buckets.size + (buckets.has(client) ? 0 : 1);
    const share = readsPerSec / active;
    const capacity = Math.max(1, share);
    const bucket = buckets.get(client) ?? { tokens: capacity, at: t };
    bucket.tokens = Math.min(capacity, bucket.tokens + ((t - bucket.at) / 1000) * share);
    bucket.at = t;
    buckets.set(client, bucket);
    if (bucket.tokens < 1) {
      const waitS = Math.max(1, Math.ceil((1 - bucket.tokens) / share));
      throw new PfwsError(
        'SERVICE_UNAVAILABLE',
        `Older receipts and journal events are read from the archive, at most ${readsPerSec} reads a second shared by the clients reading them; retry in ${waitS} s`,
        undefined,
        { extras: { headers: { 'retry-after': String(waitS) } } },
      );
    }
    bucket.tokens -= 1;
  };
  return {
    async archivedEvents(query: ArchivedEventsQuery) {
      const { afterSeq, toSeq } = parseSeqRange(query);
      take(query.client);
      try {
        return await new RecoveryArchive(await engine()).events(afterSeq, toSeq);
      } catch (err) {
        throw unavailableOnEngineError(err);
      }
    },
    async archivedReceipts(query: ArchivedReceiptsQuery) {
      const ids = parseReceiptIds(query.receiptIds);
      take(query.client);
      try {
        return await archivedReceiptTexts(await engine(), ids);
      } catch (err) {
        throw unavailableOnEngineError(err);
      }
    },
  };
}

export interface EngineReaderDeps {
  /** The engine, opened on first use (see `EngineHolder.get`). */
  engine: () => Promise<AnalyticsEngine>;
  clock: () => Date;
  /** The house's total value, as activity and stats show it. */
  bankroll: () => Promise<Bankroll>;
  /** The archive reads, with this process's budget; by default the engine's, unbounded. */
  archive?: EngineArchive;
  /**
   * How long one answer serves the same query.
   * @defaultValue 1000
   */
  cacheMs?: number;
  /**
   * How long a query in flight is shared with identical requests, whatever `cacheMs` is: past it, one that has not
   * answered (a stuck engine) no longer holds up the requests that follow, which query afresh.
   * @defaultValue 10000
   */
  shareInFlightMs?: number;
}

/** Reads from an engine this process may query itself (chDB it owns, or a ClickHouse server). */
export class EngineReader implements AnalyticsReader {
  private readonly cache = new Map<string, { at: number; value: Promise<unknown>; inFlight: boolean }>();
  private readonly cacheMs: number;
  private readonly shareInFlightMs: number;
  private readonly archive: EngineArchive;

  constructor(private readonly deps: EngineReaderDeps) {
    this.cacheMs = deps.cacheMs ?? 1_000;
    this.shareInFlightMs = deps.shareInFlightMs ?? 10_000;
    this.archive = deps.archive ?? engineArchive(deps.engine);
  }

  async activity(query: ActivityQuery): Promise<Activity> {
    const q = parseQuery('activity', query);
    return this.cached(`activity:${q.game}:${q.limit}`, async (engine, now) => activity(engine, Object.assign({}, q, { now, bankroll: this.bankroll() })));
  }

  async shippedActivity(query: ActivityQuery): Promise<ShippedActivity> {
    const q = parseQuery('activity', query);
    return this.cached(`shipped-activity:${q.game}:${q.limit}`, async (engine, now) => {
      const bankroll = this.bankroll();
      const shippedSeq = await shippedPlaySeq(engine);
      return { shippedSeq, activity: await activity(engine, Object.assign({}, q, { now, bankroll })) };
    });
  }

  async rankings(query: RankingsQuery): Promise<Rankings> {
    const q = parseQuery('rankings', query);
    return this.cached(`rankings:${q.game}:${q.source}:${q.metric}`, (engine, now) => rankings(engine, Object.assign({}, q, { now })));
  }

  async stats(query: StatsQuery): Promise<Stats> {
    const q = parseQuery('stats', query);
    return this.cached(`stats:${q.game}:${q.period}`, async (engine, now) => stats(engine, Object.assign({}, q, { now, bankroll: this.bankroll() })));
  }

  archivedReceipts(query: ArchivedReceiptsQuery): Promise<ArchivedReceiptText[]> {
    return this.archive.archivedReceipts(query);
  }

  archivedEvents(query: ArchivedEventsQuery): Promise<JournalRecord[]> {
    return this.archive.archivedEvents(query);
  }

  async ping(): Promise<void> {
    try {
      await (await this.deps.engine()).query('SELECT 1 AS ok');
    } catch (err) {
      throw err instanceof EngineError ? unavailable(err) : err;
    }
  }

  /** The house value, read from the chain while the queries run rather than before them. */
  private bankroll(): Promise<Bankroll> {
    const read = this.deps.bankroll();
    // Awaited after the queries answer: when one of them fails first, this read's failure must not go unhandled.
    read.catch(() => {});
    return read;
  }

  /**
   * One computation per key per `cacheMs` once done; a failure is not kept. While one is in flight (for up to
   * `shareInFlightMs`), every request for the same key shares it, whatever `cacheMs` is (0 included): a burst of
   * identical requests (a thousand live-stream clients reconnecting at once) costs one query, not one each, and an
   * answer is never older than the query that was already running when it was asked.
   */
  private cached<T>(key: string, compute: (engine: AnalyticsEngine, now: Date) => Promise<T>): Promise<T> {
    const t = performance.now();
    const hit = this.cache.get(key);
    if (hit && (t - hit.at < this.cacheMs || (hit.inFlight && t - hit.at < this.shareInFlightMs))) return hit.value as Promise<T>;
    const value = (async () => {
      try {
        return await compute(await this.deps.engine(), this.deps.clock());
      } catch (err) {
        throw err instanceof EngineError ? unavailable(err) : err;
      }
    })();
    const entry = { at: t, value, inFlight: true };
    this.cache.set(key, entry);
    value.then(
      () => {
        entry.inFlight = false;
        // Kept only while it may still serve: with the cache off, nothing outlives its query.
        if (this.cacheMs === 0 && this.cache.get(key) === entry) this.cache.delete(key);
      },
      () => {
        entry.inFlight = false;
        if (this.cache.get(key) === entry) this.cache.delete(key);
      },
    );
    // Keys are few (whitelisted parameters, limit 1..100), but expired entries still go.
    if (this.cache.size > 512)
      for (const [k, v] of this.cache) if (t - v.at >= Math.max(this.cacheMs, v.inFlight ? this.shareInFlightMs : 0)) this.cache.delete(k);
    return value;
  }
}
