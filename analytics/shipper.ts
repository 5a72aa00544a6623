/**
 * Ships the journal stream from Redis into ClickHouse exactly once (design §8).
 *
 * - The checkpoint is the highest `seq` already in `journal_events`, read back from ClickHouse at start
 *   and after every failure, never kept anywhere else: a crash between an insert and the next step
 *   cannot make the shipper send a batch twice.
 * - One batch is one INSERT into `journal_events`; the materialized views derive `plays` and the
 *   aggregates from that same block (see `analytics/reconcile.ts` for the crash inside an INSERT).
 * - Batches are large and infrequent, as MergeTree wants them: after a partial batch the shipper lets
 *   events gather for `flushMs` before it reads again, so under load it makes about one INSERT per
 *   `flushMs` (each INSERT is a new part in every table the views feed, and parts cost merges); a backlog
 *   goes out in full batches back to back.
 * - While ClickHouse is down, it retries with backoff and the events wait in the stream; only events
 *   below the checkpoint may be trimmed ({@link JournalShipper.trim}).
 * - On first start against an empty ClickHouse it ships the whole stream.
 * - The journal's seq never goes backwards for analytics (design §13): when the ledger hands out seqs ClickHouse
 *   already holds (a ledger restored from an older backup), shipping stops with a {@link JournalRewoundError} —
 *   nothing is dropped or doubled — and looks again every `retry.maxMs` until the ledger is recovered.
 * @module
 */
import type { Logger } from 'pino';
import { EngineError, bigIntOf, type AnalyticsEngine } from './engine.ts';
import { JOURNAL_COLUMNS, journalRowOf, journalValues, type JournalRow } from './journal-rows.ts';
import { compactAggregates, pruneTopWagers, reconcile } from './reconcile.ts';
import { sql } from './sql.ts';
import { fillTopWagers } from './top-wagers.ts';
import { HOUR_MS, floorTo } from './windows.ts';
import type { BlockingStreamReader, JournalStream, StreamEntry } from '../store/analytics.ts';
import { RECOVER_COMMAND } from '../config/startup.ts';

export interface ShipperDeps {
  /** The journal stream in Redis. */
  stream: JournalStream;
  engine: AnalyticsEngine;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /**
   * Most events per INSERT.
   * @defaultValue 20000
   */
  batchSize?: number;
  /**
   * How long events gather after a partial batch before the next read: the shipping lag under load is about
   * this plus one INSERT. Every INSERT writes a part in `journal_events` and in each table the views
   * feed, and that fixed cost, not the rows, is most of what ingestion costs chDB. Rankings may lag settlement by 2 s
   * at p99 (issue 25); the live stream does not wait for it (a new client's snapshot adds the journal's unshipped
   * plays, analytics/snapshot-tail.ts). A first event after a quiet spell goes out at once.
   * @defaultValue 1000
   */
  flushMs?: number;
  /** Called after every INSERT with the new checkpoint (the worker beats the shipper heartbeat with it). */
  onShipped?: (checkpoint: Checkpoint) => void;
  /**
   * How long one read waits for new events before looking again.
   * @defaultValue 1000
   */
  blockMs?: number;
  /**
   * Backoff between attempts while ClickHouse (or Redis) fails: doubles from `minMs` up to `maxMs`.
   * @defaultValue `{ minMs: 200, maxMs: 10000 }`
   */
  retry?: { minMs: number; maxMs: number };
  /**
   * How often the per-player and per-hour totals are merged into one part (see `compactAggregates`),
   * counted from the first batch shipped after the last time.
   * @defaultValue 600000
   */
  compactEveryMs?: number;
  /** @defaultValue `() => new Date()` */
  now?: () => Date;
}

/** The newest event in ClickHouse: its journal `seq` and stream id. */
export interface Checkpoint {
  seq: number;
  id: string;
}

type Entry = StreamEntry;

