/**
 * BullMQ wiring of the anchor and manifest processors. A light scheduler enqueues a job when a batch is
 * due (by count or by age); jobs deduplicate on the size they extend, queues run one job at a time
 * across all workers, transient failures retry with capped backoff, and an entry that can never be
 * anchored fails the job as unrecoverable and halts anchoring until an operator looks. A log that no
 * longer holds the chain's newest commit refuses the start, or halts anchoring the same way (and
 * readiness fails) when it goes back under a running worker.
 * @module
 */
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { queueConnections, type RedisAddress } from '../store/redis.ts';
import { InvalidEntryError } from '../store/anchor-tree.ts';
import { LedgerForkError } from '../transparency/log-guard.ts';
import { Anchorer, type AnchorerDeps, type AnchorerOptions } from './anchor.ts';
import { ManifestBuilder, type ManifestDeps, type ManifestHooks } from './manifests.ts';
import { startPollLoop } from './poll-loop.ts';

export interface AnchoringDeps {
  anchorer: AnchorerDeps;
  manifests: ManifestDeps;
  /** The ledger's Redis (a URL, or the Sentinels' primary). */
  redis: RedisAddress;
  /** BullMQ key prefix (store/keys.ts), so each deployment and test has its own queues. */
  queuePrefix: string;
  logger: Logger;
  /** Commit at least every this many entries, and at least this often. */
  anchorMaxEntries: number;
  anchorMaxDelayMs: number;
  /** Sign a manifest at least every this many events, and at least this often. */
  manifestMaxEvents: number;
  manifestMaxDelayMs: number;
}

export interface AnchoringOptions {
  anchorer?: AnchorerOptions;
  manifestHooks?: ManifestHooks;
  /**
   * How often the scheduler looks for due work.
   * @defaultValue a quarter of the smaller max delay, at most 250 ms
   */
  pollMs?: number;
}

export interface AnchoringHandle {
  anchorer: Anchorer;
  manifests: ManifestBuilder;
  /** Enqueues whatever is due now, ignoring the delay thresholds (used by tests and at shutdown). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

const JOB_OPTIONS = {
  // Effectively unbounded: a transient RPC outage must not drop a commit; the backoff is capped below.
  attempts: 1_000_000,
  backoff: { type: 'capped' },
  removeOnComplete: 100,
  removeOnFail: 1000,
};

const backoffStrategy = (attemptsMade: number): number => Math.min(30_000, 200 * 2 ** Math.min(attemptsMade, 10));

export interface CommitDueInput {
  now: number;
  logSize: number;
  committed: number;
  /** When the oldest entry not yet committed settled; null when there is none. */
  oldestAt: number | null;
  maxEntries: number;
  maxDelayMs: number;
  /** Until when the last commit's state tree holds the next one back (epoch ms; see `stateTreeHoldsUntil`). */
  heldBackUntil: number;
}

/** Whether new entries are due for a commit: `maxEntries` of them, or the oldest `maxDelayMs` old, once nothing holds it back. */
export function commitDue(input: CommitDueInput): boolean {
  const { now, logSize, committed, oldestAt } = input;
  if (logSize <= committed || now < input.heldBackUntil) return false;
  return logSize - committed >= input.maxEntries || (oldestAt !== null && now - oldestAt >= input.maxDelayMs);
}

