// The worker role: RNG chain heads and rollover, deadline settlement and idle tickets, bet-log anchoring, journal
// manifests, and the keeper (withdrawals and LP flows).
import type { Logger } from 'pino';
import { startAnchoring, type AnchoringDeps, type AnchoringHandle, type AnchoringOptions } from './anchor-queue.ts';
import { closeIdleTickets, settleDueBets, type DeadlineDeps } from './deadlines.ts';
import { startKeeper, type KeeperHandle, type KeeperQueueDeps, type KeeperQueueOptions } from './keeper-queue.ts';
import { ensureRngChains, type RngHeadDeps } from './rng-heads.ts';

export interface WorkerDeps {
  rngHeads: RngHeadDeps;
  deadlines: DeadlineDeps;
  anchoring: AnchoringDeps;
  keeper: KeeperQueueDeps;
  logger: Logger;
}

export interface WorkerOptions extends AnchoringOptions {
  keeper?: KeeperQueueOptions;
}

export interface WorkerHandle {
  anchoring: AnchoringHandle;
  keeper: KeeperHandle;
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
  const stops = [
    every(
      5_000,
      () => ensureRngChains(deps.rngHeads),
      (err) => log.warn({ err }, 'rng: rollover check failed'),
    ),
    every(
      1_000,
      async () => {
        await settleDueBets(deps.deadlines);
        await closeIdleTickets(deps.deadlines);
      },
      (err) => log.warn({ err }, 'deadlines: pass failed'),
    ),
    () => anchoring.stop(),
    () => keeper.stop(),
  ];
  return {
    anchoring,
    keeper,
    async stop() {
      await Promise.all(stops.map((s) => s()));
    },
  };
}
