// The suite's own redis-server: AOF on, its own port and directory, stopped gently or killed and started again.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { Redis } from 'ioredis';
import { freePort, waitFor } from './ports.ts';

export type AppendFsync = 'always' | 'everysec';

export interface RedisServerOptions {
  dir: string;
  /** @defaultValue 'always' — kill -9 of Redis then loses no acknowledged write */
  appendfsync?: AppendFsync;
  /** More arguments on every start (a replica's `--replicaof`, `--min-replicas-to-write`). */
  args?: string[];
}

export class RedisServer {
  #child: ChildProcess | null = null;
  #exited: Promise<void> = Promise.resolve();
  port = 0;

  constructor(readonly options: RedisServerOptions) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.#child !== null && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /**
   * Starts redis-server (on the same port and directory as before, after a stop), and waits for PING; `extraArgs`
   * apply to this start only (a node restarted as the replica of whichever node is the primary now).
   */
  async start(extraArgs: string[] = []): Promise<void> {
    if (this.running) throw new Error('redis-server is already running');
    if (!this.port) this.port = await freePort();
    mkdirSync(this.options.dir, { recursive: true });
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--dir',
        this.options.dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        this.options.appendfsync ?? 'always',
        '--protected-mode',
        'no',
        '--logfile',
        'redis.log',
        ...(this.options.args ?? []),
        ...extraArgs,
      ],
      { stdio: 'ignore' },
    );
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await waitFor(
        'redis-server to answer PING',
        async () => {
          if (!this.running) throw new Error(`redis-server exited (see ${this.options.dir}/redis.log)`);
          if (probe.status !== 'ready') await probe.connect().catch(() => undefined);
          return probe.status === 'ready' && (await probe.ping()) === 'PONG';
        },
        20_000,
        50,
      );
      // Loading the AOF answers PING with LOADING errors; wait until the data is served.
      await waitFor('redis-server to load its AOF', async () => !/loading:1/.test(await probe.info('persistence')), 60_000, 50);
    } finally {
      probe.disconnect();
    }
  }

  /** SIGTERM: Redis writes out its AOF and exits. */
  async stop(): Promise<void> {
    await this.#signal('SIGTERM');
  }

  /** SIGKILL: what is on disk is what `appendfsync` put there. */
  async kill(): Promise<void> {
    await this.#signal('SIGKILL');
  }

  /** SIGSTOP: Redis hangs with its connections open, as a stuck host would. */
  pause(): void {
    if (this.running) this.#child!.kill('SIGSTOP');
  }

  /** SIGCONT after a pause. */
  resume(): void {
    if (this.running) this.#child!.kill('SIGCONT');
  }

  async #signal(signal: NodeJS.Signals): Promise<void> {
    if (!this.running) return;
    this.#child!.kill(signal);
    // A paused Redis acts on SIGTERM only once it runs again.
    this.#child!.kill('SIGCONT');
    await this.#exited;
    this.#child = null;
  }
}
