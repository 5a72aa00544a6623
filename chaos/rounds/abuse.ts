// One wallet pushing its limits: piles of prepares, unrevealed commits and a stranger's challenges; a token whose
// Redis record is gone; `-0` as an amount.
import { createHash } from 'node:crypto';
import type { Harness } from '../harness.ts';
import type { ChaosPlayer } from '../load.ts';
import { sleep } from '../ports.ts';
import type { Check, RoundReport } from '../report.ts';
import { emptyRecovery, recoverPlayer } from '../recovery.ts';
import { beginRound, endRound } from './common.ts';

type Prepared = { body: any; clientSeedRaw: string };

async function prepareDice(p: ChaosPlayer): Promise<Prepared> {
  const { clientSeedRaw, commitment } = p.client.seed();
  const body = await p.must('POST', '/protocol/v1/dice/prepare', {
    commitment,
    sessionPubkey: p.client.session.publicKey,
    direction: 'under',
    target: 50,
    wager: 0.01,
  });
  return { body, clientSeedRaw };
}

/** Commits a prepared bet, journaling it first so that the round's recovery pass reveals whatever went through. */
async function commitDice(p: ChaosPlayer, prepared: Prepared) {
  const bet = p.journal.prepared({
    betPayloadHash: prepared.body.betPayloadHash,
    clientSeedRaw: prepared.clientSeedRaw,
    game: 'dice',
    player: p.index,
    ticketId: null,
    round: p.ctx.round,
  });
  const res = await p.call('POST', '/protocol/v1/dice/commit', { ...prepared.body, sessionSignature: p.signHash(prepared.body.betPayloadHash) });
  if (res.status === 200) {
    bet.acked = bet.committed = true;
    p.ctx.stats.acked++;
  }
  return res;
}

const codeOf = (res: { body: any }) => res.body?.error?.code as string | undefined;

async function preparesBounded(h: Harness, p: ChaosPlayer): Promise<Check> {
  const cap = h.profile.hardening.MAX_PREPARED_BETS_PER_WALLET;
  const prepared: Prepared[] = [];
  // All at the same bet nonce: only one of them can ever be committed, which is what makes piling them up cheap.
  for (let i = 0; i <= cap; i++) prepared.push(await prepareDice(p));
  const oldest = await commitDice(p, prepared[0]!);
  const newest = await commitDice(p, prepared[cap]!);
  return {
    name: `prepares per wallet bounded: after ${cap + 1} prepares the oldest has expired (MAX_PREPARED_BETS_PER_WALLET)`,
    held: oldest.status === 400 && codeOf(oldest) === 'GAME_INPUT_REJECTED' && newest.status === 200,
    detail: `oldest commit ${oldest.status} ${codeOf(oldest) ?? ''}, newest commit ${newest.status} ${codeOf(newest) ?? ''}`,
    finding: 'pending-bounds',
  };
}

async function commitsBounded(h: Harness, p: ChaosPlayer): Promise<Check> {
  const cap = h.profile.hardening.MAX_UNREVEALED_BETS_PER_WALLET;
  const answers: number[] = [];
  let last: { status: number; body: any } | null = null;
  for (let i = 0; i <= cap; i++) {
    last = await commitDice(p, await prepareDice(p));
    answers.push(last.status);
  }
  return {
    name: `unrevealed commits per wallet bounded at MAX_UNREVEALED_BETS_PER_WALLET (${cap})`,
    held: answers.slice(0, cap).every((s) => s === 200) && last!.status === 400 && codeOf(last!) === 'GAME_INPUT_REJECTED',
    detail: `commits answered ${answers.join(', ')}${last && last.status !== 200 ? ` (${codeOf(last)})` : ''}`,
    finding: 'pending-bounds',
  };
}

async function signIn(p: ChaosPlayer, challenge: { message: string }) {
  return p.call('POST', '/wallet/session', {
    walletAddress: p.wallet,
    message: challenge.message,
    signature: p.client.wallet.sign(Buffer.from(challenge.message)),
  });
}

/** Challenges a stranger can ask for, for any wallet, as many as the rate limit lets through. */
const STRANGER_CHALLENGES = 20;

