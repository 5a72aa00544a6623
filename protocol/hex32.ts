// A 32-byte hash as the protocol spells it: 64 lowercase hex digits (a payload hash, a leaf, a root).
import type { Brand } from './address.ts';
import { isHex, toHex } from './encoding.ts';

export type Hex32 = Brand<string, 'Hex32'>;

/** @example isHex32('00'.repeat(32)) // true */
export const isHex32 = (value: unknown): value is Hex32 => isHex(value, 32);

/** @throws {TypeError} when `value` is not 64 lowercase hex digits */
export function assertIsHex32(value: unknown): asserts value is Hex32 {
  if (!isHex32(value)) throw new TypeError('expected 32 bytes of lowercase hex');
}

/**
 * Parses a hash at the edge; a hash computed here is a Hex32 from the start (see {@link toHex32}).
 * @throws {TypeError} when `value` is not 64 lowercase hex digits
 */
export function hex32(value: string): Hex32 {
  assertIsHex32(value);
  return value;
}

/**
 * The hex of a 32-byte digest this code computed: only its length is checked, not its digits.
 * @throws {RangeError} when `digest` is not 32 bytes
 */
export function toHex32(digest: Uint8Array): Hex32 {
  if (digest.length !== 32) throw new RangeError(`expected a 32-byte digest, got ${digest.length} bytes`);
  return toHex(digest) as Hex32;
}
