import { describe, expect, it } from 'vitest';
import { houseState, type HouseDeps } from '../../house/view.ts';
import { limitsOf, navVault } from '../../protocol/house.ts';
import { lockedTotals } from '../helpers/house.ts';

const settings = { maxBetBps: 50, maxPayoutBps: 100, maxExposureBps: 2_500 };
// A house of 1,000 USDC of NAV with 300 owed to players and a 100 USDC redemption valued, not yet paid.
const ledger = lockedTotals({ vault: 1_400_000_000n, balances: 300_000_000n, lpPayable: 100_000_000n });
const navAt = (live: bigint, h = ledger) => limitsOf(h, settings, navVault(h, live)).nav;

describe('NAV read from the live vault (navVault)', () => {
  it('is the same before a payout lands, after it lands and after the keeper records it', () => {
    expect(navAt(1_400_000_000n)).toBe(1_000_000_000n);
    // Landed on-chain, not yet recorded: the live vault is 100 lower and the ledger still owes the redemption.
    expect(navAt(1_300_000_000n)).toBe(1_000_000_000n);
    const recorded = { ...ledger, vault: 1_300_000_000n, lpPayable: 0n };
    expect(navAt(1_300_000_000n, recorded)).toBe(1_000_000_000n);
  });

  it('does not rise with a deposit the indexer has not locked yet', () => {
    expect(navAt(1_450_000_000n)).toBe(1_000_000_000n);
  });

  it('falls at once with a shortfall no payout in flight explains', () => {
    // 100 may have left for the redemption; 150 more is gone.
    expect(navAt(1_150_000_000n)).toBe(850_000_000n);
    const withdrawing = { ...ledger, pendingWithdrawals: 40_000_000n, balances: 260_000_000n };
    expect(navAt(1_150_000_000n, withdrawing)).toBe(890_000_000n);
  });
});

describe('houseState', () => {
  it('prices with navVault: a redemption landed and not yet recorded leaves NAV where it was', async () => {
    const deps = {
      ledger: { house: async () => ({ ...ledger, capital: 0n, gameNet: 0n, volume: 0n, lpPrincipal: 0n, lpNet: 0n, lpSupply: 1n }) },
      rpc: { getTokenAccountBalance: () => ({ send: async () => ({ value: { amount: '1300000000' } }) }) },
      limits: settings,
    } as unknown as HouseDeps;
    expect((await houseState(deps)).nav).toBe(1_000_000_000n);
  });
});
