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
  const idle: Worker[] = [];
  const waiting: ((w: Worker) => void)[] = [];
  const all: Worker[] = [];
  for (let i = 0; i < size; i++) {
    const w = new Worker(workerEntry, { workerData: { pfwsVerifyWorker: true } });
    // A worker that fails outside a task is reported by the next task it is given (its 'exit' below).
    w.on('error', () => {});
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
      // An idle worker must not keep the process alive, but one with a task in flight must: the main thread may
      // be waiting on nothing else, and an unref'd worker would let it exit with the audit unfinished.
      w.ref();
      try {
        return await new Promise<BundleResult>((resolve, reject) => {
          const done = () => {
            w.off('message', onMessage);
            w.off('error', onError);
            w.off('exit', onExit);
          };
          const onMessage = (result: BundleResult) => {
            done();
            resolve(result);
          };
          const onError = (err: Error) => {
            done();
            reject(err);
          };
          const onExit = (code: number) => {
            done();
            reject(new Error(`a verifier worker thread exited (code ${code})`));
          };
          w.once('message', onMessage);
          w.once('error', onError);
          w.once('exit', onExit);
          if (w.threadId < 0) return onExit(-1);
          // The bundles move to the worker rather than being copied; the main thread is done with them.
          const transfer = [task.entries, task.receipts].flatMap((b) => (b instanceof Uint8Array ? [b.buffer as ArrayBuffer] : []));
          w.postMessage(task, transfer);
        });
      } finally {
        w.unref();
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
