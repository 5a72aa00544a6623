// What a wallet holds of the configured USDC mint, read from its associated token account through the RPC.
import type { Address } from '@solana/kit';
import { fetchMaybeToken } from '@solana-program/token';
import { ataOf, type ChainSetup } from './genesis.ts';
import type { SolanaRpc } from './rpc.ts';

/** The wallet's USDC in micro-units; 0 when its associated token account does not exist yet. */
export async function walletUsdcBalance(rpc: SolanaRpc, setup: Pick<ChainSetup, 'usdcMint'>, wallet: Address): Promise<bigint> {
  const account = await fetchMaybeToken(rpc, await ataOf(wallet, setup.usdcMint), { commitment: 'confirmed' });
  return account.exists ? account.data.amount : 0n;
}
