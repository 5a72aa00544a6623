// Lost Redis replies, on purpose: the second API host reaches Redis through a proxy that lets one command run and
// then cuts the connection before its answer. ioredis sends the command again on reconnect; an idempotent step
// (commit, reveal) must answer as if nothing happened, and so must a ticket open and a sign-in (redis-resend).
import type { Harness } from '../harness.ts';
import type { ChaosPlayer } from '../load.ts';
import { scriptNaming } from '../redis-proxy.ts';
import { emptyRecovery, finishTicket, recoverPlayer } from '../recovery.ts';
import type { Check, RoundReport } from '../report.ts';
import { beginRound, endRound, recoveryChecks } from './common.ts';

interface Answer {
  status: number;
  body: any;
}

const TRAP_MS = 10_000;

/** Sends a request to the second API host while the proxy loses the reply of the command `match` names. */
async function withLostReply(
  h: Harness,
  match: (request: Buffer) => boolean,
  request: () => Promise<Answer>,
): Promise<{ res: Answer | null; sprung: boolean }> {
  const sprung = h.proxy.loseNextReply(match).then(() => true);
  const res = await request().catch(() => null);
  const ok = await Promise.race([sprung, new Promise<boolean>((r) => setTimeout(() => r(false), TRAP_MS))]);
  h.proxy.disarm();
  return { res, sprung: ok };
}

async function send(base: string, p: ChaosPlayer, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${p.client.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const describe = (res: Answer | null, sprung: boolean) =>
  `${sprung ? 'reply lost' : 'the proxy never saw the command'}; answered ${res ? `${res.status} ${JSON.stringify(res.body).slice(0, 160)}` : 'nothing'}`;

export async function replyLossRound(h: Harness, round: number): Promise<RoundReport> {
  const report = beginRound(
    h,
    round,
    'reply-loss',
    'a Redis reply lost after the command ran (second API host behind a proxy): commit, reveal, ticket open, sign-in',
  );
  const host = (await h.apiOnly).api;
  const p = await h.newPlayer(10);
  const checks: Check[] = [];

  // Dice commit and reveal: idempotent by design, so a re-run must not show.
  const { clientSeedRaw, commitment } = p.client.seed();
  const prepared = await p.must('POST', '/protocol/v1/dice/prepare', {
    commitment,
    sessionPubkey: p.client.session.publicKey,
    direction: 'under',
    target: 50,
    wager: 0.01,
  });
  const bet = p.journal.prepared({ betPayloadHash: prepared.betPayloadHash, clientSeedRaw, game: 'dice', player: p.index, ticketId: null, round });
  // The commit script names the prepared bet's key, the settle script the receipt's (store/keys.ts).
  const commit = await withLostReply(h, scriptNaming(`:prep:${bet.betPayloadHash}`), () =>
    send(host, p, 'POST', '/protocol/v1/dice/commit', { ...prepared, sessionSignature: p.signHash(bet.betPayloadHash) }),
  );
  const acked = commit.res?.status === 200 && commit.res.body.ack?.betPayloadHash === bet.betPayloadHash;
  if (acked) {
    bet.acked = bet.committed = true;
    h.ctx.stats.acked++;
  }
  checks.push({
    name: 'a dice commit whose Redis reply was lost answers 200 with its ack',
    held: commit.sprung && acked,
    detail: describe(commit.res, commit.sprung),
  });
  if (acked) {
    const reveal = await withLostReply(h, scriptNaming(`:receipt:dice_${bet.betPayloadHash.slice(0, 32)}`), () =>
      send(host, p, 'POST', '/protocol/v1/dice/reveal', {
        betPayloadHash: bet.betPayloadHash,
        clientSeedRaw,
        sessionSignature: p.signText(commit.res!.body.ack.revealMessage),
      }),
    );
    const settled = reveal.res?.status === 200 && reveal.res.body.betPayloadHash === bet.betPayloadHash;
    if (settled) {
      bet.settledBy = 'play';
      h.ctx.stats.settled++;
    }
    checks.push({
      name: 'a dice reveal whose Redis reply was lost answers 200 with its outcome',
      held: reveal.sprung && settled,
      detail: describe(reveal.res, reveal.sprung),
    });
  }

  // Ticket open: the re-run finds the ticket the first run opened.
  const open = await withLostReply(h, scriptNaming(`{${p.wallet}}:ticket`), () =>
    send(host, p, 'POST', '/protocol/v1/sweeper/ticket', { mode: 'easy', sessionPubkey: p.client.session.publicKey, wager: 0.01 }),
  );
  const session = await p.must('GET', '/protocol/v1/sweeper/session');
  const active = session.activeTicket?.id as string | undefined;
  checks.push({
    name: 'a ticket open whose Redis reply was lost answers 200 with the ticket it opened',
    held: open.sprung && open.res?.status === 200 && open.res.body.ticket?.id === active,
    detail: `${describe(open.res, open.sprung)}; active ticket ${active ?? 'none'}`,
    finding: 'redis-resend',
  });

  // Sign-in: the re-run finds the challenge already consumed.
  const challenge = await send(host, p, 'GET', `/wallet/challenge?wallet=${p.wallet}`);
  const nonce = String(challenge.body.nonce);
  const signIn = await withLostReply(h, scriptNaming(nonce), () =>
    send(host, p, 'POST', '/wallet/session', {
      walletAddress: p.wallet,
      message: challenge.body.message,
      signature: p.client.wallet.sign(Buffer.from(challenge.body.message)),
    }),
  );
  checks.push({
    name: 'a sign-in whose Redis reply was lost answers 200 with a token',
    held: signIn.sprung && signIn.res?.status === 200 && typeof signIn.res.body.token === 'string',
    detail: describe(signIn.res, signIn.sprung),
    finding: 'redis-resend',
  });

  // Leave nothing open: the ticket (known to the service, maybe not to the player) is played to its end.
  const out = emptyRecovery();
  await recoverPlayer(p, out);
  await finishTicket(p, out);
  report.checks.push(...checks, ...recoveryChecks(out));
  return endRound(h, report);
}
