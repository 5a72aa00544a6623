// kill -9 under load: one API process, every API process, the main process (localnet, indexer, worker), or the
// main process and Redis together (a host crash that spares the disk).
import type { Harness } from '../harness.ts';
import { Player } from '../../test/helpers/player.ts';
import { isAlive } from '../service-process.ts';
import { sleep, waitFor } from '../ports.ts';
import { beginRound, endRound, timeToFirstBet } from './common.ts';
import type { Check, RoundReport } from '../report.ts';
import { retrying } from '../recovery.ts';

export type KillKind = 'api-worker' | 'api-workers' | 'main' | 'host';

export const KILL_KINDS: readonly KillKind[] = ['api-worker', 'main', 'api-workers', 'host'];

/**
 * A new player funds its balance and never calls sync: the indexer, which lost its leader with the main process,
 * must take over and credit the deposit exactly once.
 */
async function depositWithoutSync(h: Harness, deposit: number, timeoutMs = 60_000): Promise<{ check: Check; ms: number | null }> {
  const chaos = h.makePlayer();
  const wallet = new Player(h.service.api, h.service.rpcUrl);
  Object.assign(wallet, {
    wallet: { seed: chaos.client.wallet.seed, publicKey: chaos.wallet },
    session: { seed: chaos.client.session.seed, publicKey: chaos.client.session.publicKey },
  });
  await wallet.init();
  await wallet.faucet(deposit * 2);
  await wallet.login();
  chaos.client.token = wallet.token;
  const built = await wallet.post('/protocol/v1/player/setup-transaction', { amount: deposit, sessionPubkey: chaos.client.session.publicKey });
  if (built.status !== 200) throw new Error(`setup-transaction: ${built.status} ${JSON.stringify(built.body)}`);
  await wallet.signAndSend(built.body.transaction);
  chaos.deposit = deposit;
  const t0 = Date.now();
  let balance = 0;
  while (Date.now() - t0 < timeoutMs) {
    balance = (await retrying(() => chaos.must('GET', '/protocol/v1/player/status'))).balance;
    if (balance > 0) break;
    await sleep(200);
  }
  const ms = balance > 0 ? Date.now() - t0 : null;
  return {
    ms,
    check: {
      name: 'the indexer takes over after the crash and credits a deposit once, with no sync',
      held: balance === deposit,
      detail: ms === null ? `not credited within ${timeoutMs} ms` : `balance ${balance} of a ${deposit} deposit, ${ms} ms after it confirmed`,
    },
  };
}

export async function killRound(h: Harness, round: number, kind: KillKind): Promise<RoundReport> {
  const at = h.rng.int(...h.profile.faultAfterMs);
  const what = {
    'api-worker': 'kill -9 of one API process',
    'api-workers': 'kill -9 of every API process',
    main: 'kill -9 of the main process, restart',
    host: 'kill -9 of the main process and Redis together, restart',
  }[kind];
  const report = beginRound(h, round, `kill:${kind}`, `${what} ${(at / 1000).toFixed(1)} s into the load`);
  h.load.start();
  await sleep(at);
  const pids = h.service.apiPids();
  const t0 = Date.now();
  let firstBet: Promise<number | null>;
  if (kind === 'main' || kind === 'host') {
    if (kind === 'host') await Promise.all([h.service.killMain(), h.redis.kill()]);
    else await h.service.killMain();
    report.notes.push(`the old API processes were gone ${Date.now() - t0} ms after the kill`);
    // Measured once the old API processes are gone: until then they may still serve a bet or two.
    firstBet = timeToFirstBet(h, t0);
    if (kind === 'host') await h.redis.start();
    report.notes.push(`restart took ${await h.service.start()} ms`);
  } else {
    // Players notice the service is back when a bet goes through, whether or not every process is up yet.
    firstBet = timeToFirstBet(h, t0);
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
  if (kind === 'main' || kind === 'host') {
    const [deposit] = await Promise.all([depositWithoutSync(h, 10), sleep(h.profile.afterRecoveryMs)]);
    report.checks.push(deposit.check);
    report.notes.push(`a deposit without sync was credited ${deposit.ms ?? 'never'} ms after it confirmed`);
  } else {
    await sleep(h.profile.afterRecoveryMs);
  }
  return endRound(h, report);
}
