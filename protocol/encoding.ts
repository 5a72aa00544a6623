// Byte encodings pinned by the protocol: lowercase hex for hashes, base64 for signatures, base58 for keys.
import { base58, base64 } from '@scure/base';
import { bytesToHex } from '@noble/hashes/utils.js';

// Lowercase hex digits only: a verifier compares hashes as text, so one value has one spelling.
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX_VALUE['0123456789abcdef'.charCodeAt(i)] = i;
const hexDigit = (code: number): number => (code < 128 ? (HEX_VALUE[code] as number) : -1);

// Table-driven rather than a regular expression: a bulk audit decodes several hashes per entry.
function decodeHex(hex: string): Uint8Array | null {
  if (hex.length % 2 !== 0) return null;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0, j = 0; i < out.length; i++, j += 2) {
    const hi = hexDigit(hex.charCodeAt(j));
    const lo = hexDigit(hex.charCodeAt(j + 1));
    if ((hi | lo) < 0) return null;
    out[i] = (hi << 4) | lo;
  }
  return out;
}

function isLowerHex(hex: string): boolean {
  if (hex.length % 2 !== 0) return false;
  for (let j = 0; j < hex.length; j++) if (hexDigit(hex.charCodeAt(j)) < 0) return false;
  return true;
}

const encoder = new TextEncoder();
export const utf8 = (text: string): Uint8Array => encoder.encode(text);

export const toHex = (bytes: Uint8Array): string => bytesToHex(bytes);

/**
 * Parses lowercase hex of an exact byte length.
 * @throws {TypeError} when the input is not lowercase hex of that length
 */
export function fromHex(hex: string, expectedLength?: number): Uint8Array {
  if (typeof hex !== 'string') throw new TypeError('expected lowercase hex');
  if (expectedLength !== undefined && hex.length !== expectedLength * 2) {
    throw new TypeError(isLowerHex(hex) ? `expected ${expectedLength} bytes of hex` : 'expected lowercase hex');
  }
  const bytes = decodeHex(hex);
  if (!bytes) throw new TypeError('expected lowercase hex');
  return bytes;
}

export const isHex = (value: unknown, byteLength: number): value is string => typeof value === 'string' && value.length === byteLength * 2 && isLowerHex(value);

export const toBase64 = (bytes: Uint8Array): string => base64.encode(bytes);

function decodeAs(coder: { decode(text: string): Uint8Array }, name: string, text: string, expectedLength?: number): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = coder.decode(text);
  } catch {
    throw new TypeError(`expected ${name}`);
  }
  if (expectedLength !== undefined && bytes.length !== expectedLength) {
    throw new TypeError(`expected ${expectedLength} bytes of ${name}`);
  }
  return bytes;
}

/**
 * Decodes canonical padded base64 with the platform's `atob`, several times faster than a JavaScript decoder
 * (a bulk audit decodes three signatures an entry). `atob` also takes text without padding, with whitespace
 * or with padding bits set: only text that is the exact encoding of the bytes it gives back passes.
 * @throws {TypeError} when the input is not canonical padded base64
 */
export function fromBase64(text: string, expectedLength?: number): Uint8Array {
  let binary: string;
  try {
    if (typeof text !== 'string') throw new TypeError();
    binary = atob(text);
    if (btoa(binary) !== text) throw new TypeError();
  } catch {
    throw new TypeError('expected base64');
  }
  if (expectedLength !== undefined && binary.length !== expectedLength) throw new TypeError(`expected ${expectedLength} bytes of base64`);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export const toBase58 = (bytes: Uint8Array): string => base58.encode(bytes);

/** @throws {TypeError} when the input is not base58 of the expected length */
export const fromBase58 = (text: string, expectedLength?: number): Uint8Array => decodeAs(base58, 'base58', text, expectedLength);

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

export function u64be(value: bigint): Uint8Array {
  if (value < 0n || value >= 1n << 64n) throw new RangeError('u64 out of range');
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value);
  return out;
}

export function u32be(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value);
  return out;
}
