// House accounting (design §3): NAV = vault − total_locked, and the betting limits as fractions of NAV.
// The ledger's commit scripts apply exactly the same rules in Lua (store/scripts/_lib.lua).

/** The house totals that NAV and the limits depend on, micro-USDC. */
export interface LockedTotals {
  vault: bigint;
  balances: bigint;
  staked: bigint;
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
}

export interface Limits {
  nav: bigint;
  maxBet: bigint;
  maxPayout: bigint;
  maxExposure: bigint;
  openExposure: bigint;
}

/** What the vault holds for others: players, stakes, exposure, withdrawals in flight, unattributed, unminted LP, unpaid LP redemptions. */
export function totalLocked(h: LockedTotals): bigint {
  return h.balances + h.staked + h.exposure + h.pendingWithdrawals + h.unattributed + h.lpPending + h.lpPayable;
}

/**
 * Limits as fractions of NAV, floored, and zero when NAV is not positive.
 * @param vault the live vault balance, when read from the chain rather than the ledger
 */
export function limitsOf(h: LockedTotals, settings: LimitSettings, vault = h.vault): Limits {
  const nav = vault - totalLocked(h);
  const part = (bps: number) => (nav > 0n ? (nav * BigInt(bps)) / 10_000n : 0n);
  return {
    nav,
    maxBet: part(settings.maxBetBps),
    maxPayout: part(settings.maxPayoutBps),
    maxExposure: part(settings.maxExposureBps),
    openExposure: h.exposure,
  };
}
