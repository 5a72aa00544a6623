// kill -9 under load: one API process, every API process, the main process (localnet, indexer, worker), or the
// main process and Redis together (a host crash that spares the disk).
import type { Harness } from '../harness.ts';
import { TIMEOUT_MARGIN_MS } from '../findings.ts';
import { Player } from '../../test/helpers/player.ts';
import { isAlive } from '../service-process.ts';
import { sleep, waitFor } from '../ports.ts';
import { beginRound, endRound, timeToFirstBet } from './common.ts';
import type { Check, RoundReport } from '../report.ts';
import type { ChaosPlayer } from '../load.ts';
import { retrying } from '../recovery.ts';

export type KillKind = 'api-worker' | 'api-workers' | 'main' | 'host';

export const KILL_KINDS: readonly KillKind[] = ['api-worker', 'main', 'api-workers', 'host'];

/** A new player whose setup deposit is confirmed on-chain; the ledger has not necessarily credited it yet. */
async function confirmedDeposit(h: Harness, deposit: number): Promise<ChaosPlayer> {
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
  // The localnet answers only once the transaction is in its log on disk (localnet/rpc.ts `durable`), so the
  // crash below cannot take it back.
  await wallet.signAndSend(built.body.transaction);
  // The books expect it credited exactly once from now on.
  chaos.deposit = deposit;
  return chaos;
}

/** Waits until the player's deposit shows in its balance; it must be there exactly once. */
async function credited(player: ChaosPlayer, name: string, timeoutMs = 60_000): Promise<{ check: Check; ms: number | null }> {
  const t0 = Date.now();
  let balance = 0;
  while (Date.now() - t0 < timeoutMs) {
    balance = (await retrying(() => player.must('GET', '/protocol/v1/player/status'))).balance;
    if (balance > 0) break;
    await sleep(200);
  }
  const ms = balance > 0 ? Date.now() - t0 : null;
  return {
    ms,
    check: {
      name,
      held: balance === player.deposit,
      detail: ms === null ? `not credited within ${timeoutMs} ms` : `balance ${balance} of a ${player.deposit} deposit, after ${ms} ms`,
    },
  };
}

/** The second API host while the main process, and with it the chain RPC, is down (Redis is up). */
async function rpcOutageChecks(h: Harness): Promise<Check[]> {
  const host = await h.apiOnly;
  const deadline = h.profile.hardening.CHAIN_RPC_TIMEOUT_MS + TIMEOUT_MARGIN_MS;
  const auth = { authorization: `Bearer ${h.probe.client.token}` };
  const json = { 'content-type': 'application/json' };
  const probes: [string, string, RequestInit][] = [
    ['GET house', '/house', {}],
    ['POST player/sync', '/protocol/v1/player/sync', { method: 'POST', headers: auth }],
    [
      'POST player/setup-transaction',
      '/protocol/v1/player/setup-transaction',
      {
        method: 'POST',
        headers: { ...auth, ...json },
        body: JSON.stringify({ amount: 1, sessionPubkey: h.probe.client.session.publicKey }),
      },
    ],
  ];
  const checks: Check[] = [];
  for (const [name, path, init] of probes) {
    const t0 = Date.now();
    let detail: string;
    let held = false;
    try {
      const res = await fetch(`${host.api}${path}`, { ...init, signal: AbortSignal.timeout(deadline) });
      const text = await res.text();
      const code = /"code":"([A-Z_0-9]+)"/.exec(text)?.[1];
      held = res.status === 503 && code === 'SERVICE_UNAVAILABLE' && res.headers.get('retry-after') !== null;
      detail = `${res.status} ${code ?? text.slice(0, 80)} after ${Date.now() - t0} ms, Retry-After ${res.headers.get('retry-after') ?? 'absent'}`;
    } catch (err) {
      detail = `no answer within ${deadline} ms (${(err as Error).name})`;
    }
    checks.push({ name: `chain RPC down: ${name} answers 503 SERVICE_UNAVAILABLE with Retry-After`, held, detail, finding: 'rpc-outage' });
  }
  // What needs no chain goes on: the ledger is in Redis.
  const session = await fetch(`${host.api}/protocol/v1/dice/session`, { headers: auth, signal: AbortSignal.timeout(deadline) }).then(
    (r) => r.status,
    () => null,
  );
  checks.push({
    name: 'chain RPC down: a second API host still serves the ledger (GET dice/session)',
    held: session === 200,
    detail: `answered ${session ?? 'nothing'}`,
  });
  return checks;
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
  let firstBet: Promise<number | null>;
  let crashDeposit: ChaosPlayer | null = null;
  if (kind === 'main' || kind === 'host') {
    // A deposit confirmed on-chain just before the crash, its sync in flight: the chain must keep it, and the
    // ledger must credit it once, through the sync or through the indexer after the restart.
    crashDeposit = await confirmedDeposit(h, 7);
    // Sent outside the load's figures: its answer depends on how the crash cuts it (rpc-outage, below).
    void fetch(`${h.service.api}/protocol/v1/player/sync`, { method: 'POST', headers: { authorization: `Bearer ${crashDeposit.client.token}` } }).catch(
      () => undefined,
    );
  }
  const t0 = Date.now();
  if (kind === 'main' || kind === 'host') {
    if (kind === 'host') await Promise.all([h.service.killMain(), h.redis.kill()]);
    else await h.service.killMain();
    report.notes.push(`the old API processes were gone ${Date.now() - t0} ms after the kill`);
    if (kind === 'main') report.checks.push(...(await rpcOutageChecks(h)));
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
    await waitFor(
      'replacement API processes',
      async () => {
        const now = h.service.listeningApiPids();
        return now.length >= pids.length && victims.every((v) => !isAlive(v) && !now.includes(v));
      },
      240_000,
    );
    await h.service.waitReady();
    report.notes.push(`replacement API processes listening ${Date.now() - t0} ms after the kill`);
  }
  report.figures.recoverMs = await firstBet;
  report.checks.push({
    name: 'service back after the fault',
    held: report.figures.recoverMs !== null,
    detail: report.figures.recoverMs === null ? 'no bet went through within 240 s' : `first bet ${report.figures.recoverMs} ms after the kill`,
  });
  if (crashDeposit) {
    const before = await credited(crashDeposit, 'a deposit confirmed just before the crash survives it and is credited once');
    report.checks.push(before.check);
    const fresh = async () => credited(await confirmedDeposit(h, 10), 'the indexer takes over after the crash and credits a new deposit once, with no sync');
    const [after] = await Promise.all([fresh(), sleep(h.profile.afterRecoveryMs)]);
    report.checks.push(after.check);
    report.notes.push(`a deposit without sync after the restart was credited ${after.ms ?? 'never'} ms after it confirmed`);
  } else {
    await sleep(h.profile.afterRecoveryMs);
  }
  return endRound(h, report);
}
