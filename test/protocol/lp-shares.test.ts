import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  LpError,
  VIRTUAL_SHARES,
  freeLiquidity,
  positionAfterDeposit,
  positionAfterRedeem,
  positionView,
  redeemFromPosition,
  redemptionValue,
  sharesForDeposit,
  type LpPosition,
} from '../../protocol/lp-shares.ts';

const USDC = 1_000_000n;
// Genesis mints at least 1 USDC of bootstrap shares to the house (chain/genesis.ts), at a price of 1.
const bootstrap = fc.bigInt({ min: USDC, max: 10n ** 13n });
const amount = fc.oneof(fc.bigInt({ min: 1n, max: 10_000n }), fc.bigInt({ min: 1n, max: 10n ** 13n }));
const donation = fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 10_000n }), fc.bigInt({ min: 1n, max: 10n ** 14n }));

/** A pool: `supply` shares outstanding (bootstrap included) over `nav`. */
interface Pool {
  supply: bigint;
  nav: bigint;
}

function deposit(pool: Pool, a: bigint): bigint {
  const s = sharesForDeposit(a, pool.supply, pool.nav);
  pool.supply += s;
  pool.nav += a;
  return s;
}

function redeem(pool: Pool, s: bigint): bigint {
  if (s === 0n) return 0n;
  const v = redemptionValue(s, pool.supply, pool.nav);
  pool.supply -= s;
  pool.nav -= v;
  return v;
}

