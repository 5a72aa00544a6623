// Spreads bundle inspections over worker threads (every core), or runs them inline when there is one
// core's worth of work. Results come back in submission order.
import { Worker } from 'node:worker_threads';
import { inspectBundle, type BundleResult, type BundleTask } from './inspect-bundle.ts';

let workerEntry: URL = new URL('./main.ts', import.meta.url);

/** The script a worker thread runs (the CLI's entry, which serves as a worker when not on the main thread). */
export function setWorkerEntry(url: URL): void {
  workerEntry = url;
}

export interface Inspector {
  inspect(task: BundleTask): Promise<BundleResult>;
  close(): Promise<void>;
}

export function inlineInspector(): Inspector {
  return { inspect: async (task) => inspectBundle(task), close: async () => {} };
}

/** A pool of `size` worker threads; each takes one bundle at a time. */
export function workerInspector(size: number): Inspector {
  // Under development the entry is TypeScript, loaded through tsx; the installed CLI is plain JavaScript.
  const execArgv = workerEntry.pathname.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const idle: Worker[] = [];
  const waiting: ((w: Worker) => void)[] = [];
  const all: Worker[] = [];
  for (let i = 0; i < size; i++) {
    const w = new Worker(workerEntry, { execArgv, workerData: { pfwsVerifyWorker: true } });
    w.unref();
    all.push(w);
    idle.push(w);
  }
  const acquire = (): Promise<Worker> => {
    const w = idle.pop();
    return w ? Promise.resolve(w) : new Promise((resolve) => waiting.push(resolve));
  };
  const release = (w: Worker) => {
    const next = waiting.shift();
    if (next) next(w);
    else idle.push(w);
  };
  return {
    async inspect(task) {
      const w = await acquire();
      try {
        return await new Promise<BundleResult>((resolve, reject) => {
          const onMessage = (result: BundleResult) => {
            w.off('error', onError);
            resolve(result);
          };
          const onError = (err: Error) => {
            w.off('message', onMessage);
            reject(err);
          };
          w.once('message', onMessage);
          w.once('error', onError);
          const transfer = task.entries instanceof Uint8Array ? [task.entries.buffer as ArrayBuffer] : [];
          w.postMessage(task, transfer);
        });
      } finally {
        release(w);
      }
    },
    async close() {
      await Promise.all(all.map((w) => w.terminate()));
    },
  };
}

/** Serves bundle inspections on a worker thread. */
export async function serveWorker(
  port: { on(event: 'message', fn: (task: BundleTask) => void): void; postMessage(v: unknown): void },
  installCrypto: () => void,
): Promise<void> {
  installCrypto();
  port.on('message', (task) => port.postMessage(inspectBundle(task)));
}
