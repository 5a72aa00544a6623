// The x402 fee payer: an operator key that holds only SOL and pays the fees of settled x402 top-ups.
// It is never the keeper key, which must not live on API hosts (design §3); losing it loses fee SOL, not USDC.
import { lamports, type Address } from '@solana/kit';
import type { Logger } from 'pino';
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

/** The fee payer's SOL as last read, against FEE_PAYER_MIN_LAMPORTS. */
export interface FeePayerBalance {
  address: Address;
  lamports: bigint;
  minLamports: bigint;
  low: boolean;
}

export interface FeePayerWatchDeps {
  rpc: SolanaRpc;
  address: Address;
  /** FEE_PAYER_MIN_LAMPORTS: below it the balance is low. */
  minLamports: bigint;
  logger: Pick<Logger, 'warn' | 'info'>;
  /**
   * While low, the warning is repeated at most this often (each read would otherwise log it).
   * @defaultValue 900000
   */
  warnEveryMs?: number;
  /** @defaultValue Date.now */
  now?: () => number;
}

/**
 * Reads the fee payer's SOL for the metrics, the readiness check and after each settled top-up, and logs a warning
 * when it is below the threshold (when it goes low, then every `warnEveryMs` while it stays low) and a line when it
 * is back: x402 top-ups stop once the fee payer cannot pay a transaction fee.
 */
export class FeePayerWatch {
  #warnedAtMs: number | null = null;

  constructor(readonly deps: FeePayerWatchDeps) {}

  async read(): Promise<FeePayerBalance> {
    const { rpc, address, minLamports, logger } = this.deps;
    const { value } = await rpc.getBalance(address, { commitment: 'confirmed' }).send();
    const balance = { address, lamports: value, minLamports, low: value < minLamports };
    const now = (this.deps.now ?? Date.now)();
    if (balance.low) {
      if (this.#warnedAtMs === null || now - this.#warnedAtMs >= (this.deps.warnEveryMs ?? 900_000)) {
        this.#warnedAtMs = now;
        logger.warn(
          { feePayer: address, lamports: value.toString(), minLamports: minLamports.toString() },
          'the x402 fee payer is low on SOL (below FEE_PAYER_MIN_LAMPORTS): top it up, or x402 top-ups stop when it cannot pay a fee',
        );
      }
    } else if (this.#warnedAtMs !== null) {
      this.#warnedAtMs = null;
      logger.info({ feePayer: address, lamports: value.toString() }, 'the x402 fee payer holds enough SOL again');
    }
    return balance;
  }
}
