// Mixed load (issue 25): for 60 s, 64 Dice players play while an analyst asks for rankings and stats every 100 ms
// (the answer cache off, over 1M preloaded plays) and 1,000 subscribers hold the live stream. Reports settled/s, step
// p99, rankings and stats p99 (and, beside them, a request that reads no analytics), SSE delivery p99 (from each play's PUBLISH to each subscriber) and the shipper lag.
//
// The subscribers watch Sweeper, and a Sweeper play is published every 100 ms by settle_turn.lua itself (journal entry
// and PUBLISH in one script, test/helpers/ledger-plays.ts), so each delivery is timed while every Dice play still passes through the stream's
// fan-out; BENCH_MIXED_SSE_GAME=all sends them every Dice play too, as the dashboard's default "All games" does.
import { fork } from 'node:child_process';
import path from 'node:path';
import { Redis } from 'ioredis';
import { GAMES, METRICS, PERIODS, SOURCES } from '../analytics/params.ts';
import { Keys } from '../store/keys.ts';
import { LedgerPlays } from '../test/helpers/ledger-plays.ts';
import { Timer, poolFor, runFor } from './client.ts';
import { cpuSample, onboardPlayers } from './dice.ts';
import { startBenchService } from './service.ts';
import { ShipperLagSampler } from './shipper-lag.ts';

const DURATION_MS = Number(process.env.BENCH_MIXED_MS ?? 60_000);
const PLAYERS = 64;
const PRELOADED = Number(process.env.BENCH_MIXED_PLAYS ?? 1_000_000);
const SUBSCRIBERS = Number(process.env.BENCH_MIXED_SUBSCRIBERS ?? 1_000);
const SSE_GAME = process.env.BENCH_MIXED_SSE_GAME ?? 'sweeper';
const ANALYST_EVERY_MS = 100;
const MARKER_EVERY_MS = 100;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
const round2 = (x: number) => Math.round(x * 100) / 100;
const now = () => performance.timeOrigin + performance.now();
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

async function preload(dataDir: string, prefix: string): Promise<void> {
  console.error(`bench mixed: preloading ${PRELOADED} plays…`);
  const child = fork(path.join(import.meta.dirname, 'mixed-preload.ts'), [dataDir, String(PRELOADED), new Date().toISOString()], {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`preload exited ${code}`))));
  });
  // The preloaded plays hold journal seqs 1..PRELOADED; the service's journal continues after them, as it would
  // have after that history (the shipper skips seqs ClickHouse already holds).
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  await redis.set(new Keys(prefix).journalSeq(), String(PRELOADED));
  await redis.quit();
}

/** The analyst: rankings and stats (rotating through their parameters) every 100 ms, timed over HTTP. */
function analyst(api: string, until: () => boolean): Promise<{ rankings: number[]; stats: number[]; baseline: number[]; errors: number }> {
  const rankingsUrls = GAMES.flatMap((g) => SOURCES.flatMap((s) => METRICS.map((m) => `${api}/rankings?game=${g}&source=${s}&metric=${m}`)));
  const statsUrls = GAMES.flatMap((g) => PERIODS.map((p) => `${api}/stats?game=${g}&period=${p}`));
  // A request that reads no analytics, timed beside them: what the API (and this loaded client) add to any request.
  const baselineUrl = `${api}/protocol/v1/config`;
  const out = { rankings: [] as number[], stats: [] as number[], baseline: [] as number[], errors: 0 };
  const timed = async (url: string, into: number[]) => {
    const t = performance.now();
    const res = await fetch(url);
    await res.arrayBuffer();
    if (res.status === 200) into.push(performance.now() - t);
    else out.errors++;
  };
  return (async () => {
    for (let i = 0; !until(); i++) {
      const t = performance.now();
      await Promise.all([
        timed(rankingsUrls[i % rankingsUrls.length]!, out.rankings),
        timed(statsUrls[i % statsUrls.length]!, out.stats),
        timed(baselineUrl, out.baseline),
      ]);
      await new Promise((r) => setTimeout(r, Math.max(0, ANALYST_EVERY_MS - (performance.now() - t))));
    }
    return out;
  })();
}

