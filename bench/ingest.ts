// Analytics ingestion CPU per settled bet (issue 25) at a FIXED rate of complete Dice bets: the same load on a service
// that ships (shipper, archiver and chDB in the main process) and on one that ships nothing (ClickHouse unreachable).
// At a fixed rate both services do the same work apart from ingestion, so the difference of their main-process CPU is
// what ingestion costs; `npm run bench -- dice` compares two runs at their own top speeds, a noisier difference.
// Also reports where the main process's CPU went, per thread, and how far analytics trailed settlement.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Timer, poolFor, runAtRate } from './client.ts';
import { onboardPlayers } from './dice.ts';
import { startBenchService } from './service.ts';
import { ShipperLagSampler } from './shipper-lag.ts';

const RATE = Number(process.env.BENCH_INGEST_RATE ?? 200);
const DURATION_MS = Number(process.env.BENCH_INGEST_MS ?? 20_000);
const WARMUP_MS = 3_000;
const PLAYERS = 64;
// Nothing listens there: the worker's shipper and archiver find ClickHouse down and ship nothing.
const NO_CLICKHOUSE = 'http://127.0.0.1:9';

const TICKS_PER_MS = 0.1; // USER_HZ is 100 on Linux

/** CPU (ms) of the process and of each live thread, by thread id, with its name. */
function threadCpu(pid: number): { total: number; threads: Map<number, { name: string; ms: number }> } {
  const parse = (text: string) => {
    const close = text.lastIndexOf(')');
    const name = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    return { name, ms: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_MS };
  };
  const threads = new Map<number, { name: string; ms: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      threads.set(Number(tid), parse(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')));
    } catch {
      // the thread ended meanwhile
    }
  }
  return { total: parse(readFileSync(`/proc/${pid}/stat`, 'utf8')).ms, threads };
}

/**
 * Where the main process's CPU went between two readings (ms): `js` is the JavaScript thread, `node` Node's own
 * threads (libuv's pool, where chDB's calls run, and V8's helpers), each other thread name as ClickHouse names its
 * threads, and `ended` the threads that ended in between (the process keeps their time).
 */
function threadSplit(pid: number, a: ReturnType<typeof threadCpu>, b: ReturnType<typeof threadCpu>): Record<string, number> {
  const out: Record<string, number> = { js: 0, node: 0 };
  let counted = 0;
  for (const [tid, t] of b.threads) {
    const ms = t.ms - (a.threads.get(tid)?.ms ?? 0);
    counted += ms;
    const key = tid === pid ? 'js' : t.name === 'node' || t.name.startsWith('libuv') || t.name.startsWith('V8') ? 'node' : t.name;
    out[key] = (out[key] ?? 0) + ms;
  }
  out.ended = b.total - a.total - counted;
  return out;
}

interface Side {
  msPerSec: number;
  usPerBet: number;
  threads: Record<string, number>;
  settledPerSec: number;
  behind: number;
  errors: number;
  lagP99Ms?: number;
  lagP99Events?: number;
}

async function measure(env: Record<string, string>, lag: boolean): Promise<Side> {
  const service = await startBenchService(env);
  try {
    const players = await onboardPlayers(service, PLAYERS, 1_000);
    const { pool, apiPath } = poolFor(service.api, PLAYERS);
    for (const p of players) Object.assign(p, { pool, apiPath });
    const timer = new Timer();
    const drive = (ms: number) => runAtRate(players, RATE, ms, (p) => p.diceBet(timer));
    await drive(WARMUP_MS);
    const sampler = lag ? new ShipperLagSampler(service) : null;
    sampler?.start();
    const t0 = performance.now();
    // BENCH_INGEST_PERF=<file> records the shipping service's main process with `perf` over the measured window.
    const perf =
      lag && process.env.BENCH_INGEST_PERF
        ? spawn('perf', ['record', '-F', '499', '-g', '-p', String(service.pid), '-o', process.env.BENCH_INGEST_PERF], { stdio: 'ignore' })
        : null;
    const before = threadCpu(service.pid);
    const stats = await drive(DURATION_MS);
    const after = threadCpu(service.pid);
    if (perf) {
      perf.kill('SIGINT');
      await new Promise((r) => perf.once('exit', r));
    }
    const seconds = (performance.now() - t0) / 1000;
    const shipped = await sampler?.stop();
    await pool.close();
    const ms = after.total - before.total;
    const threads = threadSplit(service.pid, before, after);
    return {
      msPerSec: ms / seconds,
      usPerBet: (ms * 1000) / stats.done,
      threads: Object.fromEntries(Object.entries(threads).map(([k, v]) => [k, v / seconds])),
      settledPerSec: stats.done / seconds,
      behind: stats.behind,
      errors: stats.errors,
      ...(shipped ? { lagP99Ms: shipped.p99Ms, lagP99Events: shipped.p99Events } : {}),
    };
  } finally {
    await service.stop();
  }
}

export async function benchIngest(env: Record<string, string>): Promise<Record<string, number>> {
  console.error(`bench ingest: ${RATE} bets/s for ${DURATION_MS / 1000} s, shipping…`);
  const on = await measure(env, true);
  console.error('bench ingest: the same, shipping nothing…');
  const off = await measure({ ...env, CLICKHOUSE_URL: NO_CLICKHOUSE }, false);
  const r = Math.round;
  for (const [name, side] of [
    ['on', on],
    ['off', off],
  ] as const) {
    const split = Object.entries(side.threads)
      .filter(([, v]) => Math.abs(v) >= 0.5)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${r(v)}`)
      .join(', ');
    console.error(
      `bench ingest ${name}: main ${r(side.msPerSec)} ms/s (${r(side.usPerBet)} us/bet) at ${r(side.settledPerSec)} bets/s; per thread ms/s: ${split}`,
    );
  }
  const figures: Record<string, number> = {
    'ingest.rate': RATE,
    'ingest.analyticsCpuUsPerBet': r(on.usPerBet - off.usPerBet),
    'ingest.on.mainMsPerSec': r(on.msPerSec),
    'ingest.off.mainMsPerSec': r(off.msPerSec),
    'ingest.on.mainCpuUsPerBet': r(on.usPerBet),
    'ingest.off.mainCpuUsPerBet': r(off.usPerBet),
    'ingest.on.settledPerSec': r(on.settledPerSec),
    'ingest.off.settledPerSec': r(off.settledPerSec),
    'ingest.shipperLagP99Ms': on.lagP99Ms ?? 0,
    'ingest.shipperLagP99Events': on.lagP99Events ?? 0,
  };
  // The JavaScript thread against every other thread (chDB's own and libuv's pool, where chDB's calls run).
  for (const [name, side] of [
    ['on', on],
    ['off', off],
  ] as const) {
    const js = side.threads.js ?? 0;
    figures[`ingest.${name}.jsMsPerSec`] = r(js);
    figures[`ingest.${name}.otherThreadsMsPerSec`] = r(side.msPerSec - js);
  }
  if (on.behind + off.behind) figures['ingest.behind'] = on.behind + off.behind;
  if (on.errors + off.errors) figures['ingest.errors'] = on.errors + off.errors;
  return figures;
}
