// A private redis-server persisted by RDB snapshots only: SAVE on demand, and a restart from an older dump.rdb, as
// README "Restoring the ledger" has an operator do it.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './process.ts';

export class SnapshotRedis {
  #child: ChildProcess | null = null;
  port = 0;

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (!this.port) this.port = await freePort();
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--dbfilename', 'dump.rdb', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    this.#child = child;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        if (!/loading:1/.test(await probe.info('persistence'))) return;
      } catch {
        if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
      } finally {
        probe.disconnect();
      }
      if (Date.now() > deadline) throw new Error('redis-server did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** SAVE, then a copy of the dump under `name`. */
  async snapshot(name: string): Promise<void> {
    const client = new Redis(this.url);
    await client.save();
    await client.quit();
    copyFileSync(path.join(this.dir, 'dump.rdb'), path.join(this.dir, name));
  }

  /** Stops Redis without saving, puts the snapshot `name` back as its dump, and starts it again. */
  async restore(name: string): Promise<void> {
    await this.stop();
    copyFileSync(path.join(this.dir, name), path.join(this.dir, 'dump.rdb'));
    await this.start();
  }

  async stop(): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    this.#child = null;
  }
}
