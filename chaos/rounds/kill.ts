// kill -9 under load: one API process, every API process, or the main process (localnet, indexer, worker).
import type { Harness } from '../harness.ts';
import { isAlive } from '../service-process.ts';
import { sleep, waitFor } from '../ports.ts';
import { beginRound, endRound, timeToFirstBet } from './common.ts';
import type { RoundReport } from '../report.ts';

export type KillKind = 'api-worker' | 'api-workers' | 'main';

export const KILL_KINDS: readonly KillKind[] = ['api-worker', 'main', 'api-workers'];

export async function killRound(h: Harness, round: number, kind: KillKind): Promise<RoundReport> {
  const at = h.rng.int(...h.profile.faultAfterMs);
  const what = { 'api-worker': 'kill -9 of one API process', 'api-workers': 'kill -9 of every API process', main: 'kill -9 of the main process, restart' }[kind];
  const report = beginRound(h, round, `kill:${kind}`, `${what} ${(at / 1000).toFixed(1)} s into the load`);
  h.load.start();
  await sleep(at);
  const pids = h.service.apiPids();
  const t0 = Date.now();
  // Players notice the service is back when a bet goes through, whether or not every process is up yet.
  const firstBet = timeToFirstBet(h, t0);
  if (kind === 'main') {
    await h.service.killMain();
    report.notes.push(`restart took ${await h.service.start()} ms`);
  } else {
    const victims = kind === 'api-worker' ? [h.rng.pick(pids)] : pids;
    for (const pid of victims) h.service.killApi(pid);
    // The main process forks a replacement for each.
    await waitFor('replacement API processes', async () => {
      const now = h.service.listeningApiPids();
      return now.length >= pids.length && victims.every((v) => !isAlive(v) && !now.includes(v));
    }, 60_000);
    await h.service.waitReady();
    report.notes.push(`replacement API processes listening ${Date.now() - t0} ms after the kill`);
  }
  report.figures.recoverMs = await firstBet;
  report.checks.push({
    name: 'service back after the fault',
    held: report.figures.recoverMs !== null,
    detail: report.figures.recoverMs === null ? 'no bet went through within 120 s' : `first bet ${report.figures.recoverMs} ms after the kill`,
  });
  await sleep(h.profile.afterRecoveryMs);
  return endRound(h, report);
}
