// Issue 21, finding 1: an LP's round trip never beats what settled outcomes explain. A model of the house's books that
// makes the ledger scripts' moves with the real pure rules (limits, exposure checks, share prices, Dice and Sweeper
// payouts) runs random interleavings of bets, tickets, turns, reveals, expiries, idle closes, LP deposits and
// redemptions, and checks after every step that opening or closing exposure moves neither NAV nor the supply.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { diceMultiplierBps, dicePayout } from '../../protocol/dice.ts';
import { exposureRefusal, limitsOf, type LimitSettings, type LockedTotals } from '../../protocol/house.ts';
import { freeLiquidity, redemptionValue, sharesForDeposit, VIRTUAL_SHARES } from '../../protocol/lp-shares.ts';
import { SWEEPER_ROWS, sweeperBanked, sweeperOwed, sweeperPayout, sweeperTurnExposure, type SweeperMode } from '../../protocol/sweeper.ts';
import { lockedTotals } from '../helpers/house.ts';

const USDC = 1_000_000n;
const MODES: SweeperMode[] = ['easy', 'medium', 'hard'];

/** An exact rational n / d (d > 0). */
interface Q {
  n: bigint;
  d: bigint;
}
const gcd = (a: bigint, b: bigint): bigint => {
  let [x, y] = [a < 0n ? -a : a, b];
  while (y) [x, y] = [y, x % y];
  return x || 1n;
};
const q = (n: bigint, d: bigint): Q => {
  const g = gcd(n, d);
  return { n: n / g, d: d / g };
};
const add = (a: Q, b: Q): Q => q(a.n * b.d + b.n * a.d, a.d * b.d);
const sub = (a: Q, b: Q): Q => add(a, { n: -b.n, d: b.d });
const times = (a: Q, k: bigint): Q => q(a.n * k, a.d);
const le = (a: Q, b: Q) => a.n * b.d <= b.n * a.d;
const lt = (a: Q, b: Q) => a.n * b.d < b.n * a.d;
const ZERO: Q = { n: 0n, d: 1n };

interface DiceBet {
  wallet: number;
  wager: bigint;
  payout: bigint;
  exposure: bigint;
}
interface Ticket {
  mode: SweeperMode;
  wager: bigint;
  rows: number;
  /** The exposure of the turn in flight, or null. */
  turn: bigint | null;
}

/** What one step did to the books: nothing to NAV or the supply, a settled result, or another LP's flow. */
type Step = { kind: 'skip' } | { kind: 'neutral' } | { kind: 'pnl'; pnl: bigint } | { kind: 'lp' };

/** The ledger's house totals, moved as store/scripts/*.lua move them. */
class Books {
  readonly h: LockedTotals;
  supply: bigint;
  capital: bigint;
  gameNet = 0n;
  lpNet = 0n;
  readonly balance: bigint[];
  readonly walletExposure: bigint[];
  readonly tickets: (Ticket | null)[];
  bets: DiceBet[] = [];
  readonly lpShares: bigint[] = [0n, 0n, 0n];

  constructor(
    capital: bigint,
    balances: bigint[],
    readonly settings: LimitSettings,
  ) {
    const total = balances.reduce((x, y) => x + y, 0n);
    this.h = lockedTotals({ vault: capital + total, balances: total });
    // Genesis mints the bootstrap shares at a price of 1.
    this.supply = capital;
    this.capital = capital;
    this.balance = [...balances];
    this.walletExposure = balances.map(() => 0n);
    this.tickets = balances.map(() => null);
  }

  get limits() {
    return limitsOf(this.h, this.settings);
  }
  get nav() {
    return this.limits.nav;
  }
  /** The value of one share as deposits and redemptions price it. */
  price(): Q {
    return q(this.nav + 1n, this.supply + VIRTUAL_SHARES);
  }

