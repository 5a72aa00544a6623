// Analytics benchmark on chDB: load 1M then 10M plays through the shipper's insert path (Zipf players, both games and
// sources, a year of time), time rankings / stats / activity at each size — in process, and over HTTP through a real
// Fastify API process that asks this (owner) process over IPC, as `npm start` runs it — and report ingestion rate,
// loop delay (the owner's and the API's) and peak RSS.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openChdbEngine } from '../analytics/chdb-engine.ts';
import type { AnalyticsEngine } from '../analytics/engine.ts';
import { journalRowOf, type JournalRow } from '../analytics/journal-rows.ts';
import { migrate } from '../analytics/migrations.ts';
import { compactAggregates, dropRecentTopWagers, pruneTopWagers } from '../analytics/reconcile.ts';
import { fillTopWagers } from '../analytics/top-wagers.ts';
import { GAMES, METRICS, PERIODS, SOURCES } from '../analytics/params.ts';
import { activity, rankings, stats } from '../analytics/queries.ts';
import { serveAnalytics, type IpcHub } from '../analytics/cluster-ipc.ts';
import { EngineReader } from '../analytics/reader.ts';
import { insertJournalBatch } from '../analytics/shipper.ts';
import { toBase58 } from '../protocol/encoding.ts';

const SIZES = (process.env.BENCH_ANALYTICS_PLAYS ?? '1000000,10000000').split(',').map(Number);
const BATCH = 10_000;
const PLAYERS = 100_000;
const YEAR_MS = 365 * 86_400_000;
const NOW = new Date('2027-01-01T12:34:56.000Z');
const BANKROLL = { totalValue: 1_000_000 };

const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}m` : `${n / 1000}k`);
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const aliases = Array.from({ length: PLAYERS }, (_, i) => `p_${toBase58(new Uint8Array([i >> 16, (i >> 8) & 255, i & 255, 42, 7, 1]))}`);

/** Raw stream entries exactly as the ledger scripts journal settled plays, in time order, over the year before `now`. */
function* playEntries(from: number, to: number, total: number, r: () => number, now: Date): Generator<[string, string[]]> {
  const start = now.getTime() - YEAR_MS;
  for (let i = from; i < to; i++) {
    const atMs = start + Math.floor((i / total) * YEAR_MS);
    // Zipf-like: P(k) ∝ 1/k over 100k players.
    const player = aliases[Math.min(PLAYERS, Math.floor(Math.exp(r() * Math.log(PLAYERS + 1)))) - 1] as string;
    const dice = r() < 0.5;
    const s = r();
    const wager = BigInt(Math.floor(10_000 * Math.exp(r() * Math.log(10_000))));
    const won = r() < 0.48;
    const payout = won ? (wager * 198n) / 100n : 0n;
    const receiptId = `${dice ? 'dice' : 'sweeper'}_${i.toString(16).padStart(32, '0')}`;
    const common = {
      player,
      receiptId,
      wager: wager.toString(),
      payout: payout.toString(),
      status: won ? 'won' : 'lost',
      ...(s < 0.3 ? { source: 'mcp' } : s < 0.6 ? { source: 'api' } : {}),
    };
    const data = dice
      ? { game: 'dice', ...common, betPayloadHash: 'ab'.repeat(32), rngIndex: i + 1, rngReveal: 'cd'.repeat(32), roll: 4321 }
      : { game: 'sweeper', ...common, ticketId: receiptId.slice(8), mode: 'classic', outcome: won ? 'cashed_out' : 'busted', rowsWon: 2 };
    yield [
      `${atMs}-${i}`,
      ['seq', String(i + 1), 'type', dice ? 'bet_settled' : 'ticket_settled', 'at', new Date(atMs).toISOString(), 'data', JSON.stringify(data)],
    ];
  }
}

/** Loads plays `from`..`to`; returns the wall and CPU milliseconds spent inside the inserts. */
async function load(
  engine: AnalyticsEngine,
  from: number,
  to: number,
  total: number,
  r: () => number,
  now: Date = NOW,
): Promise<{ wallMs: number; cpuMs: number }> {
  let insertMs = 0;
  let cpuMs = 0;
  let rows: JournalRow[] = [];
  const flush = async () => {
    const t = performance.now();
    const c = process.cpuUsage();
    await insertJournalBatch(engine, rows);
    const used = process.cpuUsage(c);
    cpuMs += (used.user + used.system) / 1000;
    insertMs += performance.now() - t;
    rows = [];
  };
  for (const [id, fields] of playEntries(from, to, total, r, now)) {
    rows.push(journalRowOf(id, fields) as JournalRow);
    if (rows.length === BATCH) await flush();
  }
  await flush();
  return { wallMs: insertMs, cpuMs };
}

/**
 * Loads `count` plays (journal seqs 1..count) over the year before `now`, as this benchmark does, and merges the
 * totals as the running shipper would have by then. The mixed benchmark preloads a service's chDB with it.
 */
export async function preloadPlays(engine: AnalyticsEngine, count: number, now: Date): Promise<void> {
  await migrate(engine);
  await load(engine, 0, count, count, rng(2027), now);
  await pruneTopWagers(engine, now);
  await fillTopWagers(engine, now.getTime());
  await compactAggregates(engine);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;

/**
 * Wall-clock p50/p99 per call, and the mean CPU time per call (this process: Node plus chDB's threads),
 * which stays comparable when other work shares the cores.
 */
async function timeAll(calls: (() => Promise<unknown>)[], rounds: number): Promise<{ p50: number; p99: number; cpu: number }> {
  for (const call of calls) await call(); // warm-up
  const samples: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < rounds; i++) {
    for (const call of calls) {
      const t = performance.now();
      await call();
      samples.push(performance.now() - t);
    }
  }
  const cpu = process.cpuUsage(cpuBefore);
  samples.sort((a, b) => a - b);
  return { p50: round(percentile(samples, 50)), p99: round(percentile(samples, 99)), cpu: round((cpu.user + cpu.system) / 1000 / samples.length) };
}

interface ApiProcess {
  child: ChildProcess;
  base: string;
  /** Starts measuring the API process's event-loop delay; the returned function stops and reads it. */
  measure(): () => Promise<{ maxMs: number; p99Ms: number; peakRssMb: number }>;
  stop(): Promise<void>;
}

/** Forks the API process and answers its analytics questions from `reader` (uncached: every request queries). */
async function startApiProcess(reader: EngineReader): Promise<ApiProcess> {
  const child = fork(path.join(import.meta.dirname, 'analytics-api.ts'), [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const hub: IpcHub = {
    on: (_event, listener) => child.on('message', (m) => listener(child as never, m)),
    off: () => child.removeAllListeners('message'),
  };
  serveAnalytics(hub, reader);
  const base = await new Promise<string>((resolve, reject) => {
    child.on('message', (m: { type?: string; address?: string }) => m?.type === 'bench:ready' && resolve(m.address as string));
    child.once('exit', (code) => reject(new Error(`analytics API process exited ${code}`)));
  });
  return {
    child,
    base,
    measure() {
      child.send({ type: 'bench:loop:start' });
      return () =>
        new Promise((resolve) => {
          const onMessage = (m: { type?: string; maxMs: number; p99Ms: number; peakRssMb: number }) => {
            if (m?.type !== 'bench:loop') return;
            child.off('message', onMessage);
            resolve(m);
          };
          child.on('message', onMessage);
          child.send({ type: 'bench:loop:stop' });
        });
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** GETs `url` and fails on anything but a 200. */
async function getOk(url: string): Promise<void> {
  const res = await fetch(url);
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${body.slice(0, 300)}`);
}

