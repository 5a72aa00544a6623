// The house as the contract shows it: NAV and limits read live from the vault on-chain and the ledger, the
// APR of the game results since the ledger started, LP totals, and a wallet's LP position.
import { address, type Address } from '@solana/kit';
import { fetchMint } from '@solana-program/token';
import { ataOf, type ChainSetup } from '../chain/genesis.ts';
import type { SolanaRpc } from '../chain/rpc.ts';
import { limitsOf, navVault, type LimitSettings } from '../protocol/house.ts';
import { positionView } from '../protocol/lp-shares.ts';
import { microToNumber } from '../protocol/money.ts';
import type { HouseTotals, LedgerStore } from '../store/ledger.ts';
import type { LpStore } from '../store/lp.ts';

const YEAR_MS = 365 * 86_400_000;

export interface HouseDeps {
  ledger: LedgerStore;
  lp: LpStore;
  rpc: SolanaRpc;
  setup: ChainSetup;
  vaultTokenAccount: Address;
  lpMint: Address;
  limits: LimitSettings;
  clock: () => Date;
  /** When the ledger started (ms): the APR annualizes the game results since then. */
  startedAtMs: number;
}

async function liveVault(deps: Pick<HouseDeps, 'rpc' | 'vaultTokenAccount'>): Promise<bigint> {
  const { value } = await deps.rpc.getTokenAccountBalance(deps.vaultTokenAccount).send();
  return BigInt(value.amount);
}

/** The LP supply the ledger prices with (bootstrap + minted − redeemed); the mint's own supply before it is recorded. */
async function lpSupplyOf(deps: Pick<HouseDeps, 'rpc' | 'lpMint'>, totals: HouseTotals): Promise<bigint> {
  if (totals.lpSupply > 0n) return totals.lpSupply;
  return (await fetchMint(deps.rpc, deps.lpMint)).data.supply;
}

/** The live NAV (the vault as `navVault` reads it, minus what the ledger locks), the LP supply and the ledger totals. */
export async function houseState(deps: Pick<HouseDeps, 'ledger' | 'rpc' | 'vaultTokenAccount' | 'lpMint' | 'limits'>) {
  const [totals, vault] = await Promise.all([deps.ledger.house(), liveVault(deps)]);
  const limits = limitsOf(totals, deps.limits, navVault(totals, vault));
  const supply = await lpSupplyOf(deps, totals);
  return { totals, vault, limits, nav: limits.nav, supply };
}

/** NAV per share as a display number: floats never touch a balance, only this ratio. */
const sharePriceOf = (nav: bigint, supply: bigint): number => (supply > 0n && nav > 0n ? Number(nav) / Number(supply) : 0);

export async function houseView(deps: HouseDeps) {
  const { totals, limits, nav, supply } = await houseState(deps);
  const elapsed = deps.clock().getTime() - deps.startedAtMs;
  const bankroll = totals.capital + totals.lpPrincipal;
  const apr = bankroll > 0n && elapsed > 0 ? (Number(totals.gameNet) / Number(bankroll)) * (YEAR_MS / elapsed) : 0;
  const idle = nav > 0n ? nav : 0n;
  return {
    totalValue: microToNumber(nav),
    baseBankroll: microToNumber(bankroll),
    gameNet: microToNumber(totals.gameNet),
    volume: microToNumber(totals.volume),
    apr,
    maxExposure: microToNumber(limits.maxExposure),
    utilization: limits.maxExposure > 0n ? Number(totals.exposure) / Number(limits.maxExposure) : 0,
    totalStaked: microToNumber(totals.lpPrincipal),
    sharePrice: sharePriceOf(nav, supply),
    // Funds behind live play: stakes in play, payouts banked on open tickets, and the worst case still open.
    activeReserve: microToNumber(totals.staked + totals.banked + totals.exposure),
    idleReserve: microToNumber(idle),
    deployableToYield: 0,
    maxBet: microToNumber(limits.maxBet),
    maxPayout: microToNumber(limits.maxPayout),
    openExposure: microToNumber(totals.exposure),
    strategy: 'cash',
  };
}

/** A wallet's LP tokens, read from its LP token account on-chain (shares are SPL tokens and can move). */
export async function lpSharesOf(deps: Pick<HouseDeps, 'rpc' | 'lpMint'>, wallet: Address): Promise<bigint> {
  const lpAccount = await ataOf(address(wallet), deps.lpMint);
  return deps.rpc
    .getTokenAccountBalance(lpAccount)
    .send()
    .then((r) => BigInt(r.value.amount))
    .catch(() => 0n);
}

export async function housePosition(deps: HouseDeps, wallet: Address) {
  const [shares, ledgerPosition, state] = await Promise.all([lpSharesOf(deps, wallet), deps.lp.position(wallet), houseState(deps)]);
  const { supply, nav } = state;
  const view = positionView({ shares, principal: ledgerPosition.principal }, supply, nav);
  return {
    shares: microToNumber(view.shares),
    principal: microToNumber(view.principal),
    currentValue: microToNumber(view.currentValue),
    profit: microToNumber(view.profit),
    ownership: supply > 0n ? Number(shares) / Number(supply) : 0,
  };
}