describe('LP share formulas', () => {
  it('follow the pinned formulas: deposits and redemptions at one price, with the same virtual offset', () => {
    expect(sharesForDeposit(1_000_000n, 1_000_000_000n, 1_000_000_000n)).toBe(1_000_999n);
    expect(sharesForDeposit(5n * USDC, 10n * USDC, 20n * USDC)).toBe((5n * USDC * (10n * USDC + VIRTUAL_SHARES)) / (20n * USDC + 1n));
    // floor(shares × (NAV + 1) / (supply + 10^6))
    expect(redemptionValue(USDC, 10n * USDC, 20n * USDC)).toBe(1_818_181n);
    expect(redemptionValue(7n * USDC, 7n * USDC, 10n * USDC)).toBe(8_750_000n);
    expect(redemptionValue(3n, 7n, 10n)).toBe(0n);
  });

  it('pay a round trip back with no gain (finding 5 of issue 21: it used to gain up to 0.5 USDC)', () => {
    const roundTrip = (supply: bigint, nav: bigint, a: bigint) => {
      const pool = { supply, nav };
      return redeem(pool, deposit(pool, a)) - a;
    };
    const M = 10n ** 12n; // 1,000,000 USDC: the default bootstrap capital, shares at a price of 1
    expect([USDC, 1_000n * USDC, M].map((a) => roundTrip(M, M, a))).toEqual([-1n, -1n, -1n]);
    expect(roundTrip(USDC, USDC, USDC)).toBe(-1n); // 1 USDC of bootstrap capital
    expect(roundTrip(M, 2n * M, 2n * M)).toBe(-1n); // a share price of 2
  });

  it('stop while NAV is not positive and refuse nonsense', () => {
    expect(() => sharesForDeposit(USDC, USDC, 0n)).toThrow(LpError);
    expect(() => sharesForDeposit(USDC, USDC, -5n)).toThrow(expect.objectContaining({ reason: 'nav_not_positive' }));
    expect(() => sharesForDeposit(0n, USDC, USDC)).toThrow(expect.objectContaining({ reason: 'invalid_amount' }));
    expect(() => redemptionValue(0n, USDC, USDC)).toThrow(expect.objectContaining({ reason: 'invalid_shares' }));
    expect(() => redemptionValue(USDC + 1n, USDC, USDC)).toThrow(expect.objectContaining({ reason: 'invalid_shares' }));
    expect(() => redemptionValue(USDC, USDC, 0n)).toThrow(expect.objectContaining({ reason: 'nav_not_positive' }));
  });

  it('never pay a round trip more than went in, and lose at most one share’s price plus one micro-USDC to rounding', () => {
    fc.assert(
      fc.property(bootstrap, fc.bigInt({ min: 1n, max: 10n ** 14n }), amount, (supply, nav, a) => {
        const pool = { supply, nav };
        const price = (nav + 1n + supply + VIRTUAL_SHARES - 1n) / (supply + VIRTUAL_SHARES);
        const gain = redeem(pool, deposit(pool, a)) - a;
        expect(gain).toBeLessThanOrEqual(0n);
        expect(gain).toBeGreaterThanOrEqual(-(price + 1n));
      }),
      { numRuns: 2000 },
    );
  });

  it('keep a first depositor from inflating the price to take a later depositor’s value', () => {
    fc.assert(
      fc.property(bootstrap, amount, donation, amount, fc.boolean(), (boot, x, d, a, attackerFirst) => {
        const pool = { supply: boot, nav: boot };
        const attackerShares = deposit(pool, x);
        // The attacker raises NAV without minting (losing bets on purpose; a bare transfer is unattributed, not NAV).
        pool.nav += d;
        const priceBefore = (pool.nav + 1n + pool.supply + VIRTUAL_SHARES - 1n) / (pool.supply + VIRTUAL_SHARES);
        const victimShares = deposit(pool, a);
        if (a >= priceBefore) expect(victimShares).toBeGreaterThan(0n);
        let attackerOut: bigint;
        let victimOut: bigint;
        if (attackerFirst) {
          attackerOut = redeem(pool, attackerShares);
          victimOut = redeem(pool, victimShares);
        } else {
          victimOut = redeem(pool, victimShares);
          attackerOut = redeem(pool, attackerShares);
        }
        const victimLoss = a - victimOut;
        // The victim loses at most one share's price to rounding, however much was donated before.
        expect(victimLoss).toBeLessThanOrEqual(priceBefore + 1n);
        // The attacker collects at most that rounding: donating more never buys more, so the attack does not pay.
        expect(attackerOut - x - d).toBeLessThanOrEqual(victimLoss > 0n ? victimLoss : 0n);
      }),
      { numRuns: 2000 },
    );
  });

  it('conserve value: what is paid out plus what remains is what came in, and holders can never overdraw NAV', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('deposit' as const), who: fc.nat(3), value: amount }),
      fc.record({ kind: fc.constant('redeem' as const), who: fc.nat(3), value: fc.bigInt({ min: 1n, max: 10n ** 13n }) }),
      fc.record({ kind: fc.constant('pnl' as const), who: fc.constant(0), value: fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }) }),
    );
    fc.assert(
      fc.property(bootstrap, fc.array(op, { maxLength: 40 }), (boot, ops) => {
        const pool = { supply: boot, nav: boot };
        const held = [0n, 0n, 0n, 0n];
        let paidIn = boot;
        let paidOut = 0n;
        let pnl = 0n;
        for (const o of ops) {
          if (pool.nav <= 0n) break;
          if (o.kind === 'deposit') {
            held[o.who] = held[o.who]! + deposit(pool, o.value);
            paidIn += o.value;
          } else if (o.kind === 'redeem') {
            const s = o.value > held[o.who]! ? held[o.who]! : o.value;
            paidOut += redeem(pool, s);
            held[o.who] = held[o.who]! - s;
          } else if (pool.nav + o.value > 0n) {
            pool.nav += o.value;
            pnl += o.value;
          }
          expect(pool.nav).toBe(paidIn + pnl - paidOut);
          expect(pool.supply).toBe(boot + held.reduce((x, y) => x + y, 0n));
        }
        // Every holder, the house's bootstrap included, redeeming everything never takes more than NAV.
        if (pool.nav > 0n) {
          const values = [...held, boot].filter((s) => s > 0n).map((s) => redemptionValue(s, pool.supply, pool.nav));
          expect(values.reduce((x, y) => x + y, 0n)).toBeLessThanOrEqual(pool.nav);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('LP positions at average cost', () => {
  it('remove principal in proportion to the shares redeemed, and all of it with the last share', () => {
    let p: LpPosition = { shares: 0n, principal: 0n };
    p = positionAfterDeposit(p, 10n * USDC, 9n * USDC);
    p = positionAfterDeposit(p, 5n * USDC, 6n * USDC);
    expect(p).toEqual({ shares: 15n * USDC, principal: 15n * USDC });
    p = positionAfterRedeem(p, 5n * USDC);
    expect(p).toEqual({ shares: 10n * USDC, principal: 10n * USDC });
    p = positionAfterRedeem(p, 10n * USDC);
    expect(p).toEqual({ shares: 0n, principal: 0n });
    expect(() => positionAfterRedeem(p, 1n)).toThrow(LpError);
  });

  it('never let principal grow on a redemption or outlive the shares', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.bigInt({ min: 0n, max: 10n ** 12n })), { minLength: 1, maxLength: 5 }),
        fc.array(fc.bigInt({ min: 1n, max: 10n ** 12n }), { maxLength: 8 }),
        (deposits, redeems) => {
          let p: LpPosition = { shares: 0n, principal: 0n };
          for (const [a, s] of deposits) p = positionAfterDeposit(p, a, s);
          for (const r of redeems) {
            if (p.shares === 0n) break;
            const next = positionAfterRedeem(p, r > p.shares ? p.shares : r);
            expect(next.principal).toBeLessThanOrEqual(p.principal);
            if (next.shares === 0n) expect(next.principal).toBe(0n);
            p = next;
          }
        },
      ),
    );
  });

  it('redeem shares the ledger never saw deposited (received by transfer) by emptying the position', () => {
    const p = { shares: 10n * USDC, principal: 12n * USDC };
    expect(redeemFromPosition(p, 4n * USDC)).toEqual({ after: { shares: 6n * USDC, principal: 7_200_000n }, principalOut: 4_800_000n });
    expect(redeemFromPosition(p, 10n * USDC)).toEqual({ after: { shares: 0n, principal: 0n }, principalOut: 12n * USDC });
    expect(redeemFromPosition(p, 15n * USDC)).toEqual({ after: { shares: 0n, principal: 0n }, principalOut: 12n * USDC });
    expect(redeemFromPosition({ shares: 0n, principal: 0n }, USDC)).toEqual({ after: { shares: 0n, principal: 0n }, principalOut: 0n });
    expect(() => redeemFromPosition(p, 0n)).toThrow(LpError);
  });

  it('values a position at what it would redeem for', () => {
    const v = positionView({ shares: 2n * USDC, principal: 2n * USDC }, 10n * USDC, 12n * USDC);
    expect(v.currentValue).toBe(redemptionValue(2n * USDC, 10n * USDC, 12n * USDC));
    expect(v.profit).toBe(v.currentValue - 2n * USDC);
    expect(v.ownershipPpm).toBe(200_000n);
    expect(positionView({ shares: USDC, principal: USDC }, 10n * USDC, 0n).currentValue).toBe(0n);
  });
});

describe('free liquidity for redemptions', () => {
  it('keeps enough NAV that the open exposure stays within maxExposure', () => {
    expect(freeLiquidity(100n * USDC, 0n, 2500)).toBe(100n * USDC);
    expect(freeLiquidity(100n * USDC, 10n * USDC, 2500)).toBe(60n * USDC);
    expect(freeLiquidity(100n * USDC, 30n * USDC, 2500)).toBe(0n);
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 13n }),
        fc.bigInt({ min: 0n, max: 10n ** 13n }),
        fc.integer({ min: 1, max: 10_000 }),
        (nav, exposure, bps) => {
          const free = freeLiquidity(nav, exposure, bps);
          expect(free).toBeGreaterThanOrEqual(0n);
          if (free > 0n) expect(exposure * 10_000n).toBeLessThanOrEqual((nav - free) * BigInt(bps));
        },
      ),
    );
  });
});
