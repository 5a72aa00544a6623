// The worker role: RNG chain heads and rollover, deadline settlement, bet-log anchoring and journal manifests.
import type { Services } from '../services.ts';
import { ensureRngChains } from './rng-heads.ts';
import { settleDueBets } from './deadlines.ts';
import { startAnchoring } from './anchor-queue.ts';

export interface WorkerHandle {
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

export async function startWorker(services: Services): Promise<WorkerHandle> {
  const log = services.logger.child({ role: 'worker' });
  await ensureRngChains(services);
  const anchoring = await startAnchoring(services);
  const stops = [
    every(5_000, () => ensureRngChains(services), (err) => log.warn({ err }, 'rng: rollover check failed')),
    every(1_000, () => settleDueBets(services), (err) => log.warn({ err }, 'deadlines: pass failed')),
    () => anchoring.stop(),
  ];
  return {
    async stop() {
      await Promise.all(stops.map((s) => s()));
    },
  };
}
