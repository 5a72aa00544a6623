// House accounting (design §3): NAV = vault − total_locked, the betting limits as fractions of NAV, and the exposure
// checks a new reservation must pass. The ledger's scripts apply exactly the same rules in Lua (store/scripts/_lib.lua).

/** The house totals that NAV and the limits depend on, micro-USDC. */
export interface LockedTotals {
  vault: bigint;
  balances: bigint;
  staked: bigint;
  /** Payouts banked on open Sweeper tickets above their stakes (the stakes are in `staked`). */
  banked: bigint;
  /** Open exposure: the worst case of the bets and turns in flight. It bounds new bets, never the price. */
  exposure: bigint;
  pendingWithdrawals: bigint;
  unattributed: bigint;
  lpPending: bigint;
  /** LP redemptions valued at NAV but not yet paid out. */
  lpPayable: bigint;
}

/** Each limit as basis points of NAV. */
export interface LimitSettings {
  maxBetBps: number;
  maxPayoutBps: number;
  maxExposureBps: number;
  /**
   * The share of maxExposure one wallet may hold, in basis points of maxExposure (design §10).
   * @defaultValue 10000 (the whole of maxExposure)
   */
  maxWalletExposureBps?: number;
}

export interface Limits {
  nav: bigint;
  maxBet: bigint;
  maxPayout: bigint;
  maxExposure: bigint;
  /** What one wallet's open exposure may reach. */
  maxWalletExposure: bigint;
  openExposure: bigint;
}

/**
 * What the vault owes to others: player balances, stakes in play, payouts banked on open tickets, withdrawals in
 * flight, unattributed funds, unminted LP deposits and unpaid LP redemptions. Open exposure is not owed to anyone,
 * so it is not here: a price that moved with it could be moved by anyone who opens and closes bets for free.
 */
export function totalLocked(h: LockedTotals): bigint {
  return h.balances + h.staked + h.banked + h.pendingWithdrawals + h.unattributed + h.lpPending + h.lpPayable;
}

/**
 * The vault balance NAV is taken from, given the live balance on-chain. A payout (a withdrawal or an LP redemption)
 * leaves the vault when its transaction lands, but the ledger unlocks it only when the keeper records the landing
 * (at finality in production); a deposit arrives before the indexer locks it as owed. Neither moves what the house
 * is worth, so the live balance counts only where it falls short of the ledger's mirror by more than every payout
 * that may have left: a vault drained by anything else still shows at once.
 */
export function navVault(h: Pick<LockedTotals, 'vault' | 'pendingWithdrawals' | 'lpPayable'>, live: bigint): bigint {
  const floor = live + h.pendingWithdrawals + h.lpPayable;
  return floor < h.vault ? floor : h.vault;
}

/**
 * Limits as fractions of NAV, floored, and zero when NAV is not positive.
 * @param vault the live vault balance, when read from the chain rather than the ledger
 */
export function limitsOf(h: LockedTotals, settings: LimitSettings, vault = h.vault): Limits {
  const nav = vault - totalLocked(h);
  const part = (bps: number) => (nav > 0n ? (nav * BigInt(bps)) / 10_000n : 0n);
  const maxExposure = part(settings.maxExposureBps);
  return {
    nav,
    maxBet: part(settings.maxBetBps),
    maxPayout: part(settings.maxPayoutBps),
    maxExposure,
    maxWalletExposure: (maxExposure * BigInt(settings.maxWalletExposureBps ?? 10_000)) / 10_000n,
    openExposure: h.exposure,
  };
}

/** Why new exposure does not fit, with the limit it would pass. */
export interface ExposureRefusal {
  reason: 'max_exposure' | 'wallet_exposure';
  limit: bigint;
}

/**
 * The exposure checks of a new bet, turn or ticket: the house's open exposure plus `headroom` within maxExposure, and
 * the wallet's open exposure plus `reserve` (what it will hold) within its share. A ticket open checks the full board
 * as headroom and reserves nothing; a Dice bet or a turn reserves what it checks. What adds nothing (a cashout) always
 * fits, even past a limit that a fall in NAV has lowered.
 * @returns null when both fit
 */
export function exposureRefusal(
  limits: Pick<Limits, 'maxExposure' | 'maxWalletExposure'>,
  open: { house: bigint; wallet: bigint },
  need: { headroom: bigint; reserve: bigint },
): ExposureRefusal | null {
  if (need.headroom > 0n && open.house + need.headroom > limits.maxExposure) return { reason: 'max_exposure', limit: limits.maxExposure };
  if (need.reserve > 0n && open.wallet + need.reserve > limits.maxWalletExposure) return { reason: 'wallet_exposure', limit: limits.maxWalletExposure };
  return null;
}
