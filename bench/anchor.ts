// Anchoring benchmark: time from a dice bet's settlement to its receipt being anchored, p50 and p99,
// while players keep betting. It reads only the public API, so it runs against any service.
import { Player, http } from '../test/helpers/player.ts';

export interface AnchorBenchOptions {
  /** @defaultValue 8 */
  players?: number;
  /** How long the players keep betting. @defaultValue 15000 */
  durationMs?: number;
}

interface Entries {
  entries: { index: number; receiptId: string }[];
  committedSize: number;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

export async function benchAnchor(service: { api: string; rpcUrl: string }, options: AnchorBenchOptions = {}): Promise<Record<string, number>> {
  const players = await Promise.all(Array.from({ length: options.players ?? 8 }, () => new Player(service.api, service.rpcUrl).onboard(500)));
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

  const until = Date.now() + (options.durationMs ?? 15_000);
  await Promise.all(
    players.map(async (p) => {
      while (Date.now() < until) {
        const { reveal } = await p.playDice({ wager: 0.5, target: 50 });
        settledAt.set(reveal.receiptId, Date.parse(reveal.betLogEntry.settledAt));
      }
    }),
  );
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

if (import.meta.url === `file://${process.argv[1]}`) {
  const { startTestService } = await import('../test/helpers/service.ts');
  const svc = await startTestService({ RNG_CHAIN_LENGTH: '200000' });
  try {
    for (const [name, value] of Object.entries(await benchAnchor({ api: svc.api, rpcUrl: svc.rpcUrl }))) console.log(`${name.padEnd(24)} ${value}`);
  } finally {
    await svc.cleanup();
  }
  process.exit(0);
}
