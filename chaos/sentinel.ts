// A Redis Sentinel of the suite's own (`redis-server <conf> --sentinel`): its port, its config file (Sentinel
// rewrites it as it learns the topology), and what it says the primary is.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort, waitFor } from './ports.ts';

export interface SentinelOptions {
  dir: string;
  /** The master name the service gives as REDIS_SENTINEL_NAME. */
  name: string;
  primaryPort: number;
  /** Sentinels that must agree the primary is down. */
  quorum: number;
  /** How long the primary may not answer before this Sentinel calls it down. */
  downAfterMs: number;
}

export class Sentinel {
  #child: ChildProcess | null = null;
  #client: Redis | null = null;
  port = 0;

  constructor(readonly options: SentinelOptions) {}

  get running(): boolean {
    return this.#child !== null && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  async start(): Promise<void> {
    const { dir, name, primaryPort, quorum, downAfterMs } = this.options;
    if (!this.port) this.port = await freePort();
    mkdirSync(dir, { recursive: true });
    const conf = path.join(dir, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `port ${this.port}`,
        'bind 127.0.0.1',
        'protected-mode no',
        `dir ${dir}`,
        'logfile sentinel.log',
        `sentinel monitor ${name} 127.0.0.1 ${primaryPort} ${quorum}`,
        `sentinel down-after-milliseconds ${name} ${downAfterMs}`,
        `sentinel failover-timeout ${name} ${Math.max(10_000, downAfterMs * 10)}`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'),
    );
    this.#child = spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' });
    this.#client = new Redis({ port: this.port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 100 });
    this.#client.on('error', () => undefined);
    await waitFor(
      'redis-sentinel to answer',
      async () => {
        if (!this.running) throw new Error(`redis-sentinel exited (see ${dir}/sentinel.log)`);
        if (this.#client!.status === 'wait') await this.#client!.connect().catch(() => undefined);
        return (await this.#client!.ping()) === 'PONG';
      },
      20_000,
      50,
    );
  }

  /** The port of the node this Sentinel takes for the primary now. */
  async primaryPort(): Promise<number> {
    const [, port] = (await this.#client!.call('SENTINEL', 'get-master-addr-by-name', this.options.name)) as [string, string];
    return Number(port);
  }

  /** How many replicas and other Sentinels this one knows of. */
  async knows(): Promise<{ replicas: number; sentinels: number }> {
    const flat = (await this.#client!.call('SENTINEL', 'master', this.options.name)) as string[];
    const field = (name: string) => Number(flat[flat.indexOf(name) + 1]);
    return { replicas: field('num-slaves'), sentinels: field('num-other-sentinels') };
  }

  async stop(): Promise<void> {
    this.#client?.disconnect();
    this.#client = null;
    const child = this.#child;
    if (!child || !this.running) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    this.#child = null;
  }
}