export async function benchAnalytics(): Promise<Record<string, number>> {
  const threads = Number(process.env.BENCH_ANALYTICS_THREADS ?? 1);
  // BENCH_ANALYTICS_KEEP=<dir> keeps the loaded data there, to look into afterwards.
  const keep = process.env.BENCH_ANALYTICS_KEEP;
  const dir = keep ?? mkdtempSync(path.join(os.tmpdir(), 'pfws-bench-analytics-'));
  const engine = await openChdbEngine({ dataDir: dir, maxThreads: threads });
  // cacheMs 0: every HTTP request reaches chDB (the service shares one answer per query per second; that would time the cache).
  const reader = new EngineReader({ engine: async () => engine, clock: () => NOW, bankroll: async () => BANKROLL, cacheMs: 0 });
  const api = await startApiProcess(reader);
  const figures: Record<string, number> = {};
  const total = Math.max(...SIZES);
  const r = rng(2027);
  try {
    await migrate(engine);
    let loaded = 0;
    let insertMs = 0;
    let insertCpuMs = 0;
    for (const size of [...SIZES].sort((a, b) => a - b)) {
      console.error(`bench analytics: loading ${label(size)} plays…`);
      const spent = await load(engine, loaded, size, total, r);
      insertMs += spent.wallMs;
      insertCpuMs += spent.cpuMs;
      loaded = size;
      // What the running shipper does now and then: drop top_wagers days the activity window cannot
      // reach (daily), fill its completed hours (hourly; this load wrote plays into hours the last size filled), and
      // merge the totals (every 10 minutes).
      await pruneTopWagers(engine, NOW);
      await dropRecentTopWagers(engine, NOW);
      await fillTopWagers(engine, NOW.getTime());
      await compactAggregates(engine);
      const [count] = await engine.query<{ n: string }>('SELECT count() AS n FROM plays');
      if (Number(count?.n) !== size) throw new Error(`expected ${size} plays, found ${count?.n}`);
      console.error(`bench analytics: ${label(size)} loaded (${Math.round(loaded / (insertMs / 1000))} rows/s so far), querying…`);

      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      const rank = await timeAll(
        GAMES.flatMap((game) => SOURCES.flatMap((source) => METRICS.map((metric) => () => rankings(engine, { game, source, metric, now: NOW })))),
        8,
      );
      const stat = await timeAll(
        GAMES.flatMap((game) => PERIODS.map((period) => () => stats(engine, { game, period, now: NOW, bankroll: BANKROLL }))),
        40,
      );
      const act = await timeAll(
        GAMES.map((game) => () => activity(engine, { game, limit: 100, now: NOW, bankroll: BANKROLL })),
        40,
      );
      delay.disable();
      const n = label(size);

      // The same reads over HTTP: client → API process (Fastify) → IPC → this process's chDB → back.
      const url = (p: string) => `${api.base}/api${p}`;
      const readApiLoop = api.measure();
      const ownerDelay = monitorEventLoopDelay({ resolution: 5 });
      ownerDelay.enable();
      const httpRank = await timeAll(
        GAMES.flatMap((game) =>
          SOURCES.flatMap((source) => METRICS.map((metric) => () => getOk(url(`/rankings?game=${game}&source=${source}&metric=${metric}`)))),
        ),
        8,
      );
      const httpStat = await timeAll(
        GAMES.flatMap((game) => PERIODS.map((period) => () => getOk(url(`/stats?game=${game}&period=${period}`)))),
        40,
      );
      ownerDelay.disable();
      const apiLoop = await readApiLoop();
      Object.assign(figures, {
        [`http.rankingsP50Ms.${n}`]: httpRank.p50,
        [`http.rankingsP99Ms.${n}`]: httpRank.p99,
        [`http.statsP50Ms.${n}`]: httpStat.p50,
        [`http.statsP99Ms.${n}`]: httpStat.p99,
        [`http.apiLoopDelayMaxMs.${n}`]: round(apiLoop.maxMs),
        [`http.apiLoopDelayP99Ms.${n}`]: round(apiLoop.p99Ms),
        [`http.ownerLoopDelayMaxMs.${n}`]: round(ownerDelay.max / 1e6),
        'http.apiPeakRssMb': Math.round(apiLoop.peakRssMb),
      });
      console.error(
        `bench analytics: ${n} over HTTP: rankings ${httpRank.p50}/${httpRank.p99} ms, stats ${httpStat.p50}/${httpStat.p99} ms (p50/p99); API loop delay max ${round(apiLoop.maxMs)} ms (p99 ${round(apiLoop.p99Ms)}), owner loop max ${round(ownerDelay.max / 1e6)} ms`,
      );
      Object.assign(figures, {
        [`query.rankingsP50Ms.${n}`]: rank.p50,
        [`query.rankingsP99Ms.${n}`]: rank.p99,
        [`query.statsP50Ms.${n}`]: stat.p50,
        [`query.statsP99Ms.${n}`]: stat.p99,
        [`query.activityP50Ms.${n}`]: act.p50,
        [`query.activityP99Ms.${n}`]: act.p99,
        [`query.rankingsCpuMs.${n}`]: rank.cpu,
        [`query.statsCpuMs.${n}`]: stat.cpu,
        [`query.activityCpuMs.${n}`]: act.cpu,
        [`analytics.loopDelayP99Ms.${n}`]: round(delay.percentile(99) / 1e6),
        [`analytics.loopDelayMaxMs.${n}`]: round(delay.max / 1e6),
      });
      console.error(
        `bench analytics: ${n}: rankings ${rank.p50}/${rank.p99} ms (cpu ${rank.cpu}), stats ${stat.p50}/${stat.p99} ms (cpu ${stat.cpu}), activity ${act.p50}/${act.p99} ms (cpu ${act.cpu}) (p50/p99), load ${os.loadavg()[0]?.toFixed(1)}`,
      );
    }
    figures['analytics.ingestRowsPerSec'] = Math.round(loaded / (insertMs / 1000));
    // Rows per CPU-second (Node building the INSERT plus chDB parsing it and running the views).
    figures['analytics.ingestRowsPerCpuSec'] = Math.round(loaded / (insertCpuMs / 1000));
    figures['analytics.peakRssMb'] = Math.round(process.resourceUsage().maxRSS / 1024);
    figures['analytics.maxThreads'] = threads;
  } finally {
    await api.stop();
    await engine.close();
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}
