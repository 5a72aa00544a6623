// Client-seed commitments: commitment = sha256(clientSeedRaw bytes), hex.
import { sha256 } from './crypto.ts';
import { fromHex, isHex, bytesEqual } from './encoding.ts';
import { toHex32, type Hex32 } from './hex32.ts';

export const CLIENT_SEED_BYTES = 32;

export const isClientSeedHex = (value: unknown): value is string => isHex(value, CLIENT_SEED_BYTES);

/**
 * @throws {TypeError} when the seed is not 32 bytes of lowercase hex
 * @example commitmentOf('00'.repeat(32)) // '66687aad…'
 */
export const commitmentOf = (clientSeedRaw: string): Hex32 => toHex32(sha256(fromHex(clientSeedRaw, CLIENT_SEED_BYTES)));

export function verifyCommitment(clientSeedRaw: string, commitment: string): boolean {
  if (!isClientSeedHex(clientSeedRaw) || !isHex(commitment, 32)) return false;
  return bytesEqual(sha256(fromHex(clientSeedRaw)), fromHex(commitment));
}
