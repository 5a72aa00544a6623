// Finding 5, the small ones: LP round trips that collected rounding, and an Idempotency-Key reused with another amount
// (the first withdrawal came back silently).
import { MICRO_PER_USDC } from '../../../protocol/money.ts';
import { Attacker, wallets } from '../attacker.ts';
import { enterPool, holdings, redeemed, spent, unexplainedLpGain } from '../fair.ts';
import { usdc, type AttackResult } from '../report.ts';
import type { AttackContext } from '../suite.ts';
import { micro, within } from '../target.ts';

/** Odd amounts, so that every deposit and redemption rounds. */
const tripAmount = (i: number): bigint => MICRO_PER_USDC + 333_333n * BigInt(i + 1) + 1n;

export async function lpRoundTrips(ctx: AttackContext, r: AttackResult): Promise<void> {
  const { target, profile } = ctx;
  const lps = await wallets(target, profile.lpRoundTrips, { usdc: 5 });
  const before = await holdings(lps);
  let gain = 0n;
  let paidTotal = 0n;
  let deposited = 0n;
  const trips = await Promise.all(
    lps.map(async (w, i) => {
      const trip = await enterPool(target, w, tripAmount(i));
      const gameNetAfter = (await target.house()).gameNet;
      const usdcBefore = await w.usdcMicro();
      await w.lpRedeem(trip.shares);
      const out = await redeemed(w, usdcBefore);
      if (!out) throw new Error('a round trip was not paid back within 60 s');
      return { trip, out, unexplained: unexplainedLpGain({ ...trip, paid: out.paid, gameNetDelta: gameNetAfter - trip.gameNetBefore }) };
    }),
  );
  for (const { trip, out, unexplained } of trips) {
    gain += unexplained;
    paidTotal += out.paid;
    deposited += trip.deposit;
  }
  r.notes.push(
    `${trips.length} round trips deposited ${usdc(deposited)} USDC and got ${usdc(paidTotal)} back; beyond fair outcomes: ${trips.map((t) => usdc(t.unexplained)).join(', ')} (the issue's run: up to +0.5 USDC each, repeatable)`,
  );
  const cost = spent(before, await holdings(lps));
  r.cost = { usdcMicro: cost.usdcMicro, lamports: cost.lamports };
  r.gain.usdcMicro = gain;
}

export async function idempotencyKeyReuse(ctx: AttackContext, r: AttackResult): Promise<void> {
  const w = await Attacker.create(ctx.target, { usdc: 10, arcade: 10 });
  const before = await holdings([w]);
  const first = await w.withdraw(2, 'reused-key');
  if (first.status !== 200) throw new Error(`withdraw: ${first.status} ${JSON.stringify(first.body)}`);
  const second = await w.withdraw(5, 'reused-key');
  r.checks.push({
    name: 'the same Idempotency-Key with another amount is refused (4xx)',
    held: second.status >= 400 && second.status < 500,
    detail: `${second.status} ${second.body?.error?.code ?? ''} ${second.body?.error?.details?.reason ?? ''}`,
  });
  const settled = await within(60_000, async () => {
    const s = await w.status();
    return micro(s.pendingWithdrawals) === 0n ? s : null;
  });
  if (!settled) throw new Error('the withdrawal was not paid within 60 s');
  const moved = settled.withdrawals.reduce((n: bigint, x: { amount: number }) => n + micro(x.amount), 0n);
  r.checks.push({
    name: 'nothing moved for the refused request',
    held: settled.withdrawals.length === 1 && moved === 2n * MICRO_PER_USDC && micro(settled.balance) === 8n * MICRO_PER_USDC,
    detail: `${settled.withdrawals.length} withdrawal(s) of ${usdc(moved)} USDC; balance ${settled.balance}`,
  });
  const cost = spent(before, await holdings([w]));
  r.cost = { usdcMicro: cost.usdcMicro, lamports: cost.lamports };
  r.gain.usdcMicro = moved - 2n * MICRO_PER_USDC;
}
