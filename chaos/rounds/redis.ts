// Redis stopped (SIGTERM, AOF written out), killed (SIGKILL, appendfsync always) or hung (SIGSTOP) under load,
// then back. While it is out, requests must answer 503 SERVICE_UNAVAILABLE with Retry-After within a few seconds,
// and a request so answered must have written nothing, not even later; once it is back, play
// resumes with no restart and nothing lost.
import type { Harness, RedisFault } from '../harness.ts';
import { READY_PATH, TIMEOUT_MARGIN_MS } from '../findings.ts';
import { sleep, waitFor } from '../ports.ts';
import type { Check, RoundReport } from '../report.ts';
import { beginRound, endRound, timeToFirstBet } from './common.ts';

interface Probe {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  auth: boolean;
}

const causeOf = (err: unknown): string => {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause ? `: ${cause.code ?? cause.message}` : '';
};

async function probeOutage(h: Harness, probe: Probe, deadlineMs: number): Promise<Check> {
  const t0 = Date.now();
  const origin = h.service.api.replace(/\/api$/, '');
  try {
    const res = await fetch(`${origin}${probe.path}`, {
      method: probe.method,
      headers: { ...(probe.auth ? { authorization: `Bearer ${h.probe.client.token}` } : {}), ...(probe.body ? { 'content-type': 'application/json' } : {}) },
      ...(probe.body ? { body: JSON.stringify(probe.body) } : {}),
      signal: AbortSignal.timeout(deadlineMs),
    });
    const ms = Date.now() - t0;
    const text = await res.text();
    let code: unknown;
    try {
      code = JSON.parse(text)?.error?.code;
    } catch {
      code = undefined;
    }
    const retryAfter = res.headers.get('retry-after');
    return {
      name: `Redis down: ${probe.name} answers 503 SERVICE_UNAVAILABLE with Retry-After`,
      held: res.status === 503 && code === 'SERVICE_UNAVAILABLE' && retryAfter !== null,
      detail: `${res.status} ${String(code ?? text.slice(0, 80))} after ${ms} ms, Retry-After ${retryAfter ?? 'absent'}`,
      finding: 'redis-outage',
    };
  } catch (err) {
    return {
      name: `Redis down: ${probe.name} answers 503 SERVICE_UNAVAILABLE with Retry-After`,
      held: false,
      detail: `no answer within ${deadlineMs} ms (${(err as Error).name}${causeOf(err)})`,
      finding: 'redis-outage',
    };
  }
}

const WHAT: Record<RedisFault, string> = { sigterm: 'stopped (SIGTERM)', sigkill: 'killed (kill -9)', sigstop: 'hung (SIGSTOP)' };

/** A dice commit sent while Redis is out: answered 503, the bet must never be committed, even once Redis is back. */
async function commitDuringOutage(h: Harness, prepared: { body: any; clientSeedRaw: string }, deadlineMs: number) {
  const p = h.probe;
  const bet = p.journal.prepared({
    betPayloadHash: prepared.body.betPayloadHash,
    clientSeedRaw: prepared.clientSeedRaw,
    game: 'dice',
    player: p.index,
    ticketId: null,
    round: p.ctx.round,
  });
  try {
    const res = await fetch(`${h.service.api}/protocol/v1/dice/commit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${p.client.token}` },
      body: JSON.stringify({ ...prepared.body, sessionSignature: p.signHash(bet.betPayloadHash) }),
      signal: AbortSignal.timeout(deadlineMs),
    });
    if (res.status === 200) bet.acked = bet.committed = true;
    return { bet, status: res.status as number | null };
  } catch {
    return { bet, status: null };
  }
}

