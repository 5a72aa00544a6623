// Finding 3: dust withdrawals drained the keeper's SOL and jammed the payout queue. Withdrawals below any minimum;
// withdrawals to a wallet whose USDC account is closed (the keeper paid to create it, the attacker closed it for the
// rent); and one wallet's backlog queued ahead of another wallet's payout.
import { MICRO_PER_USDC } from '../../../protocol/money.ts';
import { Attacker } from '../attacker.ts';
import { holdings, spent } from '../fair.ts';
import type { AttackResult } from '../report.ts';
import type { AttackContext } from '../suite.ts';
import { micro, within } from '../target.ts';
import { sleep } from '../../ports.ts';

/**
 * How many of one wallet's payouts may land between another wallet's request and its payout: the keeper pass already
 * in flight (up to 32 sends, README "Payout order"), then the wallet's one turn in the round-robin round ahead of it.
 */
export const FAIR_AHEAD = 33;
const PAYOUT_TIMEOUT_MS = 120_000;
/** Long enough for the keeper's scheduler (every 500 ms) to have taken a pass. */
const KEEPER_PASS_MS = 2_000;

/** Waits until none of the wallet's withdrawals is pending or sent. @returns its withdrawals, newest first */
async function settled(w: Attacker, timeoutMs = PAYOUT_TIMEOUT_MS): Promise<{ id: string; status: string; signature?: string }[]> {
  const done = await within(timeoutMs, async () => {
    const s = await w.status();
    return micro(s.pendingWithdrawals) === 0n ? s.withdrawals : null;
  });
  if (!done) throw new Error(`the withdrawals of ${w.address} did not settle within ${timeoutMs} ms`);
  return done;
}

/** Sends one withdrawal and waits until it is finalized. @returns its seconds and payout signature */
async function timedWithdrawal(w: Attacker, key: string): Promise<{ id: string; seconds: number; signature: string }> {
  const t0 = Date.now();
  const res = await w.withdraw(1, key);
  if (res.status !== 200) throw new Error(`withdraw: ${res.status} ${JSON.stringify(res.body)}`);
  const id = res.body.withdrawal.id as string;
  const done = await within(PAYOUT_TIMEOUT_MS, async () =>
    (await w.status()).withdrawals.find((x: { id: string; status: string }) => x.id === id && x.status === 'finalized'),
  );
  if (!done) throw new Error(`withdrawal ${id} was not finalized within ${PAYOUT_TIMEOUT_MS} ms`);
  return { id, seconds: (Date.now() - t0) / 1000, signature: done.signature };
}

export async function dustWithdrawals(ctx: AttackContext, r: AttackResult): Promise<void> {
  const { target, profile } = ctx;
  const w = await Attacker.create(target, { usdc: 5, arcade: 5 });
  const before = await holdings([w]);
  const keeper = await target.keeperReading();
  const amounts: unknown[] = [...Array.from({ length: profile.dustRequests }, () => 0.000001), 0.5, '0.999999'];
  const answers = await Promise.all(amounts.map((amount, i) => w.withdraw(amount, `dust-${i}`)));
  const wrong = answers.filter((a) => a.status !== 400 || a.body?.error?.code !== 'INVALID_BET_AMOUNT' || typeof a.body?.error?.details?.minimum !== 'number');
  r.checks.push({
    name: 'every withdrawal below the minimum is refused with INVALID_BET_AMOUNT and the minimum in details',
    held: wrong.length === 0,
    detail: wrong.length
      ? `${wrong.length} of ${answers.length} answered otherwise, e.g. ${wrong[0]!.status} ${JSON.stringify(wrong[0]!.body).slice(0, 200)}`
      : `${answers.length} refused, details.minimum ${answers[0]?.body.error.details.minimum} USDC`,
  });
  await sleep(KEEPER_PASS_MS);
  const keeperSpent = await target.keeperSpend(keeper);
  const status = await w.status();
  r.checks.push({
    name: 'nothing moved: no withdrawal recorded, no keeper transaction',
    held: status.withdrawals.length === 0 && keeperSpent.sends === 0 && keeperSpent.lost === 0n,
    detail: `${status.withdrawals.length} withdrawals, ${keeperSpent.sends} keeper transactions, keeper SOL −${keeperSpent.lost} lamports`,
  });
  r.notes.push(
    `the issue's run: 300 dust withdrawals (0.0003 USDC in all) each cost the keeper a transaction and delayed another user's payout from 0.4 s to 38 s`,
  );
  const cost = spent(before, await holdings([w]));
  r.cost = { usdcMicro: cost.usdcMicro, lamports: cost.lamports };
  r.gain.lamports = keeperSpent.lost;
}

