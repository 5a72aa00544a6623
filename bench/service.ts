// Starts the service as a child process on embedded defaults (its own data dir, ports and Redis prefix).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { serviceBundle } from '../bin/build-service.ts';
import { freePort } from '../chaos/ports.ts';
import { childrenOf } from '../chaos/service-process.ts';
import { removeKeys } from '../chaos/redis-keys.ts';

export interface BenchService {
  api: string;
  /** Its REDIS_PREFIX. */
  prefix: string;
  rpcUrl: string;
  pid: number;
  /** Peak resident set (VmHWM) of the service's processes, in MB: all of them (the sum of each one's peak), or only the main one. */
  peakRssMb(which?: 'all' | 'main'): number;
  /** CPU time (user + system) used so far by the main process and by its API processes, in ms. */
  cpuMs(): { main: number; api: number };
  /** Minor page faults so far of the main process and of its API processes (every thread's, as /proc counts them). */
  minorFaults(): { main: number; api: number };
  stop(): Promise<void>;
}

const processTree = (pid: number): number[] => [pid, ...childrenOf(pid).flatMap(processTree)];

/** The fields of /proc/<pid>/stat after the process's name, from its state on. */
const statOf = (pid: number): string[] => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');

const CLOCK_TICKS_PER_MS = 0.1; // USER_HZ is 100 on Linux
function cpuMsOf(pid: number): number {
  const fields = statOf(pid);
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_MS;
}

/** Minor page faults of a process, every thread's: on a virtual machine each can cost 10 µs of CPU (bench/HISTORY.md, "Page faults"). */
export const minorFaultsOf = (pid: number): number => Number(statOf(pid)[7]);

export interface BenchServiceOptions {
  /** Runs before the service starts, on its data directory and Redis prefix (e.g. to preload analytics). */
  prepare?: (where: { dataDir: string; prefix: string }) => Promise<void>;
}

export async function startBenchService(env: Record<string, string> = {}, options: BenchServiceOptions = {}): Promise<BenchService> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pfws-bench-'));
  const prefix = `bench-${randomBytes(4).toString('hex')}`;
  await options.prepare?.({ dataDir, prefix });
  const port = await freePort();
  let rpcPort = await freePort();
  while (rpcPort === port) rpcPort = await freePort();
  // BENCH_CPU_PROFILE=<dir> writes a V8 CPU profile of the service for `--cpu-prof` analysis; BENCH_NODE_ARGS adds
  // Node flags (space-separated) to the service's processes, its API processes included (they inherit them).
  const nodeArgs = [
    ...(process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : []),
    ...(process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
  ];
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, await serviceBundle()], {
    cwd: path.resolve(import.meta.dirname, '..'),
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOCALNET_PORT: String(rpcPort),
      DATA_DIR: dataDir,
      REDIS_PREFIX: prefix,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '10000000',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const api = `http://127.0.0.1:${port}/api`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error('the service exited during start');
    try {
      const res = await fetch(`${api}/protocol/v1/config`);
      if (res.ok && ((await res.json()) as { rngChainHead: string | null }).rngChainHead) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('the service did not start in time');
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    api,
    prefix,
    rpcUrl: `http://127.0.0.1:${rpcPort}`,
    pid: child.pid!,
    peakRssMb(which = 'all') {
      // The main process and its API processes (node:cluster): the sum of each one's peak.
      let total = 0;
      for (const pid of which === 'main' ? [child.pid!] : processTree(child.pid!)) {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        total += Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
      }
      return total;
    },
    cpuMs() {
      const [main, ...api] = processTree(child.pid!).map(cpuMsOf);
      return { main: main ?? 0, api: api.reduce((a, b) => a + b, 0) };
    },
    minorFaults() {
      const [main, ...api] = processTree(child.pid!).map(minorFaultsOf);
      return { main: main ?? 0, api: api.reduce((a, b) => a + b, 0) };
    },
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
      await removeKeys(redis, prefix);
      await redis.quit();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
