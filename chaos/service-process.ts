// The service as an operator runs it: `node dist/main.mjs`, what `npm start` builds (every role, API_WORKERS API
// processes), killed and restarted.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readdirSync, readFileSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { serviceBundle } from '../bin/build-service.ts';
import { sleep, waitFor } from './ports.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

export interface ServiceProcessOptions {
  env: Record<string, string>;
  /** Appended to across restarts: the service's own log, for a post-mortem. */
  logFile: string;
  apiWorkers: number;
  /** Arguments after main.ts, such as `--role api`. */
  args?: string[];
}

export interface UnexpectedExit {
  pid: number;
  code: number | null;
  signal: string | null;
  at: number;
}

/** The processes `pid` forked (none once it is gone). */
export function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
      try {
        return readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

const cmdline = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
};

/** Alive and not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

export class ServiceProcess {
  #child: ChildProcess | null = null;
  #log: WriteStream;
  #expectExit = false;
  readonly unexpectedExits: UnexpectedExit[] = [];
  /** API processes still alive some seconds after their main process was killed. */
  orphans = 0;
  starts = 0;

  constructor(readonly options: ServiceProcessOptions) {
    this.#log = createWriteStream(options.logFile, { flags: 'a' });
  }

  get api(): string {
    return `http://127.0.0.1:${this.options.env.PORT}/api`;
  }

  get rpcUrl(): string {
    return `http://127.0.0.1:${this.options.env.LOCALNET_PORT}`;
  }

  get mainPid(): number | null {
    return this.#child?.pid ?? null;
  }

  get running(): boolean {
    return this.#child !== null && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** The API processes (node:cluster workers) of the main process. */
  apiPids(): number[] {
    const main = this.mainPid;
    if (main === null) return [];
    return childrenOf(main).filter((pid) => isAlive(pid) && cmdline(pid).includes('main.mjs'));
  }

  /** Starts the service and waits until the API answers with a committed RNG chain and every API process is up. */
  async start(timeoutMs = 240_000): Promise<number> {
    if (this.running) throw new Error('the service is already running');
    const t0 = Date.now();
    this.#expectExit = false;
    const child = spawn(process.execPath, [await serviceBundle(), ...(this.options.args ?? [])], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...this.options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.starts++;
    this.#log.write(`\n=== chaos: start #${this.starts} pid ${child.pid} at ${new Date().toISOString()}\n`);
    child.stdout!.pipe(this.#log, { end: false });
    child.stderr!.pipe(this.#log, { end: false });
    this.#watch(child);
    child.once('exit', (code, signal) => {
      if (!this.#expectExit) this.unexpectedExits.push({ pid: child.pid!, code, signal, at: Date.now() });
    });
    this.#child = child;
    await this.waitReady(timeoutMs);
    return Date.now() - t0;
  }

  // Readiness is read from the service's own log (LOG_LEVEL info): the main process logs "pfws started" once
  // every API process listens, and each API process logs "Server listening".
  #watch(child: ChildProcess): void {
    let partial = '';
    const onData = (d: Buffer) => {
      const lines = (partial + d.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const pid = Number(/"pid":(\d+)/.exec(line)?.[1]);
        if (line.includes('"msg":"Server listening')) this.#listening.add(pid);
        if (line.includes('"msg":"pfws started"')) this.#started.add(pid);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
  }

  readonly #listening = new Set<number>();
  readonly #started = new Set<number>();

  /** The API processes that are alive and have logged that they listen. */
  listeningApiPids(): number[] {
    return this.apiPids().filter((pid) => this.#listening.has(pid));
  }

  /** The main process logged "pfws started", every API process listens, and the API answers with an RNG chain head. */
  async waitReady(timeoutMs = 240_000): Promise<void> {
    const state = await waitFor(
      'the service to answer',
      async () => {
        // An exit ends the wait at once; a thrown error would be retried until the timeout.
        if (!this.running) return 'exited';
        if (!this.#started.has(this.mainPid!) || this.listeningApiPids().length < this.options.apiWorkers) return false;
        const res = await fetch(`${this.api}/protocol/v1/config`, { signal: AbortSignal.timeout(5_000) });
        return res.ok && Boolean(((await res.json()) as { rngChainHead?: string | null }).rngChainHead) && 'ready';
      },
      timeoutMs,
      100,
    );
    if (state === 'exited') throw new Error(`the service exited; see ${this.options.logFile}`);
  }

  /** kill -9 of one API process; the main process forks a replacement. */
  killApi(pid: number): void {
    process.kill(pid, 'SIGKILL');
  }

  /** kill -9 of the main process (localnet, indexer, worker); its API processes lose their IPC channel and exit. */
  async killMain(): Promise<void> {
    const child = this.#child;
    if (!child || !this.running) return;
    const api = this.apiPids();
    this.#expectExit = true;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    this.#child = null;
    const deadline = Date.now() + 10_000;
    while (api.some(isAlive) && Date.now() < deadline) await sleep(50);
    const left = api.filter(isAlive);
    this.orphans += left.length;
    for (const pid of left) process.kill(pid, 'SIGKILL');
  }

  /** SIGTERM, and wait for a clean exit. */
  async stop(): Promise<number | null> {
    const child = this.#child;
    if (!child || !this.running) return null;
    this.#expectExit = true;
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    const code = await Promise.race([exited, sleep(30_000).then(() => 'timeout' as const)]);
    if (code === 'timeout') {
      child.kill('SIGKILL');
      await exited;
    }
    this.#child = null;
    return code === 'timeout' ? null : code;
  }

  /** Lines of the service's log that name an error, for the report. */
  errorLines(limit = 20): string[] {
    if (!existsSync(this.options.logFile)) return [];
    return readFileSync(this.options.logFile, 'utf8')
      .split('\n')
      .filter((l) => /"level":(50|60)/.test(l))
      .slice(-limit);
  }

  close(): void {
    this.#log.end();
  }
}
