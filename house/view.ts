// The house as the contract shows it: NAV and limits read live from the vault on-chain and the ledger, the
// APR of the game results since the ledger started, and a wallet's LP position.
import { address, type Address } from '@solana/kit';
import { fetchMint } from '@solana-program/token';
import { ataOf } from '../chain/genesis.ts';
import type { SolanaRpc } from '../chain/rpc.ts';
import { limitsOf, type LimitSettings } from '../protocol/house.ts';
import { microToNumber } from '../protocol/money.ts';
import type { LedgerStore } from '../store/ledger.ts';

const YEAR_MS = 365 * 86_400_000;

export interface HouseDeps {
  ledger: LedgerStore;
  rpc: SolanaRpc;
  vaultTokenAccount: Address;
  lpMint: Address;
  limits: LimitSettings;
  clock: () => Date;
  /** When the ledger started (ms): the APR annualizes the game results since then. */
  startedAtMs: number;
}

async function liveVault(deps: HouseDeps): Promise<bigint> {
  const { value } = await deps.rpc.getTokenAccountBalance(deps.vaultTokenAccount).send();
  return BigInt(value.amount);
}

/** NAV per share, as a ratio of integers (both have 6 decimals). */
async function lpState(deps: HouseDeps, nav: bigint) {
  const mint = await fetchMint(deps.rpc, deps.lpMint);
  const supply = mint.data.supply;
  return { supply, sharePrice: supply > 0n ? Number(nav) / Number(supply) : 0 };
}

export async function houseView(deps: HouseDeps) {
  const [totals, vault] = await Promise.all([deps.ledger.house(), liveVault(deps)]);
  const limits = limitsOf(totals, deps.limits, vault);
  const nav = limits.nav;
  const { sharePrice } = await lpState(deps, nav);
  const elapsed = deps.clock().getTime() - deps.startedAtMs;
  const apr = totals.capital > 0n && elapsed > 0 ? (Number(totals.gameNet) / Number(totals.capital)) * (YEAR_MS / elapsed) : 0;
  const idle = nav > 0n ? nav : 0n;
  return {
    totalValue: microToNumber(nav),
    baseBankroll: microToNumber(totals.capital),
    gameNet: microToNumber(totals.gameNet),
    volume: microToNumber(totals.volume),
    apr,
    maxExposure: microToNumber(limits.maxExposure),
    utilization: limits.maxExposure > 0n ? Number(totals.exposure) / Number(limits.maxExposure) : 0,
    totalStaked: microToNumber(totals.staked),
    sharePrice,
    activeReserve: microToNumber(totals.staked + totals.exposure),
    idleReserve: microToNumber(idle),
    deployableToYield: 0,
    maxBet: microToNumber(limits.maxBet),
    maxPayout: microToNumber(limits.maxPayout),
    openExposure: microToNumber(totals.exposure),
    strategy: 'cash',
  };
}

export async function housePosition(deps: HouseDeps, wallet: string) {
  const lpAccount = await ataOf(address(wallet), deps.lpMint);
  const [account, totals, vault] = await Promise.all([
    deps.rpc
      .getTokenAccountBalance(lpAccount)
      .send()
      .then((r) => BigInt(r.value.amount))
      .catch(() => 0n),
    deps.ledger.house(),
    liveVault(deps),
  ]);
  const nav = limitsOf(totals, deps.limits, vault).nav;
  const { supply, sharePrice } = await lpState(deps, nav);
  // LP deposits are not credited as principal yet (design §3 LP flows are future work), so principal is 0.
  const currentValue = account > 0n ? (Number(account) / 1e6) * sharePrice : 0;
  return {
    shares: microToNumber(account),
    principal: 0,
    currentValue,
    profit: currentValue,
    ownership: supply > 0n ? Number(account) / Number(supply) : 0,
  };
}