  #reserve(wallet: number, amount: bigint) {
    this.walletExposure[wallet]! += amount;
    this.h.exposure += amount;
  }
  #fits(wallet: number, headroom: bigint, reserve: bigint): boolean {
    const limits = this.limits;
    return limits.nav > 0n && exposureRefusal(limits, { house: this.h.exposure, wallet: this.walletExposure[wallet]! }, { headroom, reserve }) === null;
  }
  #lock(wallet: number, stake: bigint) {
    this.balance[wallet]! -= stake;
    this.h.balances -= stake;
    this.h.staked += stake;
  }
  #settle(wallet: number, stake: bigint, payout: bigint) {
    this.h.staked -= stake;
    this.balance[wallet]! += payout;
    this.h.balances += payout;
    this.gameNet += stake - payout;
  }
  /** A wager up to the smaller of maxBet and the wallet's balance. */
  wagerOf(wallet: number, per1000: number): bigint {
    const cap = this.limits.maxBet < this.balance[wallet]! ? this.limits.maxBet : this.balance[wallet]!;
    return 1n + (cap * BigInt(per1000)) / 1000n;
  }

  commitDice(wallet: number, wager: bigint, count: number): Step {
    const payout = dicePayout(wager, diceMultiplierBps(count));
    const l = this.limits;
    if (wager > this.balance[wallet]! || wager > l.maxBet || payout > l.maxPayout || !this.#fits(wallet, payout - wager, payout - wager))
      return { kind: 'skip' };
    this.#lock(wallet, wager);
    this.#reserve(wallet, payout - wager);
    this.bets.push({ wallet, wager, payout, exposure: payout - wager });
    return { kind: 'neutral' };
  }

  /** A reveal that wins or loses, or the deadline without a seed (a loss). */
  settleDice(index: number, won: boolean): Step {
    const bet = this.bets[index % Math.max(this.bets.length, 1)];
    if (!bet) return { kind: 'skip' };
    this.bets = this.bets.filter((b) => b !== bet);
    this.#reserve(bet.wallet, -bet.exposure);
    const payout = won ? bet.payout : 0n;
    this.#settle(bet.wallet, bet.wager, payout);
    return { kind: 'pnl', pnl: bet.wager - payout };
  }

  openTicket(wallet: number, mode: SweeperMode, wager: bigint): Step {
    if (this.tickets[wallet]) return { kind: 'skip' };
    const full = sweeperPayout(wager, mode, SWEEPER_ROWS);
    const l = this.limits;
    // The full board must fit maxPayout and the headroom under maxExposure; nothing is reserved.
    if (wager > this.balance[wallet]! || wager > l.maxBet || full > l.maxPayout || !this.#fits(wallet, full - wager, 0n)) return { kind: 'skip' };
    this.#lock(wallet, wager);
    this.tickets[wallet] = { mode, wager, rows: 0, turn: null };
    return { kind: 'neutral' };
  }

  commitChoice(wallet: number): Step {
    const t = this.tickets[wallet];
    if (!t || t.turn !== null) return { kind: 'skip' };
    const e = sweeperTurnExposure(t.wager, t.mode, t.rows);
    if (!this.#fits(wallet, e, e)) return { kind: 'skip' };
    this.#reserve(wallet, e);
    t.turn = e;
    return { kind: 'neutral' };
  }

  /** A choice revealed safe or on a mine, or the deadline without a seed (forfeited, as a bust). */
  settleChoice(wallet: number, safe: boolean): Step {
    const t = this.tickets[wallet];
    if (!t || t.turn === null) return { kind: 'skip' };
    this.#reserve(wallet, -t.turn);
    t.turn = null;
    const owedBefore = sweeperOwed(t.wager, t.mode, t.rows);
    this.h.banked -= sweeperBanked(t.wager, t.mode, t.rows);
    if (!safe) {
      this.tickets[wallet] = null;
      this.#settle(wallet, t.wager, 0n);
      return { kind: 'pnl', pnl: owedBefore };
    }
    t.rows += 1;
    if (t.rows === SWEEPER_ROWS) {
      this.tickets[wallet] = null;
      const payout = sweeperPayout(t.wager, t.mode, t.rows);
      this.#settle(wallet, t.wager, payout);
      return { kind: 'pnl', pnl: owedBefore - payout };
    }
    this.h.banked += sweeperBanked(t.wager, t.mode, t.rows);
    return { kind: 'pnl', pnl: owedBefore - sweeperOwed(t.wager, t.mode, t.rows) };
  }

  /** A cashout turn, or the idle close (design §10): the ticket is paid what it is owed, its stake at 0 rows. */
  close(wallet: number, idle: boolean): Step {
    const t = this.tickets[wallet];
    if (!t || t.turn !== null || (!idle && t.rows < 1)) return { kind: 'skip' };
    this.tickets[wallet] = null;
    this.h.banked -= sweeperBanked(t.wager, t.mode, t.rows);
    this.#settle(wallet, t.wager, sweeperOwed(t.wager, t.mode, t.rows));
    return { kind: 'neutral' };
  }

  /** An LP deposit arrives (pending, NAV unchanged), then the keeper mints its shares at NAV before it. */
  lpDeposit(lp: number, amount: bigint, onArrival: () => void): Step {
    if (this.nav <= 0n) return { kind: 'skip' };
    this.h.vault += amount;
    this.h.lpPending += amount;
    onArrival();
    const shares = sharesForDeposit(amount, this.supply, this.nav);
    this.h.lpPending -= amount;
    this.lpNet += amount;
    this.supply += shares;
    this.lpShares[lp]! += shares;
    return { kind: 'lp' };
  }

  /** A redemption valued at the shares' price when free liquidity covers it (else it waits), then paid. */
  lpRedeem(lp: number, per1000: number): { step: Step; value: bigint } {
    const held = this.lpShares[lp]!;
    const shares = per1000 >= 1000 ? held : (held * BigInt(per1000)) / 1000n;
    if (shares <= 0n || this.nav <= 0n) return { step: { kind: 'skip' }, value: 0n };
    const value = redemptionValue(shares, this.supply, this.nav);
    if (value > freeLiquidity(this.nav, this.h.exposure, this.settings.maxExposureBps)) return { step: { kind: 'skip' }, value: 0n };
    this.supply -= shares;
    this.lpShares[lp]! -= shares;
    this.h.lpPayable += value;
    this.lpNet -= value;
    this.h.vault -= value;
    this.h.lpPayable -= value;
    return { step: { kind: 'lp' }, value };
  }

  /** The books balance: what the house owes is what the model holds, and NAV is capital + results − banked payouts. */
  expectBalanced() {
    const openStakes = this.bets.reduce((s, b) => s + b.wager, 0n) + this.tickets.reduce((s, t) => s + (t?.wager ?? 0n), 0n);
    const banked = this.tickets.reduce((s, t) => s + (t ? sweeperBanked(t.wager, t.mode, t.rows) : 0n), 0n);
    const exposure = this.bets.reduce((s, b) => s + b.exposure, 0n) + this.tickets.reduce((s, t) => s + (t?.turn ?? 0n), 0n);
    expect(this.h.balances).toBe(this.balance.reduce((x, y) => x + y, 0n));
    expect([this.h.staked, this.h.banked, this.h.exposure]).toEqual([openStakes, banked, exposure]);
    expect(this.nav).toBe(this.capital + this.gameNet + this.lpNet - this.h.banked);
  }
}

const op = fc.oneof(
  { arbitrary: fc.record({ k: fc.constant('dice' as const), w: fc.nat(3), per1000: fc.nat(1000), count: fc.integer({ min: 100, max: 9800 }) }), weight: 4 },
  { arbitrary: fc.record({ k: fc.constant('reveal' as const), i: fc.nat(50), won: fc.boolean() }), weight: 4 },
  { arbitrary: fc.record({ k: fc.constant('open' as const), w: fc.nat(3), mode: fc.constantFrom(...MODES), per1000: fc.nat(1000) }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant('choice' as const), w: fc.nat(3) }), weight: 3 },
  { arbitrary: fc.record({ k: fc.constant('turn' as const), w: fc.nat(3), safe: fc.boolean() }), weight: 3 },
  { arbitrary: fc.record({ k: fc.constant('close' as const), w: fc.nat(3), idle: fc.boolean() }), weight: 1 },
  { arbitrary: fc.record({ k: fc.constant('deposit' as const), lp: fc.nat(2), amount: fc.bigInt({ min: 1n, max: 2_000_000n * USDC }) }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant('redeem' as const), lp: fc.nat(2), per1000: fc.integer({ min: 1, max: 1000 }) }), weight: 2 },
);

