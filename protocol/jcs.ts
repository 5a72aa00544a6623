// RFC 8785 canonical JSON and the hashes defined over it.
import canonicalizeImport from 'canonicalize';
import { sha256Utf8Hex } from './crypto.ts';
import type { Hex32 } from './hex32.ts';

const canonicalizeFn = canonicalizeImport as unknown as (value: unknown) => string | undefined;

/** Any UTF-16 surrogate: a string without one cannot hold a lone surrogate, which RFC 8785 forbids. */
const SURROGATE = /[\ud800-\udfff]/;
/** What JSON.stringify escapes in a string (besides lone surrogates): a string without any is itself in quotes. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what JSON escapes
const ESCAPED_OR_SURROGATE = /["\\\u0000-\u001f\ud800-\udfff]/;

const MAX_FAST_DEPTH = 64;

/** Thrown inside the fast path for anything it leaves to the library (which then decides, or throws). */
const NOT_PLAIN = Symbol('not plain');

/** A string as JSON text; most (hex, base58, base64, ISO times) need no escape and no scan beyond one test. */
function quoted(text: string): string {
  if (!ESCAPED_OR_SURROGATE.test(text)) return `"${text}"`;
  if (SURROGATE.test(text)) throw NOT_PLAIN;
  return JSON.stringify(text);
}

/** An object's own keys in insertion order, with their JCS order and their JSON texts. */
interface Shape {
  keys: readonly string[];
  sorted: readonly string[];
  quotedKeys: readonly string[];
}

const MAX_SHAPES = 32;
// Payloads, acks and entries come in a handful of key lists: each is sorted and quoted once, not per object.
// Keys are compared as strings, so a list matches only when it is the very same keys in the same order.
const shapes: Shape[] = [];

function shapeOf(keys: string[]): Shape {
  for (const shape of shapes) {
    if (shape.keys.length !== keys.length) continue;
    let same = true;
    for (let i = 0; i < keys.length && same; i++) same = shape.keys[i] === keys[i];
    if (same) return shape;
  }
  const sorted = [...keys].sort();
  const shape = { keys, sorted, quotedKeys: sorted.map(quoted) };
  if (shapes.length >= MAX_SHAPES) shapes.pop();
  shapes.unshift(shape);
  return shape;
}

/**
 * The values our payloads, acks and receipts are made of (plain objects and arrays of strings without surrogates,
 * finite numbers, booleans and null) serialized as the library does (the same key sort, the same number and string
 * forms), without its per-character surrogate scan of every string. Anything else throws NOT_PLAIN.
 */
function plain(value: unknown, depth: number): string {
  switch (typeof value) {
    case 'string':
      return quoted(value);
    case 'number':
      if (!Number.isFinite(value)) throw NOT_PLAIN;
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (depth >= MAX_FAST_DEPTH) throw NOT_PLAIN;
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          const item = value[i] as unknown;
          if (item === undefined || typeof item === 'symbol') throw NOT_PLAIN;
          out += (i ? ',' : '') + plain(item, depth + 1);
        }
        return `${out}]`;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if ((proto !== Object.prototype && proto !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function') throw NOT_PLAIN;
      const record = value as Record<string, unknown>;
      const { sorted, quotedKeys } = shapeOf(Object.keys(record));
      let out = '{';
      let first = true;
      for (let i = 0; i < sorted.length; i++) {
        const item = record[sorted[i] as string];
        if (item === undefined || typeof item === 'symbol') continue;
        out += `${first ? '' : ','}${quotedKeys[i]}:${plain(item, depth + 1)}`;
        first = false;
      }
      return `${out}}`;
    }
    default:
      throw NOT_PLAIN;
  }
}

/**
 * RFC 8785 (JCS) serialization, byte for byte the `canonicalize` library's; plain values skip its surrogate scan.
 * @throws {TypeError} when the value has no JSON form (undefined, a function, a bigint)
 * @example canonicalize({ b: 1, a: 'x' }) // '{"a":"x","b":1}'
 */
export function canonicalize(value: unknown): string {
  try {
    return plain(value, 0);
  } catch (err) {
    if (err !== NOT_PLAIN) throw err;
  }
  const text = canonicalizeFn(value);
  if (text === undefined) throw new TypeError('value has no canonical JSON form');
  return text;
}

/** sha256 of the JCS bytes, lowercase hex. */
export const jcsSha256Hex = (value: unknown): Hex32 => sha256Utf8Hex(canonicalize(value)) as Hex32;