async function challengesNotVoidable(p: ChaosPlayer): Promise<Check> {
  const mine = await p.must('GET', `/wallet/challenge?wallet=${p.wallet}`);
  // Challenges keep no state (issue 21), so a pile of them for the same wallet voids nothing.
  for (let i = 0; i < STRANGER_CHALLENGES; i++) await p.must('GET', `/wallet/challenge?wallet=${p.wallet}`);
  const first = await signIn(p, mine);
  if (first.status === 200) p.client.token = first.body.token;
  const reused = await signIn(p, mine);
  return {
    name: `a stranger's ${STRANGER_CHALLENGES} challenges for a wallet void none of its owner's; each signs in once`,
    held: first.status === 200 && reused.status === 401 && codeOf(reused) === 'WALLET_SESSION_REJECTED',
    detail: `owner's sign-in ${first.status} ${codeOf(first) ?? ''}, its reuse ${reused.status} ${codeOf(reused) ?? ''}`,
    finding: 'pending-bounds',
  };
}

async function tokenGone(h: Harness, p: ChaosPlayer): Promise<Check> {
  // Enough reads that every API process has resolved (and cached) the token.
  for (let i = 0; i < 8; i++) await p.must('GET', '/protocol/v1/player/status');
  const token = p.client.token;
  // store/auth.ts keeps a token as the sha256 of its text.
  await h.redisClient.del(h.keys.token(createHash('sha256').update(token).digest('hex')));
  const waitMs = h.profile.hardening.TOKEN_CACHE_TTL_MS + 250;
  await sleep(waitMs);
  const answers: string[] = [];
  for (let i = 0; i < 8; i++) {
    const res = await p.call('GET', '/protocol/v1/player/status');
    answers.push(`${res.status}${codeOf(res) ? ` ${codeOf(res)}` : ''}`);
  }
  // Sign in again so the player's books can still be read at the end.
  const challenge = await p.must('GET', `/wallet/challenge?wallet=${p.wallet}`);
  const again = await signIn(p, challenge);
  if (again.status === 200) p.client.token = again.body.token;
  return {
    name: `a token removed from Redis stops working everywhere within TOKEN_CACHE_TTL_MS (${h.profile.hardening.TOKEN_CACHE_TTL_MS} ms)`,
    held: answers.every((a) => a === '401 WALLET_SESSION_REQUIRED'),
    detail: `${waitMs} ms after the record was deleted: ${[...new Set(answers)].map((a) => `${answers.filter((x) => x === a).length}× ${a}`).join(', ')}`,
    finding: 'token-cache',
  };
}

/** JSON.stringify(-0) is "0": the body is written by hand to send a real `-0`. */
async function rawPost(h: Harness, p: ChaosPlayer, path: string, json: string) {
  const res = await fetch(`${h.service.api}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${p.client.token}` },
    body: json,
  });
  const text = await res.text();
  return { status: res.status, code: (JSON.parse(text) as { error?: { code?: string } }).error?.code };
}

async function negativeZero(h: Harness, p: ChaosPlayer): Promise<Check[]> {
  const key = p.client.session.publicKey;
  const { commitment } = p.client.seed();
  const cases: [string, string, string, boolean][] = [
    ['setup-transaction amount -0', '/protocol/v1/player/setup-transaction', `{"amount":-0,"sessionPubkey":"${key}"}`, true],
    ['setup-transaction amount -0.0', '/protocol/v1/player/setup-transaction', `{"amount":-0.0,"sessionPubkey":"${key}"}`, true],
    [
      'dice/prepare wager -0',
      '/protocol/v1/dice/prepare',
      `{"commitment":"${commitment}","sessionPubkey":"${key}","direction":"under","target":50,"wager":-0}`,
      false,
    ],
    ['sweeper/ticket wager -0', '/protocol/v1/sweeper/ticket', `{"mode":"easy","sessionPubkey":"${key}","wager":-0}`, false],
  ];
  const checks: Check[] = [];
  for (const [name, path, json, open] of cases) {
    const res = await rawPost(h, p, path, json);
    checks.push({
      name: `-0 is not an amount: ${name} → 400 INVALID_BET_AMOUNT`,
      held: res.status === 400 && res.code === 'INVALID_BET_AMOUNT',
      detail: `${res.status} ${res.code ?? ''}`,
      ...(open ? { finding: 'negative-zero' as const } : {}),
    });
  }
  return checks;
}

export async function abuseRound(h: Harness, round: number): Promise<RoundReport> {
  const report = beginRound(h, round, 'abuse', 'one wallet: piled-up prepares, unrevealed commits and challenges; a token deleted from Redis; -0 amounts');
  const p = await h.newPlayer(20);
  report.checks.push(await preparesBounded(h, p));
  // Reveal what went through, so the next check starts from no pending bet.
  await recoverPlayer(p, emptyRecovery());
  report.checks.push(await commitsBounded(h, p));
  report.checks.push(await challengesNotVoidable(p));
  report.checks.push(await tokenGone(h, p));
  report.checks.push(...(await negativeZero(h, p)));
  return endRound(h, report);
}