const settings = fc.record({
  maxBetBps: fc.integer({ min: 10, max: 500 }),
  maxPayoutBps: fc.integer({ min: 50, max: 5000 }),
  maxExposureBps: fc.integer({ min: 500, max: 5000 }),
  maxWalletExposureBps: fc.integer({ min: 100, max: 10_000 }),
});

describe('an LP round trip', () => {
  it('never beats its deposit plus its pro-rata share of what settled while it held; opening and closing exposure moves nothing', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1_000n * USDC, max: 2_000_000n * USDC }),
        fc.array(fc.bigInt({ min: 0n, max: 50_000n * USDC }), { minLength: 4, maxLength: 4 }),
        settings,
        fc.array(op, { maxLength: 80 }),
        (capital, balances, limitSettings, ops) => {
          const books = new Books(capital, balances, limitSettings);
          // The target LP (index 0): its deposit, its shares, and what the steps while it held explain.
          let target: { deposit: bigint; shares: bigint; explained: Q } | null = null;
          let done = false;
          for (const o of ops) {
            const before = { nav: books.nav, supply: books.supply, price: books.price() };
            let step: Step;
            let redeemed: bigint | null = null;
            switch (o.k) {
              case 'dice':
                step = books.commitDice(o.w, books.wagerOf(o.w, o.per1000), o.count);
                break;
              case 'reveal':
                step = books.settleDice(o.i, o.won);
                break;
              case 'open':
                step = books.openTicket(o.w, o.mode, books.wagerOf(o.w, o.per1000));
                break;
              case 'choice':
                step = books.commitChoice(o.w);
                break;
              case 'turn':
                step = books.settleChoice(o.w, o.safe);
                break;
              case 'close':
                step = books.close(o.w, o.idle);
                break;
              case 'deposit': {
                if (o.lp === 0 && (target || done)) continue;
                // A deposit waiting to be minted is owed to its depositor: it moves neither NAV nor the price.
                step = books.lpDeposit(o.lp, o.amount, () => expect([books.nav, books.supply]).toEqual([before.nav, before.supply]));
                if (o.lp === 0 && step.kind === 'lp') {
                  target = { deposit: o.amount, shares: books.lpShares[0]!, explained: ZERO };
                  // Minted at most at the price of what was paid in.
                  expect(le(times(books.price(), target.shares), { n: o.amount, d: 1n })).toBe(true);
                  books.expectBalanced();
                  continue;
                }
                break;
              }
              case 'redeem': {
                if (o.lp === 0 && !target) continue;
                const r = books.lpRedeem(o.lp, o.lp === 0 ? 1000 : o.per1000);
                step = r.step;
                if (o.lp === 0 && step.kind === 'lp') redeemed = r.value;
                break;
              }
            }
            books.expectBalanced();
            if (step.kind === 'skip') {
              expect([books.nav, books.supply]).toEqual([before.nav, before.supply]);
              continue;
            }
            if (step.kind === 'neutral') {
              // Bets, tickets and turns opened or closed at what is owed: NAV and the supply stay as they were.
              expect([books.nav, books.supply]).toEqual([before.nav, before.supply]);
              continue;
            }
            if (step.kind === 'pnl') {
              // A settled result moves NAV by exactly itself, so every share's value by its pro-rata part.
              expect([books.nav, books.supply]).toEqual([before.nav + step.pnl, before.supply]);
              if (target) target.explained = add(target.explained, q(target.shares * step.pnl, before.supply + VIRTUAL_SHARES));
              continue;
            }
            if (redeemed !== null && target) {
              // The target's exit: at most its deposit plus what the steps while it held explain.
              expect(le({ n: redeemed - target.deposit, d: 1n }, target.explained)).toBe(true);
              target = null;
              done = true;
              continue;
            }
            // Another LP's deposit or redemption never lowers the price, and raises the target's part by under one
            // share's price (the rounding the pool keeps).
            const rise = sub(books.price(), before.price);
            expect(le(ZERO, rise)).toBe(true);
            if (target) {
              const gain = times(rise, target.shares);
              expect(lt(gain, add(before.price, { n: 1n, d: 1n }))).toBe(true);
              target.explained = add(target.explained, gain);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('replays finding 1: exposure opened, a deposit, the bets lose, and the redemption gains only its share of the losses', () => {
    // The attack as run: 23 unrevealed 99x Dice bets from two wallets (2,004 USDC staked) against 1,000,000 USDC of
    // capital, with no per-wallet share, so they hold about 196,400 USDC of exposure.
    const books = new Books(1_000_000n * USDC, [1_100n * USDC, 1_100n * USDC, 1_000n * USDC, 0n], {
      maxBetBps: 50,
      maxPayoutBps: 100,
      maxExposureBps: 2500,
      maxWalletExposureBps: 10_000,
    });
    books.lpDeposit(1, 1_000n * USDC, () => {});
    const price = books.price();
    const wager = 87_130_434n;
    for (let i = 0; i < 23; i++) expect(books.commitDice(i % 2, wager, 100)).toEqual({ kind: 'neutral' });
    expect(books.h.exposure).toBe(23n * (dicePayout(wager, diceMultiplierBps(100)) - wager));
    expect(books.h.exposure).toBeGreaterThan(196_000n * USDC);
    // The price did not move, so an honest LP leaving now gets what it would have got without the bets.
    expect(books.price()).toEqual(price);
    const honest = books.lpRedeem(1, 1000).value;
    expect(honest).toBe(999_999_999n);

    const deposit = 1_000_000n * USDC;
    books.lpDeposit(0, deposit, () => {});
    const shares = books.lpShares[0]!;
    const supply = books.supply;
    let lost = 0n;
    while (books.bets.length) {
      const step = books.settleDice(0, false);
      if (step.kind === 'pnl') lost += step.pnl;
    }
    expect(lost).toBe(23n * wager);
    const value = books.lpRedeem(0, 1000).value;
    // It gets its share of the losses, never more: about half of them, where the attack as run took 111,380 USDC.
    expect(value - deposit).toBeLessThanOrEqual((shares * lost) / (supply + VIRTUAL_SHARES));
    expect(value - deposit).toBeGreaterThan(0n);
    // The attacker staked and lost the bets: the round trip plus the bets is a loss.
    expect(value - deposit - lost).toBeLessThan(0n);
  });
});
