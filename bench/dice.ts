// Complete dice bets (prepare, commit, reveal, real signatures) at 1, 16 and 64 concurrent players, with the CPU each
// settled bet costs (per process, every thread) and how far analytics trail settlement at the top level.
import { BenchPlayer, Timer, poolFor, runFor } from './client.ts';
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { minorFaultsOf, type BenchService } from './service.ts';
import { ShipperLagSampler } from './shipper-lag.ts';

interface CpuSample {
  service: { main: number; api: number };
  /** Minor page faults so far: the service's processes, and Redis's when it runs on this machine (else null). */
  faults: { main: number; api: number; redis: number | null };
  redisMs: number;
  clientMs: number;
  /** Redis commands run so far by name, those a script runs included (`INFO commandstats`). */
  redisCalls: Map<string, number>;
}

async function redisCalls(redis: Redis): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const m of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(m[1]!, Number(m[2]));
  return calls;
}

/** Commands per bet between two samples: the total, and the busiest commands for the log. */
function callsPerBet(before: Map<string, number>, after: Map<string, number>, bets: number) {
  const per = [...after].map(([name, n]) => [name, (n - (before.get(name) ?? 0)) / bets] as const).filter(([, n]) => n > 0);
  per.sort((a, b) => b[1] - a[1]);
  return {
    total: per.reduce((sum, [, n]) => sum + n, 0),
    top: per
      .slice(0, 12)
      .map(([name, n]) => `${name} ${n.toFixed(2)}`)
      .join(', '),
  };
}

export async function cpuSample(service: BenchService, redis: Redis): Promise<CpuSample> {
  const info = await redis.info('cpu');
  const seconds = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  const client = process.cpuUsage();
  const redisPid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]);
  let redisFaults: number | null = null;
  try {
    // A Redis elsewhere (BENCH_REDIS_URL) has its process id on another machine: this one's may be anything.
    if (readFileSync(`/proc/${redisPid}/comm`, 'utf8').startsWith('redis')) redisFaults = minorFaultsOf(redisPid);
  } catch {
    // No such process here.
  }
  return {
    service: service.cpuMs(),
    faults: { ...service.minorFaults(), redis: redisFaults },
    redisMs: (seconds('used_cpu_sys') + seconds('used_cpu_user')) * 1000,
    clientMs: (client.user + client.system) / 1000,
    redisCalls: await redisCalls(redis),
  };
}

export async function onboardPlayers(service: BenchService, count: number, deposit: number): Promise<BenchPlayer[]> {
  const { pool, apiPath } = poolFor(service.api, 16);
  const players = Array.from({ length: count }, () => new BenchPlayer(pool, apiPath, service.rpcUrl));
  for (let i = 0; i < players.length; i += 8) await Promise.all(players.slice(i, i + 8).map((p) => p.onboard(deposit)));
  return players;
}

export interface DiceBenchOptions {
  /** @defaultValue `[1, 16, 64]` */
  levels?: number[];
  /** @defaultValue 8000 */
  durationMs?: number;
  /** Prefix of every figure's name. @defaultValue `'dice'` */
  name?: string;
  /** Samples the shipper lag during the top level. @defaultValue true */
  lag?: boolean;
  /**
   * Plays at the top level for this long, unmeasured, before the first level: a service measured right after its
   * start would count its JIT warming up. @defaultValue 0
   */
  warmupMs?: number;
}

