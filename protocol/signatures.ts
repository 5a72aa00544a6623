// Ed25519 signatures in the protocol's encodings: base58 keys, base64 signatures, prefixed messages.
import { ed25519Sign, ed25519Verify } from './crypto.ts';
import { fromBase58, fromBase64, fromHex, toBase64 } from './encoding.ts';

const encoder = new TextEncoder();

export const ackMessage = (ackHash: string): string => `pfws:v1:ack:${ackHash}`;
export const manifestMessage = (manifestHash: string): string => `pfws:v1:manifest:${manifestHash}`;
export const revealMessageOf = (betPayloadHash: string, ackHash: string): string => `pfws:v1:reveal:${betPayloadHash}:${ackHash}`;

// Keys repeat across a log's signatures (one ack key, one session key per player): each is decoded once.
// The cached bytes are shared, and no backend writes to a key it is given.
const KEY_CACHE_LIMIT = 4096;
const decodedKeys = new Map<string, Uint8Array | null>();

function publicKeyOf(publicKeyB58: string): Uint8Array | null {
  let key = decodedKeys.get(publicKeyB58);
  if (key === undefined) {
    try {
      key = fromBase58(publicKeyB58, 32);
    } catch {
      key = null;
    }
    if (decodedKeys.size >= KEY_CACHE_LIMIT) decodedKeys.clear();
    decodedKeys.set(publicKeyB58, key);
  }
  return key;
}

/**
 * Verifies a base64 signature by a base58 key; any malformed input is simply invalid.
 * @example verifyBase64Signature(sig, utf8('msg'), '9xQe…') // boolean
 */
export function verifyBase64Signature(signatureB64: unknown, message: Uint8Array, publicKeyB58: unknown): boolean {
  if (typeof signatureB64 !== 'string' || typeof publicKeyB58 !== 'string') return false;
  const publicKey = publicKeyOf(publicKeyB58);
  if (!publicKey) return false;
  let signature: Uint8Array;
  try {
    signature = fromBase64(signatureB64, 64);
  } catch {
    return false;
  }
  return ed25519Verify(signature, message, publicKey);
}

// Signed texts are encoded into one reused buffer: TextEncoder.encode makes a backing store per call, several
// times the cost of encoding into this, and a bet signs or checks two texts. Signing and verifying are
// synchronous, so each use is over before the next one writes here.
let textBytes = new Uint8Array(512);

function encodeText(text: string): Uint8Array {
  // UTF-8 takes at most three bytes per UTF-16 code unit.
  if (text.length * 3 > textBytes.length) textBytes = new Uint8Array(text.length * 3);
  return textBytes.subarray(0, encoder.encodeInto(text, textBytes).written);
}

/**
 * {@link verifyBase64Signature} of a text's UTF-8 bytes.
 * @example verifyTextSignature(ack.operatorSignature, ackMessage(ack.ackHash), ackKey) // boolean
 */
export const verifyTextSignature = (signatureB64: unknown, text: string, publicKeyB58: unknown): boolean =>
  verifyBase64Signature(signatureB64, encodeText(text), publicKeyB58);

/** The commit signature: the session key over the 32 raw bytes of betPayloadHash. */
export function verifySessionSignature(betPayloadHash: string, signatureB64: unknown, sessionPubkey: string): boolean {
  let hash: Uint8Array;
  try {
    hash = fromHex(betPayloadHash, 32);
  } catch {
    return false;
  }
  return verifyBase64Signature(signatureB64, hash, sessionPubkey);
}

export const signText = (text: string, seed: Uint8Array): string => toBase64(ed25519Sign(encodeText(text), seed));
export const signBytes = (bytes: Uint8Array, seed: Uint8Array): string => toBase64(ed25519Sign(bytes, seed));