export async function benchMixed(env: Record<string, string>): Promise<Record<string, number>> {
  const svc = await startBenchService({ ...env, ANALYTICS_CACHE_MS: '0' }, { prepare: ({ dataDir, prefix }) => preload(dataDir, prefix) });
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = new Keys(svc.prefix);
  const ledger = new LedgerPlays(redis, keys);
  const subscriber = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  let clients: ReturnType<typeof fork> | null = null;
  try {
    const players = await onboardPlayers(svc, PLAYERS, 1_000);
    const { pool, apiPath } = poolFor(svc.api, PLAYERS);
    for (const p of players) Object.assign(p, { pool, apiPath });
    // Connected as of the current seq (Last-Event-ID), so they start live, without a snapshot each.
    const sse = fork(
      path.join(import.meta.dirname, 'sse-clients.ts'),
      [`${svc.api}/activity/stream?game=${SSE_GAME}`, String(SUBSCRIBERS), (await redis.get(keys.journalSeq())) ?? '0'],
      { execArgv: ['--import', 'tsx'], stdio: 'inherit' },
    );
    clients = sse;

    // When each play left Redis (this subscriber hears the PUBLISH as the API processes do), and when each subscriber got it.
    const published = new Map<number, number>();
    await subscriber.subscribe(keys.playsChannel());
    subscriber.on('message', (_channel, message: string) => {
      const seq = Number(/^\{"seq":(\d+)/.exec(message)?.[1]);
      if (seq) published.set(seq, now());
    });
    const deliveries: number[] = [];
    await new Promise<void>((resolve, reject) => {
      sse.on('message', (m: { ready?: boolean; id?: number; times?: number[] }) => {
        if (m.ready) return resolve();
        const at = published.get(m.id!);
        if (at !== undefined) for (const t of m.times!) deliveries.push(t - at);
      });
      sse.once('exit', (code) => reject(new Error(`the SSE clients exited (${code})`)));
    });

    console.error(
      `bench mixed: ${PLAYERS} players, an analyst every ${ANALYST_EVERY_MS} ms, ${SUBSCRIBERS} subscribers (${SSE_GAME}) for ${DURATION_MS / 1000} s…`,
    );
    const end = performance.now() + DURATION_MS;
    const over = () => performance.now() >= end;
    const timer = new Timer();
    const lag = new ShipperLagSampler(svc);
    lag.start();
    const before = await cpuSample(svc, redis);
    const markers = (async () => {
      for (let i = 0; !over(); i++) {
        const at = new Date().toISOString();
        const play = {
          receiptId: `sweeper_bench${i}`,
          game: 'sweeper',
          player: 'p_Bench1',
          source: 'api',
          betAmount: 1,
          payout: 0,
          profit: -1,
          won: false,
          settledAt: at,
        };
        const data = { game: 'sweeper', player: play.player, receiptId: play.receiptId, wager: '1000000', payout: '0', status: 'lost' };
        await ledger.settle({ type: 'ticket_settled', at, data }, JSON.stringify(play));
        await new Promise((r) => setTimeout(r, MARKER_EVERY_MS));
      }
    })();
    const reading = analyst(svc.api, over);
    const run = await runFor(PLAYERS, DURATION_MS, async (worker) => {
      await players[worker]!.diceBet(timer);
    });
    const after = await cpuSample(svc, redis);
    const [reads] = await Promise.all([reading, markers]);
    const shipped = await lag.stop();
    await pool.close();
    // Deliveries of the last plays may still be on their way.
    await new Promise((r) => setTimeout(r, 1_000));

    const perBet = (ms: number) => Math.round((ms * 1000) / run.done);
    const rankings = sorted(reads.rankings);
    const stats = sorted(reads.stats);
    const baseline = sorted(reads.baseline);
    const delivery = sorted(deliveries);
    const figures: Record<string, number> = {
      'mixed.settledPerSec': Math.round((run.done / run.elapsedMs) * 1000),
      'mixed.p99StepMs': round2(Math.max(...['prepare', 'commit', 'reveal'].map((s) => timer.percentile(s, 99)))),
      'mixed.rankingsP50Ms': round2(percentile(rankings, 50)),
      'mixed.rankingsP99Ms': round2(percentile(rankings, 99)),
      'mixed.statsP50Ms': round2(percentile(stats, 50)),
      'mixed.statsP99Ms': round2(percentile(stats, 99)),
      'mixed.baselineP50Ms': round2(percentile(baseline, 50)),
      'mixed.baselineP99Ms': round2(percentile(baseline, 99)),
      'mixed.analystQueries': rankings.length + stats.length,
      [`mixed.sseP50DeliveryMs.${SUBSCRIBERS}`]: round2(percentile(delivery, 50)),
      [`mixed.sseP99DeliveryMs.${SUBSCRIBERS}`]: round2(percentile(delivery, 99)),
      'mixed.sseDeliveries': delivery.length,
      'mixed.shipperLagP99Events': shipped.p99Events,
      'mixed.shipperLagP99Ms': shipped.p99Ms,
      'mixed.cpuUsPerBet.api': perBet(after.service.api - before.service.api),
      'mixed.cpuUsPerBet.main': perBet(after.service.main - before.service.main),
      'mixed.cpuUsPerBet.redis': perBet(after.redisMs - before.redisMs),
      'mixed.peakRssMb': Math.round(svc.peakRssMb()),
    };
    if (run.errors) figures['mixed.errors'] = run.errors;
    if (reads.errors) figures['mixed.analystErrors'] = reads.errors;
    console.error(
      `bench mixed: ${figures['mixed.settledPerSec']} settled/s, step p99 ${figures['mixed.p99StepMs']} ms, rankings p99 ${figures['mixed.rankingsP99Ms']} ms, stats p99 ${figures['mixed.statsP99Ms']} ms, SSE p99 ${figures[`mixed.sseP99DeliveryMs.${SUBSCRIBERS}`]} ms (${delivery.length} deliveries), shipper lag p99 ${shipped.p99Ms} ms`,
    );
    return figures;
  } finally {
    clients?.kill('SIGTERM');
    subscriber.disconnect();
    await redis.quit();
    await svc.stop();
  }
}