/**
 * How long after a play's `at` it may still be journaled (the API stamps `at`, then runs the script that appends it;
 * clocks of several hosts differ a little): an hour is filled in `top_wagers` only once shipping is this far past it.
 */
export const TOP_WAGERS_LATE_MS = 60_000;

/** The ledger's journal went back behind what ClickHouse holds: its next events would reuse shipped seqs. */
export class JournalRewoundError extends Error {
  override readonly name = 'JournalRewoundError';
}

const rewound = (what: string, cp: Checkpoint) =>
  new JournalRewoundError(
    `${what}, but ClickHouse already holds the journal up to seq ${cp.seq} (event ${cp.id}): the ledger went back (restored from an older backup?) ` +
      'and hands out those seqs again. Shipping stopped, so no play is dropped or doubled in analytics. ' +
      `Stop the service and run \`${RECOVER_COMMAND}\`, which restores the archived tail with its own seqs.`,
  );

export class JournalShipper {
  private readonly deps: Required<Omit<ShipperDeps, 'retry' | 'onShipped'>> & Pick<ShipperDeps, 'onShipped'> & { retry: { minMs: number; maxMs: number } };
  private checkpointValue: Checkpoint | null = null;
  /** Stream id the next read starts after (ahead of the checkpoint when entries were skipped). */
  private cursor = '0-0';
  private recovered = false;
  private loop: Promise<void> | null = null;
  private stopping = false;
  private reader: BlockingStreamReader | null = null;
  private wake: (() => void) | null = null;
  private waiters: { seq: number; resolve: () => void }[] = [];
  private prunedDay = -1;
  /** End of the hours filled in `top_wagers` (epoch ms); null until read back after a recovery. */
  private topWagersFilledTo: number | null = null;
  private compactedAt = performance.now();
  private stoppedBy: JournalRewoundError | null = null;

  constructor(deps: ShipperDeps) {
    this.deps = {
      ...deps,
      batchSize: deps.batchSize ?? 20_000,
      flushMs: deps.flushMs ?? 1000,
      blockMs: deps.blockMs ?? 1000,
      now: deps.now ?? (() => new Date()),
      retry: deps.retry ?? { minMs: 200, maxMs: 10_000 },
      compactEveryMs: deps.compactEveryMs ?? 600_000,
    };
  }

  /** The newest shipped event, or null before the first (or before the checkpoint was read). */
  get checkpoint(): Checkpoint | null {
    return this.checkpointValue;
  }

  /** Why shipping stopped (the ledger reuses seqs ClickHouse holds), or null while it ships. */
  get stopped(): string | null {
    return this.stoppedBy?.message ?? null;
  }

