// The x402 fee payer: an operator key that holds only SOL and pays the fees of settled x402 top-ups.
// It is never the keeper key, which must not live on API hosts (design §3); losing it loses fee SOL, not USDC.
import { lamports, type Address } from '@solana/kit';
import type { SolanaRpc } from '../chain/rpc.ts';
import { confirmSignature } from '../chain/send.ts';
import { loadOperatorKey, type OperatorKey } from '../operator/keys.ts';

/** Role name of the key: `<KEYS_DIR>/x402.json` (or `x402.pub` where a remote facilitator pays the fees). */
export const X402_FEE_PAYER_ROLE = 'x402';

/** Loads the fee payer's keypair, creating it on localnet like the other operator keys. */
export function loadX402FeePayer(keysDir: string, create: boolean): Promise<OperatorKey> {
  return loadOperatorKey(keysDir, X402_FEE_PAYER_ROLE, create);
}

/**
 * Localnet only: tops the fee payer up by airdrop when it holds less than `minLamports`, so x402 settles from the
 * first start. On a real cluster the operator funds it.
 * @returns the airdrop signature, or null when the balance was enough
 */
export async function ensureFeePayerFunded(
  rpc: SolanaRpc,
  feePayer: Address,
  minLamports: bigint,
  airdropLamports = minLamports * 10n,
): Promise<string | null> {
  const { value } = await rpc.getBalance(feePayer, { commitment: 'confirmed' }).send();
  if (value >= minLamports) return null;
  const signature = await rpc.requestAirdrop(feePayer, lamports(airdropLamports)).send();
  await confirmSignature(rpc, signature);
  return signature;
}
