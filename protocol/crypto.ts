// Pluggable hash and signature primitives: portable @noble by default, native node:crypto on servers.
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { hmac as nobleHmac } from '@noble/hashes/hmac.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { ed25519 } from '@noble/curves/ed25519.js';

export interface CryptoBackend {
  readonly name: string;
  sha256(data: Uint8Array): Uint8Array;
  /** sha256 of a string's UTF-8 bytes, when the backend hashes text without an encoded copy first. */
  sha256Utf8?(text: string): Uint8Array;
  /**
   * sha256 as lowercase hex, of bytes or of a string's UTF-8, when the backend hands hex out directly: most
   * digests are compared as hex, and a native hex digest skips the byte array made and encoded per call.
   */
  sha256Hex?(data: Uint8Array | string): string;
  hmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array;
  /** Strict RFC 8032 verification; small-order and non-canonical keys are rejected. */
  ed25519Verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
  /** Signs with a 32-byte Ed25519 seed. */
  ed25519Sign(message: Uint8Array, seed: Uint8Array): Uint8Array;
  ed25519PublicKey(seed: Uint8Array): Uint8Array;
}

/**
 * True when `publicKey` decodes canonically to a point that is not of small order.
 * @example isStrictEd25519PublicKey(ed25519.getPublicKey(seed)) // true
 */
export function isStrictEd25519PublicKey(publicKey: Uint8Array): boolean {
  if (publicKey.length !== 32) return false;
  try {
    const point = ed25519.Point.fromBytes(publicKey, false);
    return !point.isSmallOrder();
  } catch {
    return false;
  }
}

export const nobleBackend: CryptoBackend = {
  name: 'noble',
  sha256: (data) => nobleSha256(data),
  hmacSha256: (key, data) => nobleHmac(nobleSha256, key, data),
  ed25519Verify(signature, message, publicKey) {
    if (signature.length !== 64 || !isStrictEd25519PublicKey(publicKey)) return false;
    try {
      return ed25519.verify(signature, message, publicKey, { zip215: false });
    } catch {
      return false;
    }
  },
  ed25519Sign: (message, seed) => ed25519.sign(message, seed),
  ed25519PublicKey: (seed) => ed25519.getPublicKey(seed),
};

let backend: CryptoBackend = nobleBackend;

/** Replaces the primitives used by every protocol function (the service installs node:crypto). */
export function setCryptoBackend(next: CryptoBackend): void {
  backend = next;
}

export function cryptoBackend(): CryptoBackend {
  return backend;
}

export const sha256 = (data: Uint8Array): Uint8Array => backend.sha256(data);
const encoder = new TextEncoder();
/** sha256 of the UTF-8 bytes of `text` (JCS texts, entries): a bulk audit hashes several an entry. */
export const sha256Utf8 = (text: string): Uint8Array => (backend.sha256Utf8 ? backend.sha256Utf8(text) : backend.sha256(encoder.encode(text)));
/** sha256 of bytes, lowercase hex. */
export const sha256Hex = (data: Uint8Array): string => (backend.sha256Hex ? backend.sha256Hex(data) : bytesToHex(backend.sha256(data)));
/** sha256 of the UTF-8 bytes of `text`, lowercase hex. */
export const sha256Utf8Hex = (text: string): string => (backend.sha256Hex ? backend.sha256Hex(text) : bytesToHex(sha256Utf8(text)));
export const hmacSha256 = (key: Uint8Array, data: Uint8Array): Uint8Array => backend.hmacSha256(key, data);
export const ed25519Verify = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean =>
  backend.ed25519Verify(signature, message, publicKey);
export const ed25519Sign = (message: Uint8Array, seed: Uint8Array): Uint8Array => backend.ed25519Sign(message, seed);
export const ed25519PublicKey = (seed: Uint8Array): Uint8Array => backend.ed25519PublicKey(seed);
