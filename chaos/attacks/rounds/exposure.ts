// Finding 2: a few wallets holding exposure stopped all betting and every LP exit. Wallets hold all the exposure they
// are allowed (a hard ticket's choice turn left unrevealed, then 99x Dice bets until refused) while a bystander plays
// a 1 USDC Dice bet and a 0.1 USDC ticket and an honest LP leaves; tickets closed idle are reopened at once.
import { formatMicro, MICRO_PER_USDC } from '../../../protocol/money.ts';
import { sweeperPayout, sweeperTurnExposure } from '../../../protocol/sweeper.ts';
import { Attacker, describeRefusal, isRefusal, type OpenBet, wallets } from '../attacker.ts';
import { deadlineSeconds, fillWithDice, hardTicketStake, staked } from '../exposure-fill.ts';
import { enterPool, holdings, redeemed, roundingTolerance, spent, unexplainedLpGain } from '../fair.ts';
import { usdc, type AttackResult } from '../report.ts';
import type { Attempt, AttackContext } from '../suite.ts';
import { within } from '../target.ts';

const DAY_S = 86_400;
/** The games' edge: every play returns 99% of its stake on average (design §4), so holding a stake costs 1%. */
const EDGE_BPS = 100n;
const REDEEM_TIMEOUT_MS = 60_000;

const pct = (part: bigint, whole: bigint): string => (whole > 0n ? `${(Number((part * 10_000n) / whole) / 100).toFixed(2)}%` : '-');

