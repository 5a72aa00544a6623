// Ed25519 signing and verification on Node's native crypto (much faster than a JS implementation).
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export function verifySignature(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  try {
    return verify(null, message, { key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' }, signature);
  } catch {
    // OpenSSL rejects some non-canonical points outright; that is a failed verification.
    return false;
  }
}

export interface Keypair {
  publicKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

export function keypairFromSeed(seed: Uint8Array): Keypair {
  const priv: KeyObject = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(priv).export({ format: 'der', type: 'spki' });
  const publicKey = new Uint8Array(spki.subarray(SPKI_PREFIX.length));
  return { publicKey, sign: (message) => new Uint8Array(sign(null, message, priv)) };
}