export async function startAnchoring(deps: AnchoringDeps, options: AnchoringOptions = {}): Promise<AnchoringHandle> {
  const log = deps.logger.child({ role: 'worker', part: 'anchoring' });
  const anchorer = new Anchorer(deps.anchorer, options.anchorer);
  const manifests = new ManifestBuilder(deps.manifests, options.manifestHooks);
  const anchors = anchorer.store;
  try {
    await anchorer.checkChain();
  } catch (err) {
    // Recorded in the ledger too, so API processes elsewhere report it on /ready until the log is whole again.
    if (err instanceof LedgerForkError) await anchors.refuseFork(err.message);
    throw err;
  }
  await anchors.clearForkRefusal();
  const connections = queueConnections(deps.redis);
  const connection = connections.connection;
  const prefix = deps.queuePrefix;
  const anchorQueue = new Queue('anchor', { connection: connection(), prefix });
  const manifestQueue = new Queue('manifest', { connection: connection(), prefix });
  // A Redis outage reaches these as connection errors, once per reconnect attempt; the workers below and the
  // service's own connection already report it (BullMQ prints unheard errors to the console).
  for (const q of [anchorQueue, manifestQueue]) q.on('error', () => undefined);
  // One commit (and one manifest) at a time across every worker process.
  await Promise.all([anchorQueue.setGlobalConcurrency(1), manifestQueue.setGlobalConcurrency(1)]);

  const workerOptions = {
    prefix,
    concurrency: 1,
    lockDuration: 15_000,
    stalledInterval: 5_000,
    maxStalledCount: 1_000,
    settings: { backoffStrategy },
  };
  const anchorWorker = new Worker(
    'anchor',
    async (job: Job) => {
      // Jobs queued before a halt must not report the same bad entry again.
      if (await anchors.halted()) return null;
      try {
        const size = await anchorer.run();
        await anchorer.store.setLastError(null);
        return size;
      } catch (err) {
        if (err instanceof LedgerForkError) {
          await anchors.refuseFork(err.message);
          log.error({ err, jobId: job.id }, 'anchor: the bet log no longer holds the newest on-chain commit; anchoring halted, nothing signed');
          throw new UnrecoverableError(err.message);
        }
        if (err instanceof InvalidEntryError) {
          await anchors.halt(err.message);
          log.error({ err, jobId: job.id }, 'anchor: an entry can never be anchored; anchoring halted');
          throw new UnrecoverableError(err.message);
        }
        await anchorer.store.setLastError(String((err as Error).message ?? err));
        throw err;
      }
    },
    { ...workerOptions, connection: connection() },
  );
  const manifestWorker = new Worker('manifest', async () => (await manifests.run())?.manifestHash ?? null, { ...workerOptions, connection: connection() });
  for (const [name, w] of [
    ['anchor', anchorWorker],
    ['manifest', manifestWorker],
  ] as const) {
    w.on('failed', (job, err) => log.warn({ err, jobId: job?.id, attempts: job?.attemptsMade }, `${name}: job failed`));
    w.on('error', (err) => log.warn({ err }, `${name}: worker error`));
  }

  /**
   * When the entry at `index` settled, from its receipt; entries that settled while a commit was in
   * flight have waited already. A receipt time in the future (a skewed clock) counts from now.
   */
  const settledAt = async (index: number, now: number): Promise<number> => {
    const at = Date.parse((await anchors.entryCreatedAt(index)) ?? '');
    return Number.isFinite(at) && at < now ? at : now;
  };

  // The age of the oldest unanchored entry counts from its settlement; that of unmanifested events from when first seen.
  let anchorSince: { from: number; at: number } | null = null;
  let manifestSince: { from: number; at: number } | null = null;
  let haltLogged = false;

  const enqueueAnchor = async (from: number) => anchorQueue.add('commit', { from }, { ...JOB_OPTIONS, deduplication: { id: `commit-from-${from}` } });
  const enqueueManifest = async (afterSeq: number) =>
    manifestQueue.add('manifest', { afterSeq }, { ...JOB_OPTIONS, deduplication: { id: `manifest-after-${afterSeq}` } });

  const tick = async (force: boolean) => {
    const now = Date.now();
    const { logSize, committedSize: committed, filledSize: filled, halted, pending, stateTree } = await anchors.progress();
    if (halted) {
      if (!haltLogged) log.error({ reason: halted }, 'anchor: halted; clear the "halted" field of the anchor hash after repair');
      haltLogged = true;
    } else {
      haltLogged = false;
      if (anchorSince?.from !== committed) anchorSince = logSize > committed ? { from: committed, at: await settledAt(committed, now) } : null;
      const due =
        force ||
        pending ||
        filled < committed ||
        commitDue({
          now,
          logSize,
          committed,
          oldestAt: anchorSince?.at ?? null,
          maxEntries: deps.anchorMaxEntries,
          maxDelayMs: deps.anchorMaxDelayMs,
          heldBackUntil: anchorer.heldBackUntil(stateTree),
        });
      if (due && (logSize > committed || pending || filled < committed)) await enqueueAnchor(committed);
    }

    const [mState, seq] = await Promise.all([manifests.store.state(), manifests.store.journalSeq()]);
    if (manifestSince?.from !== mState.lastSeq) manifestSince = seq > mState.lastSeq ? { from: mState.lastSeq, at: now } : null;
    const manifestDue =
      mState.draft !== null ||
      seq - mState.lastSeq >= deps.manifestMaxEvents ||
      (seq > mState.lastSeq && (force || (manifestSince !== null && now - manifestSince.at >= deps.manifestMaxDelayMs)));
    if (manifestDue) await enqueueManifest(mState.lastSeq);
  };

  const pollMs = options.pollMs ?? Math.max(20, Math.min(250, Math.floor(Math.min(deps.anchorMaxDelayMs, deps.manifestMaxDelayMs) / 4)));
  const scheduler = startPollLoop(
    () => tick(false),
    pollMs,
    (err) => log.warn({ err }, 'anchoring: scheduler pass failed'),
  );

  return {
    anchorer,
    manifests,
    flush: () => tick(true),
    async stop() {
      await scheduler.stop();
      await Promise.all([anchorWorker.close(), manifestWorker.close()]);
      await Promise.all([anchorQueue.close(), manifestQueue.close()]);
      await connections.closeAll();
    },
  };
}
