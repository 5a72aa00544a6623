// RFC 8785 canonical JSON and the hashes defined over it.
import canonicalizeImport from 'canonicalize';
import { sha256 } from './crypto.ts';
import { toHex, utf8 } from './encoding.ts';

const canonicalizeFn = canonicalizeImport as unknown as (value: unknown) => string | undefined;

// Any UTF-16 surrogate: a string without one (nearly every string a receipt holds) needs no pairing check.
const SURROGATE = /[\uD800-\uDFFF]/;
const MAX_DEPTH = 64;

/**
 * The JCS text of the plain JSON values every receipt and entry is made of (strings without surrogates, finite
 * numbers, booleans, null, arrays and plain objects), as the library writes it, without its per-character
 * surrogate scan; undefined for anything else, which the library then serializes (or refuses).
 */
function fastCanonical(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return SURROGATE.test(value) ? undefined : JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : undefined;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (depth >= MAX_DEPTH) return undefined;
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          const item = fastCanonical(value[i], depth + 1);
          if (item === undefined) return undefined;
          out += i === 0 ? item : `,${item}`;
        }
        return `${out}]`;
      }
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
      const keys = Object.keys(value).sort();
      let out = '{';
      let first = true;
      for (const key of keys) {
        const v = (value as Record<string, unknown>)[key];
        if (v === undefined) continue;
        if (SURROGATE.test(key)) return undefined;
        const item = fastCanonical(v, depth + 1);
        if (item === undefined) return undefined;
        out += `${first ? '' : ','}${JSON.stringify(key)}:${item}`;
        first = false;
      }
      return `${out}}`;
    }
    default:
      return undefined;
  }
}

/**
 * RFC 8785 (JCS) serialization.
 * @throws {TypeError} when the value has no JSON form (undefined, a function, a bigint)
 * @example canonicalize({ b: 1, a: 'x' }) // '{"a":"x","b":1}'
 */
export function canonicalize(value: unknown): string {
  const fast = fastCanonical(value, 0);
  if (fast !== undefined) return fast;
  const text = canonicalizeFn(value);
  if (text === undefined) throw new TypeError('value has no canonical JSON form');
  return text;
}

/** sha256 of the JCS bytes, lowercase hex. */
export const jcsSha256Hex = (value: unknown): string => toHex(sha256(utf8(canonicalize(value))));
