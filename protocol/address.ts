/**
 * Wallet and account addresses, and Ed25519 public keys: both base58 of 32 bytes, branded apart so that a session
 * key is never passed where a wallet goes. `Address` is @solana/kit's own type, so a parsed address goes straight to
 * kit; the checks are ours (@scure/base), so that the verifier's browser bundle carries no kit code.
 * @module
 */
import type { Address } from '@solana/kit';
import { fromBase58 } from './encoding.ts';

export type { Address };

declare const BRAND: unique symbol;

/** A string that passed the check named `Name`. */
export type Brand<T, Name extends string> = T & { readonly [BRAND]: Name };

/** An Ed25519 public key in base58 (a session key, the ack or anchor key): 32 bytes. */
export type Base58Key = Brand<string, 'Base58Key'>;

function isBase58Of32(value: unknown): value is string {
  if (typeof value !== 'string' || value.length < 32 || value.length > 44) return false;
  try {
    fromBase58(value, 32);
    return true;
  } catch {
    return false;
  }
}

/** @example isAddress('11111111111111111111111111111111') // true */
export const isAddress = (value: unknown): value is Address => isBase58Of32(value);

/** @throws {TypeError} when `value` is not base58 of 32 bytes */
export function assertIsAddress(value: unknown): asserts value is Address {
  if (!isAddress(value)) throw new TypeError('expected a base58 address of 32 bytes');
}

/**
 * Parses an address at the edge (a request, a chain read, a CLI argument).
 * @throws {TypeError} when `value` is not base58 of 32 bytes
 * @example address('11111111111111111111111111111111')
 */
export function address(value: string): Address {
  assertIsAddress(value);
  return value;
}

export const isBase58Key = (value: unknown): value is Base58Key => isBase58Of32(value);

/** @throws {TypeError} when `value` is not base58 of 32 bytes */
export function assertIsBase58Key(value: unknown): asserts value is Base58Key {
  if (!isBase58Key(value)) throw new TypeError('expected a base58 Ed25519 public key of 32 bytes');
}

/**
 * Parses an Ed25519 public key at the edge.
 * @throws {TypeError} when `value` is not base58 of 32 bytes
 */
export function base58Key(value: string): Base58Key {
  assertIsBase58Key(value);
  return value;
}
