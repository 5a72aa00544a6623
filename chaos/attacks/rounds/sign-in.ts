// Finding 5, the sign-in and key ones: a stranger voiding a wallet's sign-in challenge by asking for more, an agent's
// service-held session key used on REST outside the agent limits, and a bearer token that could not be revoked.
import { request } from 'node:http';
import { newKeypair, sign } from '../../../test/helpers/player.ts';
import { Attacker, describeRefusal, isRefusal } from '../attacker.ts';
import type { AttackResult } from '../report.ts';
import type { AttackContext } from '../suite.ts';
import { micro, within } from '../target.ts';
import { sleep } from '../../ports.ts';

/** A GET on a connection of its own, so that requests spread over the service's API processes. */
function freshGet(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

export async function strangerVoidsChallenge(ctx: AttackContext, r: AttackResult): Promise<void> {
  const api = ctx.target.api;
  const owner = newKeypair();
  const challenge = async () => (await (await fetch(`${api}/wallet/challenge?wallet=${owner.publicKey}`)).json()) as { message: string };
  const mine = await challenge();
  // The stranger asks for many more challenges for the same wallet (the issue's run: 8 voided the owner's).
  const strangers = 32;
  for (let i = 0; i < strangers; i++) await challenge();
  const res = await fetch(`${api}/wallet/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ walletAddress: owner.publicKey, message: mine.message, signature: sign(owner.seed, new TextEncoder().encode(mine.message)) }),
  });
  const body = (await res.json()) as { error?: { code?: string } };
  r.checks.push({
    name: 'the owner signs in with its challenge after a stranger asked for more for its wallet',
    held: res.status === 200,
    detail: `${strangers} challenges asked by a stranger, then the owner's sign-in: ${res.status} ${body.error?.code ?? ''}`.trim(),
  });
  if (res.status !== 200) r.blocked = `a wallet's sign-in was voided by a stranger asking for ${strangers} challenges`;
}

export async function agentKeyOnRest(ctx: AttackContext, r: AttackResult): Promise<void> {
  const w = await Attacker.create(ctx.target, { usdc: 20, arcade: 10 });
  const key = await w.get('/protocol/v1/player/agent-key');
  if (key.status !== 200) throw new Error(`agent-key: ${key.status} ${JSON.stringify(key.body)}`);
  const agentKey = key.body.sessionPubkey as string;
  // The wallet authorizes the agent's key as the README says, with the setup transaction.
  await w.setup(5, agentKey);
  const authorized = await within(30_000, async () => (await w.get('/protocol/v1/player/agent-key')).body.authorized === true);
  if (!authorized) throw new Error('the agent key was not authorized');
  const before = await w.status();
  // Stakes far over the agent's limit (AGENT_MAX_BET 0.05), through REST, naming the agent's key.
  const ticket = await w.post('/protocol/v1/sweeper/ticket', { mode: 'hard', sessionPubkey: agentKey, wager: 5 });
  const dice = await w.prepareDice({ wager: 5, target: 50, sessionPubkey: agentKey });
  const answers = [
    { what: 'a 5 USDC ticket', status: ticket.status, reason: ticket.body?.error?.details?.reason },
    { what: 'a 5 USDC Dice prepare', status: dice.res.status, reason: dice.res.body?.error?.details?.reason },
  ];
  for (const a of answers) {
    r.checks.push({
      name: `${a.what} over REST with the agent's key is refused (agent_key_rest_forbidden)`,
      held: a.status === 400 && a.reason === 'agent_key_rest_forbidden',
      detail: `${a.status} ${a.reason ?? ''}`.trim(),
    });
  }
  const after = await w.status();
  const outside = micro(after.stakedInPlay) - micro(before.stakedInPlay);
  r.notes.push(`staked outside the agent limits: ${outside} micro-USDC (the issue's run: REST tickets of any size with the agent's key)`);
  // The wallet's own key still plays over REST.
  const own = await w.commit99x(10_000n);
  r.checks.push({ name: "the wallet's own key still plays over REST", held: !isRefusal(own), detail: isRefusal(own) ? describeRefusal(own) : 'committed' });
  if (!isRefusal(own)) await w.reveal(own);
  r.gain.usdcMicro = 0n;
  if (outside !== 0n) r.checks.push({ name: 'nothing staked outside the agent limits', held: false, detail: `${outside} micro-USDC` });
}

export async function revokedToken(ctx: AttackContext, r: AttackResult): Promise<void> {
  const w = await Attacker.create(ctx.target, { usdc: 1, sol: 0 });
  const url = `${ctx.target.api}/protocol/v1/player/status`;
  const token = w.token;
  // Every API process has seen (and cached) the token: fresh connections spread over them.
  const warm = await Promise.all(Array.from({ length: 16 }, () => freshGet(url, token)));
  if (warm.some((s) => s !== 200)) throw new Error(`the token did not work before its revocation: ${warm.join(', ')}`);
  const revoked = await fetch(`${ctx.target.api}/wallet/session`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
  const t0 = Date.now();
  const allowedMs = 1_000;
  let lastAccepted = -1;
  while (Date.now() - t0 < allowedMs) {
    const answers = await Promise.all(Array.from({ length: 8 }, () => freshGet(url, token)));
    if (answers.some((s) => s === 200)) lastAccepted = Date.now() - t0;
    await sleep(50);
  }
  const after = await Promise.all(Array.from({ length: 16 }, () => freshGet(url, token)));
  r.checks.push({
    name: 'DELETE /api/wallet/session revokes the token',
    held: revoked.status === 200,
    detail: `${revoked.status}`,
  });
  r.checks.push({
    name: `the revoked token fails within 1 s on every API process (${ctx.apiProcesses})`,
    held: after.every((s) => s === 401),
    detail: `${allowedMs} ms after the revocation: ${[...new Set(after)].map((s) => `${after.filter((x) => x === s).length}× ${s}`).join(', ')}; last accepted ${lastAccepted < 0 ? 'never after the DELETE' : `${lastAccepted} ms after it`}`,
  });
}