export async function rentFromTheKeeper(ctx: AttackContext, r: AttackResult): Promise<void> {
  const { target, profile } = ctx;
  const funds = profile.rentCycles + profile.rentRaces + 2;
  const w = await Attacker.create(target, { usdc: funds, arcade: funds });
  // The faucet paid the rent of the wallet's USDC account: the attacker makes it its own before counting.
  await w.closeUsdcAccount();
  await w.openUsdcAccount();
  const before = await holdings([w]);
  const keeper = await target.keeperReading();
  // Asked with the account already closed: the keeper would have had to create it.
  await w.closeUsdcAccount();
  const refusals: string[] = [];
  for (let i = 0; i < profile.rentCycles; i++) {
    const refused = await w.withdraw(1, `closed-${i}`);
    refusals.push(`${refused.status} ${refused.body?.error?.code} ${refused.body?.error?.details?.reason ?? ''}`);
  }
  await w.openUsdcAccount();
  r.checks.push({
    name: 'a withdrawal to a wallet without its USDC account is refused (no_token_account)',
    held: refusals.every((x) => x.startsWith('400 GAME_INPUT_REJECTED no_token_account')),
    detail: `${refusals.length}× ${[...new Set(refusals)].join(', ')}`,
  });
  // Asked with the account open, closed right after: the keeper finds it gone when it pays.
  const outcomes: string[] = [];
  for (let i = 0; i < profile.rentRaces; i++) {
    const asked = await w.withdraw(1, `closed-after-${i}`);
    if (asked.status !== 200) throw new Error(`withdraw: ${asked.status} ${JSON.stringify(asked.body)}`);
    await w.closeUsdcAccount();
    const list = await settled(w);
    outcomes.push(list.find((x) => x.id === asked.body.withdrawal.id)?.status ?? 'missing');
    await w.openUsdcAccount();
  }
  const keeperSpent = await target.keeperSpend(keeper);
  if (outcomes.length)
    r.notes.push(`${outcomes.length} accounts closed right after asking: ${outcomes.map((o) => (o === 'finalized' ? 'paid before the close' : o)).join(', ')}`);
  r.notes.push(
    `the keeper sent ${keeperSpent.sends} transactions for ${keeperSpent.fees} lamports of fees, and paid ${keeperSpent.beyondFees} lamports beyond fees (the issue's run: about 0.002 SOL of account rent per cycle)`,
  );
  const cost = spent(before, await holdings([w]));
  r.cost = { usdcMicro: cost.usdcMicro, lamports: cost.lamports };
  r.gain.lamports = keeperSpent.beyondFees;
}

export async function backlogAheadOfOthers(ctx: AttackContext, r: AttackResult): Promise<void> {
  const { target, profile } = ctx;
  const victim = await Attacker.create(target, { usdc: 2, arcade: 2 });
  const heavy = await Attacker.create(target, { usdc: profile.backlog, arcade: profile.backlog });
  const baseline = await timedWithdrawal(victim, 'alone');
  const before = await holdings([heavy]);
  const keeper = await target.keeperReading();

  const t0 = Date.now();
  for (let i = 0; i < profile.backlog; i += 8) {
    const batch = await Promise.all(Array.from({ length: Math.min(8, profile.backlog - i) }, (_, j) => heavy.withdraw(1, `backlog-${i + j}`)));
    const bad = batch.find((b) => b.status !== 200);
    if (bad) throw new Error(`backlog withdrawal: ${bad.status} ${JSON.stringify(bad.body)}`);
  }
  const queuedIn = (Date.now() - t0) / 1000;
  const bookmark = await target.keeperBookmark();
  const unpaid = micro((await heavy.status()).pendingWithdrawals) / MICRO_PER_USDC;
  const victimPayout = await timedWithdrawal(victim, 'behind-backlog');
  const landed = (await target.keeperHistory(bookmark)).filter((x) => !x.failed).map((x) => x.signature);
  const ahead = landed.indexOf(victimPayout.signature);
  r.notes.push(
    `one wallet queued ${profile.backlog} withdrawals of 1 USDC in ${queuedIn.toFixed(1)} s; ${unpaid} were still unpaid when another wallet asked for 1 USDC`,
    `that payout landed after ${ahead} of the backlog's, in ${victimPayout.seconds.toFixed(1)} s (alone: ${baseline.seconds.toFixed(1)} s); the issue's run: 0.4 s → 38 s behind 300 dust withdrawals`,
  );
  if (ahead < 0 || ahead > FAIR_AHEAD)
    r.blocked = `another wallet's payout waited behind ${ahead} of one wallet's ${unpaid} queued payouts (fair: at most ${FAIR_AHEAD})`;
  r.gain.delaySec = Math.max(0, victimPayout.seconds - baseline.seconds);
  await settled(heavy);
  const keeperSpent = await target.keeperSpend(keeper);
  r.notes.push(
    `the keeper paid ${keeperSpent.fees} lamports of fees for ${keeperSpent.sends} payouts: the minimum makes each cost the attacker 1 USDC of its own money held out of play`,
  );
  const cost = spent(before, await holdings([heavy]));
  r.cost = { usdcMicro: cost.usdcMicro, lamports: cost.lamports };
  r.gain.lamports = keeperSpent.beyondFees;
}
