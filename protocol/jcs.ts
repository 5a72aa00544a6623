// RFC 8785 canonical JSON and the hashes defined over it.
import canonicalizeImport from 'canonicalize';
import { sha256 } from './crypto.ts';
import { utf8 } from './encoding.ts';
import { toHex32, type Hex32 } from './hex32.ts';

const canonicalizeFn = canonicalizeImport as unknown as (value: unknown) => string | undefined;

/**
 * RFC 8785 (JCS) serialization.
 * @throws {TypeError} when the value has no JSON form (undefined, a function, a bigint)
 * @example canonicalize({ b: 1, a: 'x' }) // '{"a":"x","b":1}'
 */
export function canonicalize(value: unknown): string {
  const text = canonicalizeFn(value);
  if (text === undefined) throw new TypeError('value has no canonical JSON form');
  return text;
}

/** sha256 of the JCS bytes, lowercase hex. */
export const jcsSha256Hex = (value: unknown): Hex32 => toHex32(sha256(utf8(canonicalize(value))));
