// Conservation, from three independent sources: the vault on-chain, every player's ledger, the house's game results.
import { address, createSolanaRpc } from '@solana/kit';
import { expect, vi } from 'vitest';
import type { TestService } from './service.ts';
import type { Player } from './player.ts';

export interface Books {
  /** The vault token account's balance, read through the RPC. */
  vault: bigint;
  /** Σ (balance + stake in play) over the given players. */
  liabilities: bigint;
  /** Σ pending withdrawals over the given players (requested, not yet paid out). */
  pendingWithdrawals: bigint;
  exposure: bigint;
  /** House capital + game net + LP net (minted deposits − valued redemptions) − open exposure: NAV without the vault. */
  nav: bigint;
  unattributed: bigint;
  /** LP deposits received, shares not yet minted. */
  lpPending: bigint;
  /** LP redemptions valued at NAV, not yet paid out. */
  lpPayable: bigint;
}

export async function books(svc: TestService, players: readonly Player[]): Promise<Books> {
  const rpc = createSolanaRpc(svc.rpcUrl);
  const vault = BigInt((await rpc.getTokenAccountBalance(address(svc.wiring.setup.vaultTokenAccount)).send()).value.amount);
  const house = await svc.wiring.stores.ledger.house();
  let liabilities = 0n;
  let pendingWithdrawals = 0n;
  for (const p of players) {
    const s = await svc.wiring.stores.ledger.player(p.address);
    liabilities += s.balance + s.staked;
    pendingWithdrawals += s.pendingWithdrawals;
  }
  return {
    vault,
    liabilities,
    pendingWithdrawals,
    exposure: house.exposure,
    nav: house.capital + house.gameNet + house.lpNet - house.exposure,
    unattributed: house.unattributed,
    lpPending: house.lpPending,
    lpPayable: house.lpPayable,
  };
}

/**
 * Waits until the keeper has nothing in flight (no withdrawal or LP job open or queued): between a payout landing and
 * the keeper recording it, the vault is already lower than the books say.
 */
export async function keeperAtRest(svc: TestService, timeoutMs = 30_000): Promise<void> {
  const { redis, keys } = svc.wiring;
  await vi.waitFor(
    async () => {
      const [withdrawals, lpOpen, mints, redeems] = await Promise.all([
        redis.zcard(keys.openWithdrawals()),
        redis.zcard(keys.lpOpen()),
        redis.llen(keys.lpMintQueue()),
        redis.llen(keys.lpRedeemQueue()),
      ]);
      expect({ withdrawals, lpOpen, mints, redeems }).toEqual({ withdrawals: 0, lpOpen: 0, mints: 0, redeems: 0 });
    },
    { timeout: timeoutMs, interval: 100 },
  );
}

/**
 * vault (on-chain) = player balances + stakes + exposure + pending withdrawals + unattributed + LP deposits not yet
 * minted + LP redemptions not yet paid + house NAV. `players` must be every wallet with money in the ledger.
 */
export async function expectConserved(svc: TestService, players: readonly Player[]): Promise<Books> {
  const b = await books(svc, players);
  expect(
    b.vault,
    JSON.stringify(b, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)),
  ).toBe(b.liabilities + b.pendingWithdrawals + b.exposure + b.unattributed + b.lpPending + b.lpPayable + b.nav);
  return b;
}
