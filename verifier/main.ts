// Entry point of the `pfws-verify` executable; on a worker thread it serves bulk inspections instead.
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { runCli } from './cli.ts';
import { serveWorker, setWorkerEntry } from './pool.ts';
import { installCrypto } from './crypto.ts';

if (!isMainThread && parentPort && (workerData as { pfwsVerifyWorker?: boolean } | null)?.pfwsVerifyWorker) {
  await serveWorker(parentPort, () => installCrypto(process.env.PFWS_VERIFY_CRYPTO));
} else {
  setWorkerEntry(new URL(import.meta.url));
  process.exitCode = await runCli(process.argv.slice(2));
}
