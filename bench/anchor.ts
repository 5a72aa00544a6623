// Anchoring benchmark: time from a dice bet's settlement to its receipt being anchored, p50 and p99,
// under the dice load (64 players betting as fast as they can). It reads only the public API.
import { http } from '../test/helpers/player.ts';
import { Timer, poolFor, runFor } from './client.ts';
import { onboardPlayers } from './dice.ts';
import type { BenchService } from './service.ts';

export interface AnchorBenchOptions {
  /** @defaultValue 64 */
  players?: number;
  /** How long the players keep betting. @defaultValue 15000 */
  durationMs?: number;
}

interface Entries {
  entries: { index: number; receiptId: string }[];
  committedSize: number;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

export async function benchAnchor(service: BenchService, options: AnchorBenchOptions = {}): Promise<Record<string, number>> {
  const count = options.players ?? 64;
  const players = await onboardPlayers(service, count, 1_000);
  const { pool, apiPath } = poolFor(service.api, count);
  for (const p of players) Object.assign(p, { pool, apiPath });
  const settledAt = new Map<string, number>();
  // When each committed size was first seen; receipts are filled right after their commit is recorded.
  const sizeSeenAt: [number, number][] = [];
  const committedSize = async () => (await http<Entries>('GET', `${service.api}/protocol/v1/bet-log/entries?from=0&limit=1`)).body.committedSize;
  let betting = true;
  let expected = Infinity;
  const watch = (async () => {
    for (;;) {
      const size = await committedSize();
      if (!sizeSeenAt.length || size > sizeSeenAt[sizeSeenAt.length - 1]![0]) sizeSeenAt.push([size, Date.now()]);
      if (!betting && size >= expected) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();

  const timer = new Timer();
  await runFor(count, options.durationMs ?? 15_000, async (worker) => {
    const reveal = await players[worker]!.diceBet(timer);
    settledAt.set(reveal.receiptId, Date.parse(reveal.betLogEntry.settledAt));
  });
  await pool.close();
  const { body } = await http<Entries & { size: number }>('GET', `${service.api}/protocol/v1/bet-log/entries?from=0&limit=1`);
  expected = body.size;
  betting = false;
  await watch;

  const lags: number[] = [];
  for (let from = 0; from < expected; from += 1000) {
    const page = (await http<Entries>('GET', `${service.api}/protocol/v1/bet-log/entries?from=${from}&limit=1000`)).body;
    for (const { index, receiptId } of page.entries) {
      const at = settledAt.get(receiptId);
      const seen = sizeSeenAt.find(([size]) => size > index);
      if (at !== undefined && seen) lags.push(seen[1] - at);
    }
  }
  lags.sort((a, b) => a - b);
  return { 'anchor.p50LagMs': percentile(lags, 50), 'anchor.p99LagMs': percentile(lags, 99) };
}