export async function benchDice(service: BenchService, options: DiceBenchOptions = {}): Promise<Record<string, number>> {
  const { levels = [1, 16, 64], durationMs = 8_000, name = 'dice', lag = true, warmupMs = 0 } = options;
  const figures: Record<string, number> = {};
  const top = Math.max(...levels);
  const players = await onboardPlayers(service, top, 1_000);
  const { pool, apiPath } = poolFor(service.api, top);
  for (const p of players) Object.assign(p, { pool, apiPath });
  let last: { settled: number; timer: Timer } | null = null;
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  if (warmupMs > 0)
    await runFor(top, warmupMs, async (worker) => {
      await players[worker]!.diceBet(new Timer());
    });
  for (const level of levels) {
    const timer = new Timer();
    const sampler = lag && level === top ? new ShipperLagSampler(service) : null;
    sampler?.start();
    const before = await cpuSample(service, redis);
    const run = await runFor(level, durationMs, async (worker) => {
      await players[worker]!.diceBet(timer);
    });
    const after = await cpuSample(service, redis);
    if (sampler) {
      const shipped = await sampler.stop();
      figures[`${name}.shipperLagP50Events`] = shipped.p50Events;
      figures[`${name}.shipperLagP99Events`] = shipped.p99Events;
      figures[`${name}.shipperLagP50Ms`] = shipped.p50Ms;
      figures[`${name}.shipperLagP99Ms`] = shipped.p99Ms;
      figures[`${name}.shipperLagMaxMs`] = shipped.maxMs;
    }
    if (level === top && run.done) {
      // Where each settled bet's CPU goes (µs): the load generator shares the machine, as the goal assumes.
      const perBet = (ms: number) => Math.round((ms * 1000) / run.done);
      figures[`${name}.cpuUsPerBet.api`] = perBet(after.service.api - before.service.api);
      figures[`${name}.cpuUsPerBet.main`] = perBet(after.service.main - before.service.main);
      figures[`${name}.cpuUsPerBet.redis`] = perBet(after.redisMs - before.redisMs);
      figures[`${name}.cpuUsPerBet.client`] = perBet(after.clientMs - before.clientMs);
      // Machine-independent too: memory a process takes fresh from the system, which costs CPU on first touch.
      const faultsPerBet = (a: number | null, b: number | null) => (a === null || b === null ? null : Math.round(((b - a) / run.done) * 10) / 10);
      for (const which of ['main', 'api', 'redis'] as const) {
        const n = faultsPerBet(before.faults[which], after.faults[which]);
        if (n !== null) figures[`${name}.minorFaultsPerBet.${which}`] = n;
      }
      // Machine-independent: what a bet asks of Redis, whatever the machine's speed that hour.
      const calls = callsPerBet(before.redisCalls, after.redisCalls, run.done);
      figures[`${name}.redisCallsPerBet`] = Math.round(calls.total * 10) / 10;
      console.error(`bench ${name}: Redis commands per bet at ${level} players: ${calls.top}`);
    }
    const settled = (run.done / run.elapsedMs) * 1000;
    figures[`${name}.settledPerSec.${level}`] = Math.round(settled);
    for (const step of ['prepare', 'commit', 'reveal']) {
      figures[`${name}.p50${step[0]!.toUpperCase()}${step.slice(1)}Ms.${level}`] = round2(timer.percentile(step, 50));
      figures[`${name}.p99${step[0]!.toUpperCase()}${step.slice(1)}Ms.${level}`] = round2(timer.percentile(step, 99));
    }
    if (run.errors) figures[`${name}.errors.${level}`] = run.errors;
    last = { settled, timer };
  }
  await pool.close();
  await redis.quit();
  if (last) {
    figures[`${name}.settledPerSec`] = Math.round(last.settled);
    figures[`${name}.p99StepMs`] = round2(Math.max(...['prepare', 'commit', 'reveal'].map((s) => last!.timer.percentile(s, 99))));
  }
  return figures;
}

/**
 * What analytics ingestion costs each settled bet: the CPU per bet of the main process (shipper, archiver and chDB,
 * every thread) and Redis (which serves their reads), against the same at 64 players with nothing shipped.
 */
export function analyticsCost(on: Record<string, number>, off: Record<string, number>): Record<string, number> {
  const main = (on['dice.cpuUsPerBet.main'] ?? 0) - (off['dice.noShipping.cpuUsPerBet.main'] ?? 0);
  const redis = (on['dice.cpuUsPerBet.redis'] ?? 0) - (off['dice.noShipping.cpuUsPerBet.redis'] ?? 0);
  return { 'dice.analyticsCpuUsPerBet': main + redis, 'dice.analyticsCpuUsPerBet.main': main, 'dice.analyticsCpuUsPerBet.redis': redis };
}

const round2 = (x: number) => Math.round(x * 100) / 100;
