// LP share math (design §3), bigint only: shares minted and redeemed at one price with a virtual offset, principal at
// average cost.

/**
 * Virtual shares (and one virtual micro-USDC of NAV) in the share price of deposits and redemptions alike: an empty or
 * tiny pool cannot be priced so that a later deposit rounds to nothing, which is the classic share-inflation
 * (donation) attack; and a deposit redeemed at once cannot take the virtual shares' part of NAV.
 */
export const VIRTUAL_SHARES = 1_000_000n;
const VIRTUAL_NAV = 1n;

export class LpError extends Error {
  override readonly name = 'LpError';
  constructor(
    readonly reason: 'nav_not_positive' | 'invalid_amount' | 'invalid_shares' | 'invalid_state',
    message: string,
  ) {
    super(message);
  }
}

function assertState(supply: bigint, nav: bigint): void {
  if (supply < 0n) throw new LpError('invalid_state', 'LP supply cannot be negative');
  // LP flows stop while NAV ≤ 0 (design §3): a price of zero would hand a depositor the whole pool.
  if (nav <= 0n) throw new LpError('nav_not_positive', 'LP flows are stopped while NAV is not positive');
}

/**
 * Shares minted for a deposit: `floor(amount × (supply + 10^6) / (navBefore + 1))`, where `navBefore` excludes the
 * deposit. Rounds down, so the house keeps the remainder.
 * @throws {LpError} when `amount ≤ 0`, `supply < 0` or `navBefore ≤ 0`
 * @example sharesForDeposit(1_000_000n, 1_000_000_000n, 1_000_000_000n) // 1_000_999n (the virtual shares take a sliver)
 */
export function sharesForDeposit(amount: bigint, supply: bigint, navBefore: bigint): bigint {
  if (amount <= 0n) throw new LpError('invalid_amount', 'an LP deposit must be positive');
  assertState(supply, navBefore);
  return (amount * (supply + VIRTUAL_SHARES)) / (navBefore + VIRTUAL_NAV);
}

/**
 * What redeeming `shares` pays now: `floor(shares × (nav + 1) / (supply + 10^6))`, the same virtual offset as a
 * deposit (design §3). A deposit mints at most `amount / price` shares and a redemption pays at most `shares × price`
 * at the same price `(nav + 1) / (supply + 10^6)`, and neither flow lowers that price for the others, so a round trip
 * never pays back more than went in: only settled play moves the value of a share.
 * @throws {LpError} when `shares ≤ 0`, `shares > supply` or `nav ≤ 0`
 * @example redemptionValue(1_000_999n, 1_001_000_999n, 1_001_000_000n) // 999_999n: a deposit of 1 USDC, back at once
 */
export function redemptionValue(shares: bigint, supply: bigint, nav: bigint): bigint {
  if (shares <= 0n) throw new LpError('invalid_shares', 'shares to redeem must be positive');
  if (shares > supply) throw new LpError('invalid_shares', 'cannot redeem more shares than the supply');
  assertState(supply, nav);
  return (shares * (nav + VIRTUAL_NAV)) / (supply + VIRTUAL_SHARES);
}

/**
 * NAV that may leave the vault for redemptions now: what stays must still cover the open exposure within
 * `maxExposureBps` of NAV, so paying LPs never pushes the live bets past the house limits.
 */
export function freeLiquidity(nav: bigint, openExposure: bigint, maxExposureBps: number): bigint {
  if (!Number.isInteger(maxExposureBps) || maxExposureBps <= 0) throw new LpError('invalid_state', 'maxExposureBps must be a positive integer');
  const bps = BigInt(maxExposureBps);
  const reserve = (openExposure * 10_000n + bps - 1n) / bps;
  const free = nav - reserve;
  return free > 0n ? free : 0n;
}

/** A wallet's LP position as the ledger keeps it: shares held and principal still invested. */
export interface LpPosition {
  shares: bigint;
  principal: bigint;
}

/** The position after a deposit of `amount` minted `shares`. */
export function positionAfterDeposit(p: LpPosition, amount: bigint, shares: bigint): LpPosition {
  if (amount <= 0n || shares < 0n) throw new LpError('invalid_amount', 'a deposit must be positive and mint no negative shares');
  return { shares: p.shares + shares, principal: p.principal + amount };
}

/**
 * The position after redeeming `shares`, at average cost: the principal that stays is
 * `floor(principal × (held − redeemed) / held)`, so redeeming everything leaves none.
 * @throws {LpError} when `shares ≤ 0` or more than held
 */
export function positionAfterRedeem(p: LpPosition, shares: bigint): LpPosition {
  if (shares <= 0n || shares > p.shares) throw new LpError('invalid_shares', 'cannot redeem more shares than the position holds');
  const left = p.shares - shares;
  return { shares: left, principal: (p.principal * left) / p.shares };
}

/** Position figures for `/api/house/position`, all micro-USDC except `ownershipPpm` (parts per million). */
export interface PositionView {
  shares: bigint;
  principal: bigint;
  currentValue: bigint;
  profit: bigint;
  ownershipPpm: bigint;
}

/** `currentValue` is what the shares would redeem for now (0 while NAV ≤ 0); `profit = currentValue − principal`. */
export function positionView(p: LpPosition, supply: bigint, nav: bigint): PositionView {
  const currentValue = p.shares > 0n && nav > 0n && supply >= p.shares ? redemptionValue(p.shares, supply, nav) : 0n;
  return {
    shares: p.shares,
    principal: p.principal,
    currentValue,
    profit: currentValue - p.principal,
    ownershipPpm: supply > 0n ? (p.shares * 1_000_000n) / supply : 0n,
  };
}

/**
 * A redemption against the ledger's position of the wallet that sent the shares. LP shares are SPL tokens and may
 * have come from another wallet, so redeeming at least what the position holds empties it; otherwise principal leaves
 * at average cost ({@link positionAfterRedeem}).
 */
export function redeemFromPosition(p: LpPosition, shares: bigint): { after: LpPosition; principalOut: bigint } {
  if (shares <= 0n) throw new LpError('invalid_shares', 'shares to redeem must be positive');
  if (shares >= p.shares) return { after: { shares: 0n, principal: 0n }, principalOut: p.principal };
  const after = positionAfterRedeem(p, shares);
  return { after, principalOut: p.principal - after.principal };
}
