// Step latency with Redis across a network (issue 25): complete Dice bets (64 players) at a fixed rate far below
// saturation, on a service whose Redis sits behind a proxy that holds every chunk BENCH_REDIS_DELAY_MS (1 ms) each way,
// then on one that reaches Redis directly. A step's Redis round trips run one after another, so each adds the
// network's round trip to what the player waits for.
import { fork } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../chaos/ports.ts';
import { Timer, poolFor, runAtRate } from './client.ts';
import { onboardPlayers } from './dice.ts';
import { startBenchService } from './service.ts';

const RATE = Number(process.env.BENCH_LATENCY_RATE ?? 200);
const DELAY_MS = Number(process.env.BENCH_REDIS_DELAY_MS ?? 1);
const DURATION_MS = 12_000;
const WARMUP_MS = 4_000;
const STEPS = ['prepare', 'commit', 'reveal'] as const;

async function steps(env: Record<string, string>): Promise<Timer> {
  const service = await startBenchService(env);
  try {
    const players = await onboardPlayers(service, 64, 1_000);
    const { pool, apiPath } = poolFor(service.api, 64);
    for (const p of players) Object.assign(p, { pool, apiPath });
    const warm = new Timer();
    await runAtRate(players, RATE, WARMUP_MS, (p) => p.diceBet(warm));
    const timer = new Timer();
    const run = await runAtRate(players, RATE, DURATION_MS, (p) => p.diceBet(timer));
    if (run.errors > 0 || run.behind > 0) throw new Error(`bench latency: ${run.errors} errors, ${run.behind} bets not started in time`);
    await pool.close();
    return timer;
  } finally {
    await service.stop();
  }
}

export async function benchRedisLatency(env: Record<string, string>): Promise<Record<string, number>> {
  const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const port = await freePort();
  const proxy = fork(path.join(import.meta.dirname, 'delay-proxy.ts'), [String(port), redisUrl.port || '6379', String(DELAY_MS)], {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
  const figures: Record<string, number> = { 'latency.rate': RATE, 'latency.redisDelayMs': DELAY_MS };
  try {
    await new Promise<void>((resolve, reject) => {
      proxy.once('message', () => resolve());
      proxy.once('exit', () => reject(new Error('the delay proxy exited')));
    });
    redisUrl.port = String(port);
    console.error(`bench latency: ${RATE} bets/s, Redis ${DELAY_MS} ms away each way…`);
    const far = await steps({ ...env, REDIS_URL: redisUrl.toString() });
    console.error('bench latency: the same, Redis direct…');
    const near = await steps(env);
    for (const [side, timer] of [
      ['far', far],
      ['near', near],
    ] as const) {
      for (const step of STEPS) {
        figures[`latency.${side}.p50${step[0]!.toUpperCase()}${step.slice(1)}Ms`] = Math.round(timer.percentile(step, 50) * 100) / 100;
        figures[`latency.${side}.p99${step[0]!.toUpperCase()}${step.slice(1)}Ms`] = Math.round(timer.percentile(step, 99) * 100) / 100;
      }
    }
  } finally {
    proxy.kill('SIGTERM');
  }
  return figures;
}
