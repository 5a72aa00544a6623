// Complete Sweeper tickets of random length (easy mode, random columns, cash out when the plan ends).
import { Timer, poolFor, runFor } from './client.ts';
import { onboardPlayers } from './dice.ts';
import type { BenchService } from './service.ts';

export async function benchSweeper(service: BenchService, concurrency = 32, durationMs = 8_000): Promise<Record<string, number>> {
  const players = await onboardPlayers(service, concurrency, 1_000);
  const { pool, apiPath } = poolFor(service.api, concurrency);
  for (const p of players) Object.assign(p, { pool, apiPath });
  const timer = new Timer();
  const run = await runFor(concurrency, durationMs, (worker) => players[worker]!.sweeperTicket(timer));
  await pool.close();
  return {
    'sweeper.ticketsPerSec': Math.round((run.done / run.elapsedMs) * 1000),
    'sweeper.turnsPerSec': Math.round((run.units / run.elapsedMs) * 1000),
    'sweeper.p99StepMs': Math.round(Math.max(...['prepare', 'commit', 'reveal'].map((s) => timer.percentile(s, 99))) * 100) / 100,
    ...(run.errors ? { 'sweeper.errors': run.errors } : {}),
  };
}
