// The worker role: RNG chain heads and rollover, deadline settlement and idle tickets, bet-log anchoring, journal
// manifests, and the keeper (withdrawals and LP flows).
import type { Logger } from 'pino';
import { startAnchoring, type AnchoringDeps, type AnchoringHandle, type AnchoringOptions } from './anchor-queue.ts';
import { closeIdleTickets, settleDueBets, type DeadlineDeps } from '../games/deadlines.ts';
import { startKeeper, type KeeperHandle, type KeeperQueueDeps, type KeeperQueueOptions } from './keeper-queue.ts';
import { ensureRngChains, type RngHeadDeps } from './rng-heads.ts';
import type { HeartbeatStore } from '../store/heartbeats.ts';
import { startAnalyticsWorker, type AnalyticsWorker, type AnalyticsWorkerDeps } from './analytics.ts';

export interface WorkerDeps {
  rngHeads: RngHeadDeps;
  deadlines: DeadlineDeps;
  anchoring: AnchoringDeps;
  keeper: KeeperQueueDeps;
  logger: Logger;
  /** Where each scheduler pass is recorded, so API processes see the worker alive. */
  heartbeats?: HeartbeatStore;
  /** Shipping the journal to ClickHouse and archiving receipts and manifests (one worker process at a time). */
  analytics?: AnalyticsWorkerDeps;
}

export interface WorkerOptions extends AnchoringOptions {
  keeper?: KeeperQueueOptions;
}

const DEADLINE_PASS_MS = 1_000;

export interface WorkerHandle {
  anchoring: AnchoringHandle;
  keeper: KeeperHandle;
  analytics: AnalyticsWorker | null;
  stop(): Promise<void>;
}

function every(ms: number, task: () => Promise<unknown>, onError: (err: unknown) => void): () => Promise<void> {
  let stopped = false;
  let running: Promise<unknown> | null = null;
  let timer: NodeJS.Timeout;
  const tick = () => {
    running = task()
      .catch(onError)
      .finally(() => {
        running = null;
        if (!stopped) timer = setTimeout(tick, ms);
      });
  };
  timer = setTimeout(tick, ms);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}

export async function startWorker(deps: WorkerDeps, options: WorkerOptions = {}): Promise<WorkerHandle> {
  const log = deps.logger.child({ role: 'worker' });
  await ensureRngChains(deps.rngHeads);
  const anchoring = await startAnchoring(deps.anchoring, options);
  const keeper = await startKeeper(deps.keeper, options.keeper);
  // Started in the background: ClickHouse being down never holds up or fails the start.
  const analytics = deps.analytics ? startAnalyticsWorker(deps.analytics) : null;
  let passes = 0;
  // The deadline pass is the worker's heartbeat: it runs every second whatever else is queued.
  const deadlinePass = async () => {
    let ok = 0;
    try {
      await settleDueBets(deps.deadlines);
      await closeIdleTickets(deps.deadlines);
      ok = 1;
    } finally {
      passes++;
      await deps.heartbeats
        ?.beat('worker', DEADLINE_PASS_MS, { passes, lastPassOk: ok }, deps.deadlines.clock().getTime())
        .catch((err) => log.warn({ err }, 'worker: heartbeat failed'));
    }
  };
  const stops = [
    every(
      5_000,
      () => ensureRngChains(deps.rngHeads),
      (err) => log.warn({ err }, 'rng: rollover check failed'),
    ),
    every(DEADLINE_PASS_MS, deadlinePass, (err) => log.warn({ err }, 'deadlines: pass failed')),
    () => anchoring.stop(),
    () => keeper.stop(),
    async () => analytics?.stop(),
  ];
  return {
    anchoring,
    keeper,
    analytics,
    async stop() {
      await Promise.all(stops.map((s) => s()));
    },
  };
}
