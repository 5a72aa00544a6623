import type { LockedTotals } from '../../protocol/house.ts';

/** House totals with nothing locked and an empty vault, but for the fields given. */
export const lockedTotals = (set: Partial<LockedTotals>): LockedTotals => ({
  vault: 0n,
  balances: 0n,
  staked: 0n,
  banked: 0n,
  exposure: 0n,
  pendingWithdrawals: 0n,
  unattributed: 0n,
  lpPending: 0n,
  lpPayable: 0n,
  ...set,
});
