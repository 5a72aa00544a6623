// The single-use guard on x402 payments: one Redis SET NX per payment, so a payload settles once across API instances.
import type { Redis } from 'ioredis';

/** A claim outlives any blockhash (about 90 s), after which the transaction could not land anyway. @defaultValue 24 h */
export const PAYMENT_CLAIM_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Claims a payment under `key` (the caller names it, e.g. from `store/keys.ts`, with the payment's fingerprint in it).
 * @returns true for the first claim, false when the key was claimed before
 */
export async function claimPayment({ redis, key }: { redis: Redis; key: string }, ttlMs: number = PAYMENT_CLAIM_TTL_MS): Promise<boolean> {
  return (await redis.set(key, String(Date.now()), 'PX', ttlMs, 'NX')) === 'OK';
}