export async function redisRound(h: Harness, round: number, mode: RedisFault): Promise<RoundReport> {
  const at = h.rng.int(...h.profile.faultAfterMs);
  const outage = h.profile.redisOutageMs;
  const report = beginRound(h, round, `redis:${mode}`, `Redis ${WHAT[mode]} ${(at / 1000).toFixed(1)} s into the load, out ${(outage / 1000).toFixed(1)} s`);
  const mainBefore = h.service.mainPid;
  const apiBefore = h.service.apiPids().sort();
  const { clientSeedRaw, commitment } = h.probe.client.seed();
  const prepared = {
    clientSeedRaw,
    body: await h.probe.must('POST', '/protocol/v1/dice/prepare', {
      commitment,
      sessionPubkey: h.probe.client.session.publicKey,
      direction: 'under',
      target: 50,
      wager: 0.01,
    }),
  };
  h.load.start();
  await sleep(at);
  const t0 = Date.now();
  if (mode === 'sigterm') await h.redis.stop();
  else if (mode === 'sigkill') await h.redis.kill();
  else h.redis.pause();
  const deadline = h.profile.hardening.REDIS_COMMAND_TIMEOUT_MS + TIMEOUT_MARGIN_MS;
  const lateCommit = commitDuringOutage(h, prepared, deadline);
  const probes: Probe[] = [
    { name: 'GET player/status', method: 'GET', path: '/api/protocol/v1/player/status', auth: true },
    {
      name: 'POST dice/prepare',
      method: 'POST',
      path: '/api/protocol/v1/dice/prepare',
      auth: true,
      body: { commitment: h.probe.client.seed().commitment, sessionPubkey: h.probe.client.session.publicKey, direction: 'under', target: 50, wager: 0.01 },
    },
    { name: 'GET house', method: 'GET', path: '/api/house', auth: false },
    { name: `GET ${READY_PATH}`, method: 'GET', path: READY_PATH, auth: false },
  ];
  const outageChecks = Promise.all(probes.map((p) => probeOutage(h, p, deadline)));
  await sleep(Math.max(0, t0 + outage - Date.now()));
  report.checks.push(...(await outageChecks));
  const commit = await lateCommit;
  if (mode === 'sigstop') h.redis.resume();
  else await h.redis.start();
  const up = Date.now();
  report.figures.recoverMs = await timeToFirstBet(h, up);
  report.notes.push(`Redis down ${up - t0} ms; first bet ${report.figures.recoverMs ?? 'never'} ms after it was back`);
  report.checks.push({
    name: 'play resumes once Redis is back',
    held: report.figures.recoverMs !== null,
    detail: report.figures.recoverMs === null ? 'no bet within 240 s' : `first bet ${report.figures.recoverMs} ms after Redis was back`,
  });
  let readyMs: number | null = null;
  try {
    await waitFor(`${READY_PATH} to turn green`, async () => (await fetch(`${h.service.api.replace(/\/api$/, '')}${READY_PATH}`)).status === 200, 5_000);
    readyMs = Date.now() - up;
  } catch {
    readyMs = null;
  }
  report.checks.push({
    name: `${READY_PATH} green again within 5 s of Redis`,
    held: readyMs !== null,
    detail: readyMs === null ? 'not 200 within 5 s' : `${readyMs} ms`,
    finding: 'redis-outage',
  });
  const apiAfter = h.service.apiPids().sort();
  report.checks.push({
    name: 'resumes without a restart',
    held: h.service.mainPid === mainBefore && apiAfter.join() === apiBefore.join(),
    detail: `main ${mainBefore} → ${h.service.mainPid}; API ${apiBefore.join(',')} → ${apiAfter.join(',')}`,
  });
  await sleep(h.profile.afterRecoveryMs);
  await endRound(h, report);
  // Whatever a client library queued while Redis was out has been sent by now (a bet went through since).
  const dice = await h.probe.must('GET', '/protocol/v1/dice/session');
  const receipt = await fetch(`${h.service.api}/receipts/dice_${commit.bet.betPayloadHash.slice(0, 32)}`);
  const written =
    receipt.status === 200 ||
    dice.pendingBets.some((b: { betPayloadHash: string }) => b.betPayloadHash === commit.bet.betPayloadHash) ||
    commit.bet.settledBy !== null;
  report.checks.push({
    name: 'a commit answered 503 while Redis was out wrote nothing, not even once Redis was back',
    held: commit.status === 503 && !written,
    detail: `commit answered ${commit.status ?? `nothing within ${deadline} ms`}; the bet was ${written ? 'committed after all' : 'never committed'}`,
    finding: 'redis-outage',
  });
  return report;
}
