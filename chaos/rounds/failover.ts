// Redis as production runs it (design §13): the primary killed under load while Sentinel fails over to the replica,
// and the replica hung for a while. Every answer in between is 200 or 503 with Retry-After, within a bound, never a
// hang or a 500; what was acknowledged is on the replica, so nothing acknowledged is lost; play resumes by itself.
import type { FailoverHarness } from '../harness.ts';
import { TIMEOUT_MARGIN_MS } from '../findings.ts';
import { sleep } from '../ports.ts';
import type { Check, RoundReport } from '../report.ts';
import { beginRound, endRound, timeToFirstBet } from './common.ts';

interface ProbeAnswer {
  name: string;
  status: number | null;
  code?: string;
  retryAfter: boolean;
  ms: number;
}

/** The longest a request may take while Redis fails: its commands, then up to two WAIT rounds. */
const boundOf = (h: FailoverHarness) => h.profile.hardening.REDIS_COMMAND_TIMEOUT_MS + 2 * h.profile.waitTimeoutMs + TIMEOUT_MARGIN_MS;

async function probe(h: FailoverHarness, name: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<ProbeAnswer> {
  const t0 = Date.now();
  try {
    const res = await fetch(`${h.service.api}${path}`, {
      method,
      headers: { authorization: `Bearer ${h.prober.client.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(boundOf(h)),
    });
    const text = await res.text();
    let code: string | undefined;
    try {
      code = JSON.parse(text)?.error?.code;
    } catch {
      code = undefined;
    }
    return { name, status: res.status, ...(code ? { code } : {}), retryAfter: res.headers.has('retry-after'), ms: Date.now() - t0 };
  } catch {
    return { name, status: null, retryAfter: false, ms: Date.now() - t0 };
  }
}

/** A write (a prepare) and a read, every 200 ms until `done()`. */
async function probeWhile(h: FailoverHarness, done: () => boolean): Promise<ProbeAnswer[]> {
  const answers: ProbeAnswer[] = [];
  while (!done()) {
    const { commitment } = h.prober.client.seed();
    const prepare = { commitment, sessionPubkey: h.prober.client.session.publicKey, direction: 'under', target: 50, wager: 0.01 };
    answers.push(
      ...(await Promise.all([
        probe(h, 'POST dice/prepare', 'POST', '/protocol/v1/dice/prepare', prepare),
        probe(h, 'GET player/status', 'GET', '/protocol/v1/player/status'),
      ])),
    );
    await sleep(200);
  }
  return answers;
}

const isUnavailable = (a: ProbeAnswer) => a.status === 503 && a.code === 'SERVICE_UNAVAILABLE' && a.retryAfter;

function answersCheck(name: string, answers: ProbeAnswer[], bound: number, writesMust503 = false): Check {
  const bad = answers.filter((a) => !(a.status === 200 && !(writesMust503 && a.name.startsWith('POST'))) && !isUnavailable(a));
  const count = (f: (a: ProbeAnswer) => boolean) => answers.filter(f).length;
  return {
    name,
    held: bad.length === 0 && count(isUnavailable) > 0,
    detail:
      `${answers.length} probes: ${count((a) => a.status === 200)} × 200, ${count(isUnavailable)} × 503 with Retry-After` +
      `, slowest ${Math.max(0, ...answers.map((a) => a.ms))} ms (bound ${bound} ms)` +
      (bad.length
        ? `; ${bad.length} otherwise, e.g. ${bad
            .slice(0, 3)
            .map((a) => `${a.name} → ${a.status ?? `no answer within ${bound} ms`} ${a.code ?? ''}`)
            .join(' | ')}`
        : ''),
  };
}

const sameProcesses = (h: FailoverHarness, main: number | null, api: number[]): Check => {
  const after = h.service.apiPids().sort();
  return {
    name: 'resumes without a restart of the service',
    held: h.service.mainPid === main && after.join() === api.join(),
    detail: `main ${main} → ${h.service.mainPid}; API ${api.join(',')} → ${after.join(',')}`,
  };
};

/** kill -9 of the primary under load; Sentinel promotes the replica; the killed node comes back as its replica. */
export async function primaryKillRound(h: FailoverHarness, round: number): Promise<RoundReport> {
  const at = h.rng.int(...h.profile.faultAfterMs);
  const report = beginRound(h, round, 'redis:failover', `Redis primary killed (kill -9) ${(at / 1000).toFixed(1)} s into the load; Sentinel fails over`);
  const main = h.service.mainPid;
  const api = h.service.apiPids().sort();
  h.load.start();
  await sleep(at);
  const primary = await h.ha.primary();
  const t0 = Date.now();
  await primary.kill();
  let resumed = false;
  const probing = probeWhile(h, () => resumed);
  let failoverMs: number | null = null;
  let rejoinMs: number | null = null;
  try {
    await h.ha.waitFailoverFrom(primary);
    failoverMs = Date.now() - t0;
    // An orchestrator restarts the failed node as a replica of the new primary (it asks Sentinel first); with one
    // replica and min-replicas-to-write 1, writes wait for it.
    await h.ha.rejoin(primary);
    rejoinMs = Date.now() - t0;
  } catch (err) {
    report.notes.push(`failover did not complete: ${(err as Error).message}`);
  }
  report.figures.recoverMs = await timeToFirstBet(h, t0);
  resumed = true;
  const answers = await probing;
  report.checks.push({
    name: 'Sentinel promotes the replica',
    held: failoverMs !== null,
    detail: failoverMs === null ? 'no new primary' : `new primary named ${failoverMs} ms after the kill; old node back as its replica at ${rejoinMs} ms`,
  });
  const answered = answersCheck('during the failover every request answers 200 or 503 with Retry-After, in bounded time', answers, boundOf(h));
  report.checks.push(answered);
  report.notes.push(`probes during the failover: ${answered.detail}`);
  report.checks.push({
    name: 'play resumes after the failover',
    held: report.figures.recoverMs !== null,
    detail: report.figures.recoverMs === null ? 'no bet within 240 s' : `first bet ${report.figures.recoverMs} ms after the primary was killed`,
  });
  report.checks.push(sameProcesses(h, main, api));
  report.notes.push(
    `primary killed; Sentinel named the new primary after ${failoverMs ?? '-'} ms, the old node was a replica again after ${rejoinMs ?? '-'} ms, the first bet went through ${report.figures.recoverMs ?? '-'} ms after the kill`,
  );
  await sleep(h.profile.afterRecoveryMs);
  return endRound(h, report);
}

/** The replica hung (SIGSTOP) for a while: writes answer 503 within the bound, a 503'd commit re-sent afterwards resolves. */
export async function replicaLossRound(h: FailoverHarness, round: number): Promise<RoundReport> {
  const at = h.rng.int(...h.profile.faultAfterMs);
  const outage = h.profile.replicaOutageMs;
  const report = beginRound(
    h,
    round,
    'redis:replica-loss',
    `Redis replica hung ${(at / 1000).toFixed(1)} s into the load, for ${(outage / 1000).toFixed(1)} s`,
  );
  const main = h.service.mainPid;
  const api = h.service.apiPids().sort();
  const p = h.prober;
  const { clientSeedRaw, commitment } = p.client.seed();
  const prepared = await p.must('POST', '/protocol/v1/dice/prepare', {
    commitment,
    sessionPubkey: p.client.session.publicKey,
    direction: 'under',
    target: 50,
    wager: 0.01,
  });
  const bet = p.journal.prepared({ betPayloadHash: prepared.betPayloadHash, clientSeedRaw, game: 'dice', player: p.index, ticketId: null, round });
  const commitBody = { ...prepared, sessionSignature: p.signHash(bet.betPayloadHash) };
  h.load.start();
  await sleep(at);
  const replica = await h.ha.replica();
  replica.pause();
  const t0 = Date.now();
  let ended = false;
  const probing = probeWhile(h, () => ended);
  const during = await probe(h, 'POST dice/commit', 'POST', '/protocol/v1/dice/commit', commitBody);
  await sleep(Math.max(0, t0 + outage - Date.now()));
  ended = true;
  const answers = [during, ...(await probing)];
  replica.resume();
  const up = Date.now();
  report.figures.recoverMs = await timeToFirstBet(h, up);
  const answered = answersCheck('while the replica is out every write answers 503 with Retry-After, in bounded time', answers, boundOf(h), true);
  report.checks.push(answered);
  report.notes.push(`probes while the replica was out: ${answered.detail}`);
  // Whatever the 503'd commit left on the primary, sending it again resolves the same bet: acknowledged once, settled once.
  const resent = await p.call('POST', '/protocol/v1/dice/commit', commitBody);
  let settled = false;
  if (resent.status === 200) {
    bet.acked = bet.committed = true;
    const reveal = await p.call('POST', '/protocol/v1/dice/reveal', {
      betPayloadHash: bet.betPayloadHash,
      clientSeedRaw,
      sessionSignature: p.signText(resent.body.ack.revealMessage),
    });
    settled = reveal.status === 200;
    if (settled) bet.settledBy = 'play';
  }
  report.checks.push({
    name: 'a commit answered 503 while the replica was out, sent again afterwards, commits and settles once',
    held: during.status === 503 && resent.status === 200 && settled,
    detail: `commit during the outage ${during.status ?? 'no answer'} ${during.code ?? ''}; re-sent after ${resent.status} (${resent.body?.status ?? resent.body?.error?.code}); reveal ${settled ? 'settled' : 'failed'}`,
  });
  report.checks.push({
    name: 'play resumes once the replica is back',
    held: report.figures.recoverMs !== null,
    detail: report.figures.recoverMs === null ? 'no bet within 240 s' : `first bet ${report.figures.recoverMs} ms after the replica was back`,
  });
  report.checks.push(sameProcesses(h, main, api));
  await sleep(h.profile.afterRecoveryMs);
  return endRound(h, report);
}
