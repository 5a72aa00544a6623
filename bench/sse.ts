// sse.p99DeliveryMs.1000: how long a settled play takes from its PUBLISH (in the ledger's settle script) to reach
// each of 1,000 activity-stream subscribers, spread over the service's API processes, held by a separate process.
import { fork } from 'node:child_process';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { BenchService } from './service.ts';

const SUBSCRIBERS = Number(process.env.BENCH_SSE_SUBSCRIBERS ?? 1000);
const ROUNDS = Number(process.env.BENCH_SSE_ROUNDS ?? 100);

// What settle_turn.lua does for a play that ends: the journal entry, then the publish, in one script.
const SETTLE = `local seq = redis.call('INCR', KEYS[2])
redis.call('XADD', KEYS[1], '*', 'seq', seq, 'type', 'bet_settled', 'at', ARGV[1], 'data', ARGV[2])
redis.call('PUBLISH', KEYS[3], '{"seq":' .. string.format('%d', seq) .. ',"play":' .. ARGV[3] .. '}')
return seq`;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
const round = (x: number) => Math.round(x * 100) / 100;
const now = () => performance.timeOrigin + performance.now();

export async function benchSse(svc: BenchService): Promise<Record<string, number>> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const k = { journal: `${svc.prefix}:journal`, seq: `${svc.prefix}:journal:seq`, channel: `${svc.prefix}:plays` };
  const seq = (await redis.get(k.seq)) ?? '0';
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
      const data = JSON.stringify({ game: 'dice', player: play.player, receiptId: play.receiptId, wager: '1000000', payout: '0', status: 'lost' });
      const t0 = now();
      const id = Number(await redis.eval(SETTLE, 3, k.journal, k.seq, k.channel, at, data, JSON.stringify(play)));
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
