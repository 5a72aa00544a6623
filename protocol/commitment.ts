// Client-seed commitments: commitment = sha256(clientSeedRaw bytes), hex.
import { sha256Hex } from './crypto.ts';
import { fromHex, isHex } from './encoding.ts';
import type { Hex32 } from './hex32.ts';

export const CLIENT_SEED_BYTES = 32;

export const isClientSeedHex = (value: unknown): value is string => isHex(value, CLIENT_SEED_BYTES);

/**
 * @throws {TypeError} when the seed is not 32 bytes of lowercase hex
 * @example commitmentOf('00'.repeat(32)) // '66687aad…'
 */
export const commitmentOf = (clientSeedRaw: string): Hex32 => sha256Hex(fromHex(clientSeedRaw, CLIENT_SEED_BYTES)) as Hex32;

export function verifyCommitment(clientSeedRaw: string, commitment: string): boolean {
  if (!isClientSeedHex(clientSeedRaw) || !isHex(commitment, 32)) return false;
  // Both are lowercase hex of 32 bytes: equal text is equal bytes.
  return sha256Hex(fromHex(clientSeedRaw)) === commitment;
}
