// Entry point of the `pfws-verify` executable; on a worker thread it serves bulk inspections instead.
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { runCli } from './cli.ts';
import { serveWorker, setWorkerEntry } from './pool.ts';
import { installCrypto } from './crypto.ts';

if (!isMainThread && parentPort && (workerData as { pfwsVerifyWorker?: boolean } | null)?.pfwsVerifyWorker) {
  await serveWorker(parentPort, () => installCrypto(process.env.PFWS_VERIFY_CRYPTO));
} else {
  // Run through tsx in this repository (bin/pfws-verify.mjs), a worker thread needs that bootstrap too; the
  // installed CLI is one plain JavaScript file that serves as its own worker.
  setWorkerEntry(import.meta.url.endsWith('.ts') ? new URL('../bin/pfws-verify.mjs', import.meta.url) : new URL(import.meta.url));
  process.exitCode = await runCli(process.argv.slice(2));
}
