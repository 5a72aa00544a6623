// Spreads tile inspections over worker threads (every core), or runs them inline when there is one core's
// worth of work. Each worker reads its tiles from the API itself, so the main thread neither fetches nor
// copies them; it keeps two tiles in flight, so one is read while the other is checked.
import { Worker } from 'node:worker_threads';
import type { ApiClient } from './http.ts';
import { inspectTile, type BundleResult, type TileTask } from './inspect-bundle.ts';

let workerEntry: URL = new URL('./main.ts', import.meta.url);

/** The script a worker thread runs (the CLI's entry, which serves as a worker when not on the main thread). */
export function setWorkerEntry(url: URL): void {
  workerEntry = url;
}

export interface Inspector {
  inspect(task: TileTask): Promise<BundleResult>;
  close(): Promise<void>;
}

export function inlineInspector(api: ApiClient): Inspector {
  return { inspect: (task) => inspectTile(task, api), close: async () => {} };
}

const IN_FLIGHT = 2;

type Reply = { id: number; result: BundleResult } | { id: number; error: string };

interface Slot {
  worker: Worker;
  pending: Map<number, { resolve(r: BundleResult): void; reject(e: Error): void }>;
}

/** A pool of `size` worker threads, each given up to two tiles at a time. */
export function workerInspector(size: number): Inspector {
  const slots: Slot[] = [];
  const waiting: (() => void)[] = [];
  let nextId = 0;
  const failAll = (slot: Slot, err: Error) => {
    for (const p of slot.pending.values()) p.reject(err);
    slot.pending.clear();
  };
  for (let i = 0; i < size; i++) {
    const worker = new Worker(workerEntry, { workerData: { pfwsVerifyWorker: true } });
    const slot: Slot = { worker, pending: new Map() };
    worker.on('message', (reply: Reply) => {
      const p = slot.pending.get(reply.id);
      if (!p) return;
      slot.pending.delete(reply.id);
      if ('error' in reply) p.reject(new Error(reply.error));
      else p.resolve(reply.result);
      // An idle worker must not keep the process alive, but one with a task in flight must: the main thread may
      // be waiting on nothing else, and an unref'd worker would let it exit with the audit unfinished.
      if (!slot.pending.size) worker.unref();
      waiting.shift()?.();
    });
    worker.on('error', (err: Error) => failAll(slot, err));
    worker.on('exit', (code) => {
      failAll(slot, new Error(`a verifier worker thread exited (code ${code})`));
      for (const wake of waiting.splice(0)) wake();
    });
    worker.unref();
    slots.push(slot);
  }
  const freeSlot = (): Slot | undefined =>
    slots.filter((s) => s.pending.size < IN_FLIGHT && s.worker.threadId >= 0).sort((a, b) => a.pending.size - b.pending.size)[0];
  return {
    async inspect(task) {
      let slot = freeSlot();
      while (!slot) {
        if (slots.every((s) => s.worker.threadId < 0)) throw new Error('every verifier worker thread has exited');
        await new Promise<void>((resolve) => waiting.push(resolve));
        slot = freeSlot();
      }
      const id = nextId++;
      const chosen = slot;
      return new Promise<BundleResult>((resolve, reject) => {
        chosen.pending.set(id, { resolve, reject });
        chosen.worker.ref();
        chosen.worker.postMessage({ id, task });
      });
    },
    async close() {
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}

/** Serves tile inspections on a worker thread. */
export async function serveWorker(
  port: { on(event: 'message', fn: (message: { id: number; task: TileTask }) => void): void; postMessage(v: unknown): void },
  installCrypto: () => void,
): Promise<void> {
  installCrypto();
  port.on('message', ({ id, task }) => {
    inspectTile(task).then(
      (result) => port.postMessage({ id, result }),
      (err: unknown) => port.postMessage({ id, error: (err as Error).message }),
    );
  });
}