/** A bystander's small plays: a 1 USDC 99x Dice bet and a 0.1 USDC hard ticket, each played to its end. */
async function bystanderPlays(ctx: AttackContext): Promise<{ refused: string[]; notes: string[] }> {
  const b = await Attacker.create(ctx.target, { usdc: 10, arcade: 10 });
  const refused: string[] = [];
  const notes: string[] = [];
  const t0 = Date.now();
  const bet = await b.commit99x(MICRO_PER_USDC);
  if (isRefusal(bet)) refused.push(`a 1 USDC Dice bet: ${describeRefusal(bet)}`);
  else {
    await b.reveal(bet);
    notes.push(`a bystander's 1 USDC 99x Dice bet went through (reveal deadline ${deadlineSeconds(bet)} s) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const opened = await b.openTicket('hard', 0.1);
  if (opened.status !== 200) refused.push(`a 0.1 USDC ticket: ${opened.status} ${opened.body?.error?.code} ${opened.body?.error?.details?.reason ?? ''}`);
  else {
    const turn = await b.commitChoice(opened.body.ticket.id, 0, 1, 100_000n);
    if (isRefusal(turn)) refused.push(`the 0.1 USDC ticket's first turn: ${describeRefusal(turn)}`);
    else {
      const after = await b.revealTurn(turn);
      if (after.status === 'running') await b.cashOut(after.id);
      notes.push(`a bystander's 0.1 USDC hard ticket opened and played (${after.rowsWon ? 'won its row, cashed out' : 'lost its row'})`);
    }
  }
  return { refused, notes };
}

/**
 * Holds what one wallet may: a hard ticket with a choice turn in flight, then 99x Dice bets until refused. A ticket or
 * turn the service refuses is noted, not fatal: a house already full is what the bystander's plays then show.
 */
async function holdShare(ctx: AttackContext, w: Attacker, stake: bigint) {
  const opened = await w.openTicket('hard', formatMicro(stake));
  let turn: OpenBet | null = null;
  let turnExposure: bigint | null = null;
  let refused: string | null = null;
  if (opened.status !== 200) refused = `ticket open: ${opened.status} ${opened.body?.error?.details?.reason ?? opened.body?.error?.code}`;
  else {
    const before = await w.exposure();
    const committed = await w.commitChoice(opened.body.ticket.id, 0, 0, stake);
    if (isRefusal(committed)) refused = `choice turn: ${describeRefusal(committed)}`;
    else {
      turn = committed;
      turnExposure = (await w.exposure()) - before;
    }
  }
  const dice = await fillWithDice(ctx.target, w);
  return { w, turn, turnExposure, refused, ...dice };
}

export async function holdAllExposure(ctx: AttackContext, r: AttackResult, also: (finding: number, attack: string) => AttackResult): Promise<void> {
  const { target, profile } = ctx;
  const turnRow = also(2, 'unrevealed Sweeper choice turn');
  const lpUsdc = profile.honestLpDeposit * 10;
  const honest = await Attacker.create(target, { usdc: lpUsdc });
  const honestTrip = await enterPool(target, honest, BigInt(lpUsdc) * MICRO_PER_USDC);

  const holders = await wallets(target, profile.holders, { usdc: profile.holderUsdc, arcade: profile.holderUsdc });
  const before = await holdings(holders);
  const stake = await hardTicketStake(target);
  const held: Awaited<ReturnType<typeof holdShare>>[] = [];
  for (let i = 0; i < holders.length; i += 5) held.push(...(await Promise.all(holders.slice(i, i + 5).map((w) => holdShare(ctx, w, stake)))));
  const house = await target.house();
  const bets = held.flatMap((h) => h.bets);
  const withTurn = held.flatMap((h) => (h.turn && h.turnExposure !== null ? [{ ...h, turn: h.turn, turnExposure: h.turnExposure }] : []));
  const turns = withTurn.map((h) => h.turn);
  const all: OpenBet[] = [...bets, ...turns];
  const stops = [...new Set(held.map((h) => h.stoppedBy.reason ?? h.stoppedBy.code))];
  r.notes.push(
    `${holders.length} wallets of ${profile.holderUsdc} USDC hold ${usdc(house.openExposure)} USDC of exposure, ${pct(house.openExposure, house.maxExposure)} of maxExposure ${usdc(house.maxExposure)}: ${turns.length} hard-ticket turns and ${bets.length} 99x Dice bets, each wallet stopped by ${stops.join(', ')}`,
  );
  const refusals = held.flatMap((h) => (h.refused ? [h.refused] : []));
  if (refusals.length) r.notes.push(`refused to holders: ${refusals.join('; ')}`);

  // What holding it costs: the house edge on its stakes, once per reveal deadline the acks signed.
  const short = all.filter((b) => deadlineSeconds(b) < DAY_S);
  const period = short.length ? Math.max(...short.map(deadlineSeconds)) : DAY_S;
  const shortStakes = staked(short);
  const perPeriod = (shortStakes * EDGE_BPS) / 10_000n;
  const longStakes = staked(all) - shortStakes;
  r.notes.push(
    `holding it takes ${usdc(staked(all))} USDC of stakes; ${short.length} of ${all.length} were committed while exposure was scarce and signed a ${period} s reveal deadline: ` +
      `keeping them open means settling and recommitting ${usdc(shortStakes)} USDC every ${period} s, an expected ${usdc(perPeriod)} USDC each time (${usdc((perPeriod * BigInt(DAY_S)) / BigInt(period))} USDC a day); ` +
      `the other ${all.length - short.length} hold 24 h for ${usdc((longStakes * EDGE_BPS) / 10_000n)} USDC a day (the issue's run: 795 USDC of idle tickets held all of maxExposure for free)`,
  );

  const bystander = await bystanderPlays(ctx);
  r.notes.push(...bystander.notes);
  if (bystander.refused.length) r.blocked = `a bystander was refused: ${bystander.refused.join('; ')}`;

  const tolerance = await roundingTolerance(target);
  const usdcBefore = await honest.usdcMicro();
  const gameNetAfter = (await target.house()).gameNet;
  await honest.lpRedeem(honestTrip.shares);
  const exit = await redeemed(honest, usdcBefore, REDEEM_TIMEOUT_MS);
  if (!exit) r.blocked = `${r.blocked ? `${r.blocked}; ` : ''}an honest LP's exit of ${lpUsdc} USDC was not paid within ${REDEEM_TIMEOUT_MS / 1000} s`;
  else {
    const unexplained = unexplainedLpGain({ ...honestTrip, paid: exit.paid, gameNetDelta: gameNetAfter - honestTrip.gameNetBefore });
    r.checks.push({
      name: 'an honest LP leaving while the exposure is held is paid its fair value',
      held: unexplained >= -tolerance,
      detail: `paid ${usdc(exit.paid)} for ${usdc(honestTrip.deposit)} in ${exit.seconds.toFixed(1)} s (beyond fair outcomes: ${usdc(unexplained)})`,
    });
  }

  const fullBoard = sweeperPayout(stake, 'hard', 8) - stake;
  const turnDeadlines = [...new Set(turns.map(deadlineSeconds))].map((d) => `${turns.filter((t) => deadlineSeconds(t) === d).length}× ${d} s`);
  if (withTurn[0]) {
    turnRow.notes.push(
      `a hard ticket of ${usdc(stake)} USDC with its first choice turn committed and never revealed holds ${usdc(withTurn[0].turnExposure)} USDC (the turn's increment; its full board would be ${usdc(fullBoard)}), counted in the wallet's share, until its reveal deadline (${turnDeadlines.join(', ')}: short once exposure is scarce)`,
      `keeping it open costs the edge on ${usdc(stake)} once per deadline: ${usdc((stake * EDGE_BPS) / 10_000n)} USDC each time (the issue's run: the turn and its whole board held for 24 h)`,
    );
  }
  turnRow.checks.push({
    name: 'a choice turn in flight holds only its own increment',
    held: withTurn.length > 0 && withTurn.every((h) => h.turnExposure === sweeperTurnExposure(stake, 'hard', 0)),
    detail: withTurn.length ? withTurn.map((h) => usdc(h.turnExposure)).join(', ') : 'no turn was committed',
  });

  // The holders let go: every bet and turn revealed, won tickets cashed out.
  for (const h of held) {
    for (const bet of h.bets) await h.w.reveal(bet);
    if (!h.turn) continue;
    const after = await h.w.revealTurn(h.turn);
    if (after.status === 'running') await h.w.cashOut(after.id);
  }
  const cost = spent(before, await holdings(holders));
  r.cost = { usdcMicro: cost.usdcMicro, lamports: cost.lamports };
  turnRow.cost = { usdcMicro: (stake * EDGE_BPS) / 10_000n, lamports: 0n };
  turnRow.notes.push('cost: the expected edge of one turn (it settled with the rest above)');
}

export async function idleCloseReopen(ctx: AttackContext, r: AttackResult): Promise<void> {
  const { target, profile } = ctx;
  const stake = await hardTicketStake(target);
  let openers = ctx.idleTicketWallets;
  if (!openers) {
    // Run alone: open tickets and let them close idle first.
    openers = await wallets(target, 2, { usdc: Number(stake / MICRO_PER_USDC) + 1, arcade: Number(stake / MICRO_PER_USDC) + 1 });
    for (const w of openers) await w.openTicket('hard', formatMicro(stake));
  }
  const closedAt = await within(profile.ticketIdleMs + 30_000, async () => {
    const sessions = await Promise.all(openers.map(async (w) => (await w.get('/protocol/v1/sweeper/session')).body));
    return sessions.every((s) => s.activeTicket === null) ? Date.now() : null;
  });
  if (!closedAt) throw new Error('the idle tickets were not closed');
  const before = await holdings(openers);
  const reopened = await Promise.all(openers.map((w) => w.openTicket('hard', formatMicro(stake))));
  const ok = reopened.filter((o) => o.status === 200).length;
  const [house, exposures] = await Promise.all([target.house(), Promise.all(openers.map((w) => w.exposure()))]);
  r.notes.push(
    `${ok} of ${openers.length} tickets reopened within ${((Date.now() - closedAt) / 1000).toFixed(1)} s of their idle close (TICKET_IDLE_MS ${profile.ticketIdleMs}); together they hold ${usdc(exposures.reduce((a, b) => a + b, 0n))} USDC of exposure, the house ${usdc(house.openExposure)}`,
    'an idle ticket reserves nothing (only a turn in flight does), so a free reopen holds nothing: the stake comes back at each idle close',
  );
  r.checks.push({
    name: 'a ticket reopened right after its idle close holds no exposure',
    held: exposures.every((e) => e === 0n),
    detail: exposures.map(usdc).join(', '),
  });
  const bystander = await bystanderPlays(ctx);
  r.notes.push(...bystander.notes);
  if (bystander.refused.length) r.blocked = `a bystander was refused: ${bystander.refused.join('; ')}`;
  const cost = spent(before, await holdings(openers));
  r.cost = { usdcMicro: cost.usdcMicro, lamports: cost.lamports };
}

export const holdExposure: Attempt[] = [
  { finding: 2, attack: 'tickets reopened right after their idle close', run: idleCloseReopen },
  { finding: 2, attack: 'wallets holding all the exposure they may', run: holdAllExposure },
];