  /** Starts shipping in the background until {@link stop}; failures are retried, never thrown. */
  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.reader = this.deps.stream.blockingReader();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    this.reader?.close();
    await this.loop;
    this.loop = null;
    this.reader = null;
  }

  /** Resolves once every event up to `seq` is in ClickHouse. */
  waitFor(seq: number): Promise<void> {
    if (this.checkpointValue && this.checkpointValue.seq >= seq) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ seq, resolve }));
  }

  /**
   * Ships everything now in the stream, in batches, then returns (no background loop; for a backfill,
   * a benchmark or a test). Throws on the first failure; the next call recovers first.
   * @returns the number of events inserted
   */
  async shipAvailable(): Promise<number> {
    if (!this.recovered) await this.recover();
    let shipped = 0;
    try {
      for (;;) {
        const readFrom = this.deps.now().getTime();
        const entries = await this.deps.stream.range(this.cursor, this.deps.batchSize);
        if (entries.length === 0) {
          await this.fillTopWagersNowAndThen(readFrom);
          return shipped;
        }
        shipped += await this.shipEntries(entries);
      }
    } catch (err) {
      this.recovered = false;
      throw err;
    }
  }

  /**
   * Trims the stream below the shipped checkpoint, and below `keepFromId` when given (manifests and SSE
   * resume read the stream too; the caller passes the oldest id they still need). The checkpoint is read
   * from ClickHouse itself, so nothing it does not hold is ever trimmed.
   * @returns the number of entries removed
   * @throws {EngineError} while ClickHouse cannot be read (nothing is trimmed)
   */
  async trim(keepFromId?: string): Promise<number> {
    const cp = await this.readCheckpoint();
    if (!cp) return 0;
    const minId = keepFromId && compareIds(keepFromId, cp.id) < 0 ? keepFromId : cp.id;
    return this.deps.stream.trimBelow(minId);
  }

  /**
   * Settles what a failed attempt may have left running, repairs the derived tables, and reads the
   * checkpoint back from ClickHouse.
   */
  async recover(): Promise<void> {
    const { engine, logger } = this.deps;
    this.recovered = false;
    await engine.settle();
    const report = await reconcile(engine, this.deps.now());
    this.topWagersFilledTo = null;
    if (report.playsRepaired || report.rebuilt.length) logger.warn({ report }, 'analytics: repaired derived tables after an interrupted insert');
    const checkpoint = await this.readCheckpoint();
    const seq = await this.deps.stream.lastSeq();
    if (checkpoint && seq < checkpoint.seq) throw this.halt(rewound(`the ledger's journal is at seq ${seq}`, checkpoint));
    this.stoppedBy = null;
    this.checkpointValue = checkpoint;
    this.cursor = this.checkpointValue?.id ?? '0-0';
    this.recovered = true;
    this.release();
  }

  private halt(err: JournalRewoundError): JournalRewoundError {
    this.stoppedBy = err;
    this.recovered = false;
    return err;
  }

  /** The newest event in `journal_events`, or null when it is empty. */
  private async readCheckpoint(): Promise<Checkpoint | null> {
    const { engine } = this.deps;
    const [top] = await engine.query<{ n: unknown; seq: unknown }>('SELECT count() AS n, max(seq) AS seq FROM journal_events');
    if (!top || bigIntOf(top.n) === 0n) return null;
    const seq = Number(bigIntOf(top.seq));
    const [row] = await engine.query<{ id: string }>(sql`SELECT id FROM journal_events WHERE seq = ${seq} LIMIT 1`);
    if (!row) throw new EngineError(`journal_events has no row for its max seq ${seq}`);
    return { seq, id: row.id };
  }

  private async run(): Promise<void> {
    const { logger, retry } = this.deps;
    let delay = retry.minMs;
    let failing = false;
    while (!this.stopping) {
      try {
        if (!this.recovered) {
          await this.recover();
          logger.info({ checkpoint: this.checkpointValue }, 'analytics: shipper resumes after checkpoint');
        }
        await this.pruneDaily();
        const readFrom = this.deps.now().getTime();
        const entries = await this.read();
        const readAt = performance.now();
        if (entries.length > 0) {
          await this.shipEntries(entries);
          await this.compactNowAndThen();
        }
        // A read short of a full batch found every event journaled before it began: the plays of the hours
        // before then are all in ClickHouse.
        if (entries.length < this.deps.batchSize) await this.fillTopWagersNowAndThen(readFrom);
        if (failing) logger.info({ checkpoint: this.checkpointValue }, 'analytics: ClickHouse is back, shipping again');
        failing = false;
        delay = retry.minMs;
        if (entries.length > 0 && entries.length < this.deps.batchSize) await this.sleep(this.deps.flushMs - (performance.now() - readAt));
      } catch (err) {
        if (this.stopping) break;
        this.recovered = false;
        if (err instanceof JournalRewoundError) {
          if (!failing) logger.error({ err }, 'analytics: shipping stopped: the ledger reuses journal seqs ClickHouse holds');
          failing = true;
          await this.sleep(retry.maxMs);
          continue;
        }
        if (!failing) logger.error({ err }, 'analytics: shipping failed; events wait in the stream, retrying');
        failing = true;
        await this.sleep(delay);
        delay = Math.min(delay * 2, retry.maxMs);
      }
    }
  }

  private async read(): Promise<Entry[]> {
    return (this.reader as BlockingStreamReader).read(this.cursor, this.deps.batchSize, this.deps.blockMs);
  }

  private async shipEntries(entries: Entry[]): Promise<number> {
    const cp = this.checkpointValue;
    const rows: JournalRow[] = [];
    for (const [id, fields] of entries) {
      const row = journalRowOf(id, fields);
      if (!row) this.deps.logger.warn({ id }, 'analytics: journal entry without a seq is not shipped');
      else if (cp && row.seq <= cp.seq) throw this.halt(rewound(`journal entry ${id} has seq ${row.seq}`, cp));
      else rows.push(row);
    }
    await insertJournalBatch(this.deps.engine, rows);
    const last = rows[rows.length - 1];
    if (last) this.checkpointValue = { seq: last.seq, id: last.id };
    this.cursor = (entries[entries.length - 1] as Entry)[0];
    this.release();
    if (last && this.checkpointValue) this.deps.onShipped?.(this.checkpointValue);
    return rows.length;
  }

  private release(): void {
    const seq = this.checkpointValue?.seq ?? 0;
    const ready = this.waiters.filter((w) => w.seq <= seq);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.seq > seq);
    for (const w of ready) w.resolve();
  }

  private async pruneDaily(): Promise<void> {
    const now = this.deps.now();
    const day = Math.floor(now.getTime() / 86_400_000);
    if (day === this.prunedDay) return;
    await pruneTopWagers(this.deps.engine, now);
    this.prunedDay = day;
  }

  /**
   * Fills `top_wagers` with the hours completed before `shippedBeforeMs` (less {@link TOP_WAGERS_LATE_MS}, the
   * time a settled play's `at` may precede its place in the journal), once per new hour.
   */
  private async fillTopWagersNowAndThen(shippedBeforeMs: number): Promise<void> {
    const completeBefore = shippedBeforeMs - TOP_WAGERS_LATE_MS;
    if (this.topWagersFilledTo !== null && floorTo(completeBefore, HOUR_MS) <= this.topWagersFilledTo) return;
    this.topWagersFilledTo = await fillTopWagers(this.deps.engine, completeBefore);
  }

  private async compactNowAndThen(): Promise<void> {
    if (performance.now() - this.compactedAt < this.deps.compactEveryMs) return;
    this.compactedAt = performance.now();
    await compactAggregates(this.deps.engine);
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }
}

