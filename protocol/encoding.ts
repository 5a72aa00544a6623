// Byte encodings pinned by the protocol: lowercase hex for hashes, base64 for signatures, base58 for keys.
import { base58, base64 } from '@scure/base';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';

const HEX_RE = /^(?:[0-9a-f]{2})*$/;

const encoder = new TextEncoder();
export const utf8 = (text: string): Uint8Array => encoder.encode(text);

export const toHex = (bytes: Uint8Array): string => bytesToHex(bytes);

/**
 * Parses lowercase hex of an exact byte length.
 * @throws {TypeError} when the input is not lowercase hex of that length
 */
export function fromHex(hex: string, expectedLength?: number): Uint8Array {
  if (typeof hex !== 'string' || !HEX_RE.test(hex)) throw new TypeError('expected lowercase hex');
  if (expectedLength !== undefined && hex.length !== expectedLength * 2) {
    throw new TypeError(`expected ${expectedLength} bytes of hex`);
  }
  return hexToBytes(hex);
}

export const isHex = (value: unknown, byteLength: number): value is string =>
  typeof value === 'string' && value.length === byteLength * 2 && HEX_RE.test(value);

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

/** @throws {TypeError} when the input is not canonical padded base64 */
export const fromBase64 = (text: string, expectedLength?: number): Uint8Array => decodeAs(base64, 'base64', text, expectedLength);

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
