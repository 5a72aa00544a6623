// Conservation, from three independent sources: the vault on-chain, every player's ledger, the house's game results.
import { address, createSolanaRpc, type Address } from '@solana/kit';
import { expect, vi } from 'vitest';
import { limitsOf } from '../../protocol/house.ts';
import type { TestService } from './service.ts';
import type { Player } from './player.ts';

export interface Books {
  /** The vault token account's balance, read through the RPC. */
  vault: bigint;
  /** Σ (balance + stake in play) over the given players. */
  liabilities: bigint;
  /** Σ pending withdrawals over the given players (requested, not yet paid out). */
  pendingWithdrawals: bigint;
  /** Payouts banked on open Sweeper tickets above their stakes: owed, so a liability. */
  banked: bigint;
  /** Open exposure: not owed to anyone, so in neither side of the books. */
  exposure: bigint;
  /**
   * House capital + game net + LP net (minted deposits − valued redemptions) − payouts banked on open tickets: NAV
   * without the vault.
   */
  nav: bigint;
  /** NAV as the service prices LP shares and sets limits: vault on-chain − total_locked of the ledger's house totals. */
  serviceNav: bigint;
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
    banked: house.banked,
    exposure: house.exposure,
    nav: house.capital + house.gameNet + house.lpNet - house.banked,
    serviceNav: limitsOf(house, svc.wiring.limits, vault).nav,
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
 * vault (on-chain) = player balances + stakes + payouts banked on open tickets + pending withdrawals + unattributed +
 * LP deposits not yet minted + LP redemptions not yet paid + house NAV, and that NAV is the one the service prices with
 * (open exposure is in neither). `players` must be every wallet with money in the ledger.
 */
export async function expectConserved(svc: TestService, players: readonly Player[]): Promise<Books> {
  await expectKeptLiabilities(svc);
  const b = await books(svc, players);
  expect(
    b.vault,
    JSON.stringify(b, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)),
  ).toBe(b.liabilities + b.pendingWithdrawals + b.banked + b.unattributed + b.lpPending + b.lpPayable + b.nav);
  expect(b.serviceNav, 'the NAV the service prices with').toBe(b.nav);
  return b;
}

/**
 * The liabilities the scripts keep for commits (store/scripts/_lib.lua add_liability) are, for every wallet the ledger
 * knows and no other, its balance + staked + pending withdrawals: what a commit copies is what it would have read.
 */
export async function expectKeptLiabilities(svc: TestService): Promise<void> {
  const { redis, keys } = svc.wiring;
  const kept = await redis.hgetall(keys.liabilities());
  delete kept[''];
  const actual: Record<string, string> = {};
  for (const wallet of await redis.smembers(keys.wallets())) {
    const s = await svc.wiring.stores.ledger.player(wallet as Address);
    actual[wallet] = (s.balance + s.staked + s.pendingWithdrawals).toString();
  }
  expect(kept).toEqual(actual);
}