/**
 * One batch, one INSERT: the rows go into `journal_events` and the views derive plays and aggregates
 * from the same block. The benchmark loads through this too.
 */
export async function insertJournalBatch(engine: AnalyticsEngine, rows: readonly JournalRow[]): Promise<void> {
  if (rows.length > 0) await engine.insert('journal_events', JOURNAL_COLUMNS, rows.map(journalValues));
}

/** Orders two stream ids (`ms-seq`). */
export function compareIds(a: string, b: string): number {
  const [am = 0n, as = 0n] = a.split('-').map((x) => BigInt(x));
  const [bm = 0n, bs = 0n] = b.split('-').map((x) => BigInt(x));
  return am === bm ? (as === bs ? 0 : as < bs ? -1 : 1) : am < bm ? -1 : 1;
}

/**
 * The highest journal seq ClickHouse holds, 0 when none: the keeper's proof that the ledger is not behind the archive
 * (funding/payout-gate.ts). `journal_events` is ordered by seq, so this reads one row, not the column.
 */
export async function archivedJournalSeq(engine: AnalyticsEngine): Promise<number> {
  const [row] = await engine.query<{ seq: unknown }>('SELECT seq FROM journal_events ORDER BY seq DESC LIMIT 1');
  return row ? Number(bigIntOf(row.seq)) : 0;
}
