// What fair outcomes explain: an LP's share of the plays settled while it held its shares, and the attacker's books
// (what its wallets hold before and after an attempt).
import { VIRTUAL_SHARES } from '../../protocol/lp-shares.ts';
import type { Attacker } from './attacker.ts';
import { within, type Target } from './target.ts';

const ceilDiv = (a: bigint, b: bigint): bigint => (a >= 0n ? (a + b - 1n) / b : -(-a / b));

/**
 * What an LP round trip gained beyond its pro-rata share of the plays settled while it held the shares, micro-USDC
 * rounded up (any fraction of a micro-USDC over counts): `(paid − deposit) − shares × gameNetDelta / (supply + 10^6)`.
 * A share's value moves only with settled play (design §3), so this is ≤ 0 unless something else moved the price:
 * open exposure in NAV let the attacker take 111,380 USDC for 2,004 USDC of losing bets.
 * @param x.supply the LP supply while the shares were held (theirs included)
 * @param x.gameNetDelta the house's game net (wagers − payouts of settled plays) over the holding
 * @example unexplainedLpGain({ deposit: 1_000_000_000_000n, shares: 1_279_654_000_000n, paid: 1_111_380_000_000n, supply: 2_279_654_000_000n, gameNetDelta: 2_004_000_000n }) // 110_255_081_267n
 */
export function unexplainedLpGain(x: { deposit: bigint; shares: bigint; paid: bigint; supply: bigint; gameNetDelta: bigint }): bigint {
  const denominator = x.supply + VIRTUAL_SHARES;
  return ceilDiv((x.paid - x.deposit) * denominator - x.shares * x.gameNetDelta, denominator);
}

/**
 * What rounding may cost an LP's round trip, micro-USDC: a share's price rounded up, and one more (a deposit rounds its
 * shares down, a redemption its payout).
 */
export async function roundingTolerance(target: Target): Promise<bigint> {
  const [house, supply] = await Promise.all([target.house(), target.lpSupply()]);
  return (house.nav + supply - 1n) / supply + 1n;
}

/** What a set of wallets holds: USDC (on-chain and in the arcade) and SOL. */
export interface Holdings {
  usdcMicro: bigint;
  lamports: bigint;
}

export async function holdings(wallets: readonly Attacker[]): Promise<Holdings> {
  const each = await Promise.all(wallets.map(async (w) => ({ usdcMicro: await w.worth(), lamports: await w.lamports() })));
  return each.reduce((a, b) => ({ usdcMicro: a.usdcMicro + b.usdcMicro, lamports: a.lamports + b.lamports }), { usdcMicro: 0n, lamports: 0n });
}

/** What the wallets spent between two readings (negative: they came out ahead). */
export const spent = (before: Holdings, after: Holdings): Holdings => ({
  usdcMicro: before.usdcMicro - after.usdcMicro,
  lamports: before.lamports - after.lamports,
});

/** Waits for the keeper to mint the LP deposit's shares. @returns the shares, or null after `timeoutMs` */
export async function minted(w: Attacker, heldBefore: bigint, timeoutMs = 60_000): Promise<bigint | null> {
  const held = await within(timeoutMs, async () => {
    const now = await w.lpShares();
    return now > heldBefore ? now : null;
  });
  return held === null ? null : held - heldBefore;
}

/** Waits for a redemption to be paid into the wallet. @returns the USDC paid and the seconds it took, or null */
export async function redeemed(w: Attacker, usdcBefore: bigint, timeoutMs = 60_000): Promise<{ paid: bigint; seconds: number } | null> {
  const t0 = Date.now();
  const now = await within(timeoutMs, async () => {
    const usdc = await w.usdcMicro();
    return usdc > usdcBefore ? usdc : null;
  });
  return now === null ? null : { paid: now - usdcBefore, seconds: (Date.now() - t0) / 1000 };
}

/** One LP round trip's books: what went in, the shares, what came back, and the plays settled meanwhile. */
export interface LpTrip {
  deposit: bigint;
  shares: bigint;
  supply: bigint;
  gameNetBefore: bigint;
}

/** Deposits `amount` and waits for the shares; reads the supply and game net the holding starts from. */
export async function enterPool(target: Target, w: Attacker, amount: bigint, timeoutMs = 60_000): Promise<LpTrip> {
  const heldBefore = await w.lpShares();
  await w.lpDeposit(amount);
  const shares = await minted(w, heldBefore, timeoutMs);
  if (shares === null) throw new Error(`the LP deposit of ${amount} micro-USDC was not minted within ${timeoutMs} ms`);
  const [supply, house] = await Promise.all([target.lpSupply(), target.house()]);
  return { deposit: amount, shares, supply, gameNetBefore: house.gameNet };
}
