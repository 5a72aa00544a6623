// sse.p99DeliveryMs.1000: how long a settled play takes from its PUBLISH (in the ledger's settle script) to reach
// each of 1,000 activity-stream subscribers, spread over the service's API processes, held by a separate process.
import { fork } from 'node:child_process';
import path from 'node:path';
import { Redis } from 'ioredis';
import { Keys } from '../store/keys.ts';
import { LedgerPlays } from '../test/helpers/ledger-plays.ts';
import type { BenchService } from './service.ts';

const SUBSCRIBERS = Number(process.env.BENCH_SSE_SUBSCRIBERS ?? 1000);
const ROUNDS = Number(process.env.BENCH_SSE_ROUNDS ?? 100);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
const round = (x: number) => Math.round(x * 100) / 100;
const now = () => performance.timeOrigin + performance.now();

export async function benchSse(svc: BenchService): Promise<Record<string, number>> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = new Keys(svc.prefix);
  // Each play is settled by settle_turn.lua itself, on a bet committed beforehand (test/helpers/ledger-plays.ts).
  const ledger = new LedgerPlays(redis, keys);
  const seq = (await redis.get(keys.journalSeq())) ?? '0';
  const clients = fork(path.join(import.meta.dirname, 'sse-clients.ts'), [`${svc.api}/activity/stream?game=all`, String(SUBSCRIBERS), seq], {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
  const arrivals = new Map<number, (times: number[]) => void>();
  const ready = new Promise<void>((resolve, reject) => {
    clients.on('message', (m: { ready?: boolean; id?: number; times?: number[] }) => {
      if (m.ready) resolve();
      else arrivals.get(m.id!)?.(m.times!);
    });
    clients.once('exit', (code) => reject(new Error(`the SSE clients exited (${code})`)));
  });
  try {
    await ready;
    const samples: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const at = new Date().toISOString();
      const play = {
        receiptId: `dice_bench${i}`,
        game: 'dice',
        player: 'p_Bench1',
        source: 'api',
        betAmount: 1,
        payout: 0,
        profit: -1,
        won: false,
        settledAt: at,
      };
      const data = { game: 'dice', player: play.player, receiptId: play.receiptId, wager: '1000000', payout: '0', status: 'lost' };
      const hash = await ledger.committedBet(at);
      const t0 = now();
      const id = await ledger.settle({ type: 'bet_settled', at, data }, JSON.stringify(play), hash);
      const times = await new Promise<number[]>((resolve) => arrivals.set(id, resolve));
      arrivals.delete(id);
      for (const t of times) samples.push(t - t0);
      // Plays come one at a time here: the figure is delivery, not a backlog.
      await new Promise((r) => setTimeout(r, 20));
    }
    samples.sort((a, b) => a - b);
    console.error(
      `bench sse: ${SUBSCRIBERS} subscribers × ${ROUNDS} plays: p50 ${round(percentile(samples, 50))} ms, p99 ${round(percentile(samples, 99))} ms`,
    );
    return {
      [`sse.p50DeliveryMs.${SUBSCRIBERS}`]: round(percentile(samples, 50)),
      [`sse.p99DeliveryMs.${SUBSCRIBERS}`]: round(percentile(samples, 99)),
      [`sse.maxDeliveryMs.${SUBSCRIBERS}`]: round(samples[samples.length - 1]!),
    };
  } finally {
    clients.kill('SIGTERM');
    await redis.quit();
  }
}
