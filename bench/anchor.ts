// Anchoring benchmark: time from a dice bet's settlement to its receipt being anchored, p50 and p99,
// while players keep betting, on a service started here with the default anchoring settings.
import { startTestService } from '../test/helpers/service.ts';
import { Player } from '../test/helpers/player.ts';

export interface AnchorBenchOptions {
  /** @defaultValue 8 */
  players?: number;
  /** How long the players keep betting. @defaultValue 15000 */
  durationMs?: number;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

export async function benchAnchor(options: AnchorBenchOptions = {}): Promise<Record<string, number>> {
  const svc = await startTestService({ RNG_CHAIN_LENGTH: '200000' });
  try {
    const { redis, keys } = svc.services;
    const players = await Promise.all(Array.from({ length: options.players ?? 8 }, () => new Player(svc.api, svc.rpcUrl).onboard(500)));
    const settledAt = new Map<string, number>();
    const anchoredAt = new Map<string, number>();
    let betting = true;

    // Watches pending receipts every 20 ms; the anchor is observed within one interval of its fill.
    const watch = (async () => {
      while (betting || anchoredAt.size < settledAt.size) {
        const pending = [...settledAt.keys()].filter((id) => !anchoredAt.has(id));
        if (pending.length) {
          const pipeline = redis.pipeline();
          for (const id of pending) pipeline.hexists(keys.receipt(id), 'anchor');
          const results = (await pipeline.exec()) ?? [];
          const now = Date.now();
          pending.forEach((id, i) => {
            if (results[i]?.[1] === 1) anchoredAt.set(id, now);
          });
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    const until = Date.now() + (options.durationMs ?? 15_000);
    await Promise.all(
      players.map(async (p) => {
        while (Date.now() < until) {
          const { reveal } = await p.playDice({ wager: 0.5, target: 50 });
          settledAt.set(reveal.receiptId, Date.parse(reveal.betLogEntry.settledAt));
        }
      }),
    );
    betting = false;
    await watch;
    const lags = [...settledAt].map(([id, at]) => (anchoredAt.get(id) as number) - at).sort((a, b) => a - b);
    return {
      'anchor.p50LagMs': percentile(lags, 50),
      'anchor.p99LagMs': percentile(lags, 99),
      'anchor.receipts': lags.length,
    };
  } finally {
    await svc.cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [name, value] of Object.entries(await benchAnchor())) console.log(`${name.padEnd(24)} ${value}`);
  process.exit(0);
}
