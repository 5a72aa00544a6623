// Complete dice bets (prepare, commit, reveal, real signatures) at 1, 16 and 64 concurrent players.
import { BenchPlayer, Timer, poolFor, runFor } from './client.ts';
import { Redis } from 'ioredis';
import type { BenchService } from './service.ts';

interface CpuSample {
  service: { main: number; api: number };
  redisMs: number;
  clientMs: number;
}

export async function cpuSample(service: BenchService, redis: Redis): Promise<CpuSample> {
  const info = await redis.info('cpu');
  const seconds = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  const client = process.cpuUsage();
  return {
    service: service.cpuMs(),
    redisMs: (seconds('used_cpu_sys') + seconds('used_cpu_user')) * 1000,
    clientMs: (client.user + client.system) / 1000,
  };
}

export async function onboardPlayers(service: BenchService, count: number, deposit: number): Promise<BenchPlayer[]> {
  const { pool, apiPath } = poolFor(service.api, 16);
  const players = Array.from({ length: count }, () => new BenchPlayer(pool, apiPath, service.rpcUrl));
  for (let i = 0; i < players.length; i += 8) await Promise.all(players.slice(i, i + 8).map((p) => p.onboard(deposit)));
  return players;
}

export async function benchDice(service: BenchService, levels = [1, 16, 64], durationMs = 8_000): Promise<Record<string, number>> {
  const figures: Record<string, number> = {};
  const players = await onboardPlayers(service, Math.max(...levels), 1_000);
  const { pool, apiPath } = poolFor(service.api, Math.max(...levels));
  for (const p of players) Object.assign(p, { pool, apiPath });
  let last: { settled: number; timer: Timer } | null = null;
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  for (const level of levels) {
    const timer = new Timer();
    const before = await cpuSample(service, redis);
    const run = await runFor(level, durationMs, async (worker) => {
      await players[worker]!.diceBet(timer);
    });
    const after = await cpuSample(service, redis);
    if (level === Math.max(...levels) && run.done) {
      // Where each settled bet's CPU goes (µs): the load generator shares the machine, as the goal assumes.
      const perBet = (ms: number) => Math.round((ms * 1000) / run.done);
      figures['dice.cpuUsPerBet.api'] = perBet(after.service.api - before.service.api);
      figures['dice.cpuUsPerBet.main'] = perBet(after.service.main - before.service.main);
      figures['dice.cpuUsPerBet.redis'] = perBet(after.redisMs - before.redisMs);
      figures['dice.cpuUsPerBet.client'] = perBet(after.clientMs - before.clientMs);
    }
    const settled = (run.done / run.elapsedMs) * 1000;
    figures[`dice.settledPerSec.${level}`] = Math.round(settled);
    for (const step of ['prepare', 'commit', 'reveal']) {
      figures[`dice.p50${step[0]!.toUpperCase()}${step.slice(1)}Ms.${level}`] = round2(timer.percentile(step, 50));
      figures[`dice.p99${step[0]!.toUpperCase()}${step.slice(1)}Ms.${level}`] = round2(timer.percentile(step, 99));
    }
    if (run.errors) figures[`dice.errors.${level}`] = run.errors;
    last = { settled, timer };
  }
  await pool.close();
  await redis.quit();
  if (last) {
    figures['dice.settledPerSec'] = Math.round(last.settled);
    figures['dice.p99StepMs'] = round2(Math.max(...['prepare', 'commit', 'reveal'].map((s) => last!.timer.percentile(s, 99))));
  }
  return figures;
}

const round2 = (x: number) => Math.round(x * 100) / 100;
