// The single-use guard on x402 payments: one SET NX per payment transaction, so a payload settles once across API instances.
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';

/** A claim outlives any blockhash (about 90 s), after which the transaction could not land anyway. @defaultValue 24 h */
export const PAYMENT_CLAIM_TTL_MS = 24 * 60 * 60 * 1000;

export class PaymentStore {
  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
  ) {}

  /**
   * Claims the payment whose transaction has `fingerprint` (see payments/x402.ts `transactionFingerprint`).
   * @returns true for the first claim, false when it was claimed before
   */
  async claim(fingerprint: string, ttlMs: number = PAYMENT_CLAIM_TTL_MS): Promise<boolean> {
    return (await this.redis.set(this.keys.x402Claim(fingerprint), String(Date.now()), 'PX', ttlMs, 'NX')) === 'OK';
  }
}
