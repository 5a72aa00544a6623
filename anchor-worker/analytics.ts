/**
 * The worker's analytics duties (design §8): one worker process at a time — the holder of a Redis lease — migrates
 * a ClickHouse server (chDB comes from its holder already migrated, see wiring.ts), ships the journal into it,
 * archives receipts and manifests, and beats the `shipper` heartbeat with the highest seq ClickHouse holds. Nothing
 * here blocks or fails the start: while ClickHouse is down, each pass tries again and play goes on, its events waiting
 * in the stream.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { EngineHolder } from '../analytics/engine-holder.ts';
import { migrate } from '../analytics/migrations.ts';
import type { JournalStream } from '../store/analytics.ts';
import type { Lease } from '../store/lease.ts';
import type { HeartbeatStore } from '../store/heartbeats.ts';
import { archivePass, type ArchiverDeps } from '../analytics/archiver.ts';
import { JournalShipper, type Checkpoint, type ShipperDeps } from '../analytics/shipper.ts';
import { retentionPass, type RetentionDeps } from './retention.ts';

export interface AnalyticsWorkerDeps {
  engine: EngineHolder;
  stream: JournalStream;
  lease: Pick<Lease, 'acquire' | 'renew' | 'release'>;
  archive: ArchiverDeps;
  heartbeats: Pick<HeartbeatStore, 'beat'>;
  clock: () => Date;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /**
   * How often the lease is held, the archive copied and the heartbeat beaten.
   * @defaultValue 1000
   */
  passMs?: number;
  /**
   * How often a pass copies what is new into the archive (receipts, anchors, manifests). Each copy is an INSERT per
   * table, a part for chDB to write and merge whatever its size. Not longer: a ledger restored from a backup is
   * rebuilt from the archive (design §13), so what it has not copied yet is what such a restore can lose.
   * @defaultValue 2000
   */
  archiveEveryMs?: number;
  /**
   * Drops settled plays' records and old journal events from Redis once archived (anchor-worker/retention.ts), after
   * each archive pass; absent (SETTLED_RETENTION_MS=0), Redis keeps them.
   */
  retention?: RetentionDeps;
  /** Shipper tuning (tests: short backoff). */
  shipper?: Pick<ShipperDeps, 'batchSize' | 'flushMs' | 'blockMs' | 'retry' | 'compactEveryMs'>;
}

const LEASE_MS = 15_000;
const TRIM_EVERY_MS = 60_000;

export interface AnalyticsWorker {
  /** The running shipper while this process holds the lease, else null. */
  readonly shipper: JournalShipper | null;
  stop(): Promise<void>;
}

export function startAnalyticsWorker(deps: AnalyticsWorkerDeps): AnalyticsWorker {
  const id = randomUUID();
  const passMs = deps.passMs ?? 1_000;
  const archiveEveryMs = deps.archiveEveryMs ?? 2_000;
  let archivedAt = Number.NEGATIVE_INFINITY;
  let trimmedAt = Number.NEGATIVE_INFINITY;
  const { logger } = deps;
  let leader = false;
  let migrated = false;
  let shipper: JournalShipper | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  /** The last failure logged, so an outage is logged once, not every second. */
  let lastProblem = '';

  const problem = (what: string, err: unknown) => {
    const text = `${what}: ${(err as Error).message}`;
    if (text !== lastProblem) logger.warn({ err }, `analytics: ${what}; retrying (play is not affected)`);
    lastProblem = text;
  };

  const holdLease = async () => {
    const was = leader;
    leader = was ? await deps.lease.renew(id, LEASE_MS) : await deps.lease.acquire(id, LEASE_MS);
    if (leader && !was) logger.info({ id }, 'analytics: this process ships the journal to ClickHouse');
    if (!leader && shipper) {
      logger.warn({ id }, 'analytics: shipper lease lost; another worker process ships now');
      await shipper.stop();
      shipper = null;
    }
  };

  const pass = async () => {
    try {
      await holdLease();
    } catch (err) {
      problem('cannot hold the shipper lease in Redis', err);
      return;
    }
    if (!leader) return;
    let engine: Awaited<ReturnType<EngineHolder['get']>>;
    try {
      engine = await deps.engine.get();
      if (!migrated) {
        const applied = await migrate(engine);
        migrated = true;
        logger.info({ engine: engine.kind, applied }, 'analytics: ClickHouse schema is current');
      }
    } catch (err) {
      problem('ClickHouse cannot be opened or migrated', err);
      return;
    }
    if (!shipper) {
      const kind = engine.kind;
      // Beaten after every INSERT too, so `pfws_shipper_lag_events` shows the lag itself, not a second-old view of it.
      const onShipped = (checkpoint: Checkpoint) =>
        void deps.heartbeats
          .beat('shipper', passMs, { shippedSeq: checkpoint.seq, engine: kind }, deps.clock().getTime())
          .catch((err) => problem('shipper heartbeat failed', err));
      shipper = new JournalShipper({ stream: deps.stream, engine, logger, now: deps.clock, onShipped, ...deps.shipper });
      shipper.start();
    }
    try {
      if (performance.now() - archivedAt >= archiveEveryMs) {
        archivedAt = performance.now();
        await archivePass(engine, deps.archive);
        // The trim reads the shipped checkpoint from ClickHouse (a scan of journal_events' seqs): once a minute is enough.
        const now = deps.clock().getTime();
        const trim = now - trimmedAt >= TRIM_EVERY_MS;
        if (trim) trimmedAt = now;
        if (deps.retention)
          await retentionPass(deps.retention, trim ? shipper : null).catch((err) => problem('dropping archived plays from Redis failed', err));
      }
    } catch (err) {
      problem('archiving receipts and manifests failed', err);
    }
    const checkpoint = shipper.checkpoint;
    // `stopped` is always written, so a stop that ended does not linger in the record.
    await deps.heartbeats
      .beat(
        'shipper',
        passMs,
        { ...(checkpoint ? { shippedSeq: checkpoint.seq } : {}), engine: engine.kind, stopped: shipper.stopped ?? '' },
        deps.clock().getTime(),
      )
      .catch((err) => problem('shipper heartbeat failed', err));
  };

  const schedule = (delay: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = pass().finally(() => {
        running = null;
        schedule(passMs);
      });
    }, delay);
  };
  schedule(0);

  return {
    get shipper() {
      return shipper;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      await shipper?.stop();
      shipper = null;
      if (leader) await deps.lease.release(id).catch(() => {});
      leader = false;
    },
  };
}
