// Fresh branded values for tests that write ledger records directly: random, and parsed as the edge parses them.
import { randomBytes } from 'node:crypto';
import { address, base58Key, type Address, type Base58Key } from '../../protocol/address.ts';
import { toBase58 } from '../../protocol/encoding.ts';
import { toHex32, type Hex32 } from '../../protocol/hex32.ts';

export const randomAddress = (): Address => address(toBase58(randomBytes(32)));
export const randomKey = (): Base58Key => base58Key(toBase58(randomBytes(32)));
export const randomHex32 = (): Hex32 => toHex32(randomBytes(32));
