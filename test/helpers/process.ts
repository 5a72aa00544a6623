// Runs the service as an operator would (`dist/main.mjs`, what `npm start` builds), or another script through tsx, in
// a child process: its output, its exit, free ports and temp dirs.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SERVICE_BUNDLE } from '../../bin/build-service.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

export const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

export interface Proc {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

export class Processes {
  readonly #running: Proc[] = [];
  readonly #dirs: string[] = [];

  tempDir(): string {
    const d = mkdtempSync(path.join(os.tmpdir(), 'pfws-proc-'));
    this.#dirs.push(d);
    return d;
  }

  /** Runs `script` (the service's `main.ts` by default, as the bundle the tests' global setup built) with `env` and `args`. */
  start(env: Record<string, string>, args: string[] = [], script = 'main.ts'): Proc {
    const command = script === 'main.ts' ? [SERVICE_BUNDLE] : ['--import', 'tsx', script];
    const child = spawn(process.execPath, [...command, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout!.on('data', (d) => (text += d));
    child.stderr!.on('data', (d) => (text += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const proc = { child, output: () => text, exited };
    this.#running.push(proc);
    return proc;
  }

  /** Kills what is still running and removes the temp dirs. */
  cleanup(): void {
    for (const p of this.#running) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    for (const d of this.#dirs) rmSync(d, { recursive: true, force: true });
  }
}

export async function waitForLog(proc: Proc, pattern: RegExp, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(proc.output())) {
    if (proc.child.exitCode !== null) throw new Error(`exited ${proc.child.exitCode}: ${proc.output()}`);
    if (Date.now() > deadline) throw new Error(`no ${pattern} in: ${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The exit code, or a failure naming what the process printed when it did not exit in time. */
export async function exitOf(proc: Proc, timeoutMs = 60_000): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not exit within ${timeoutMs} ms: ${proc.output()}`)), timeoutMs);
  });
  try {
    return await Promise.race([proc.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
