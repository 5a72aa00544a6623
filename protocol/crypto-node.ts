// Native node:crypto backend for servers; never imported by the portable core.
import { hash, createHmac, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { isStrictEd25519PublicKey, type CryptoBackend } from './crypto.ts';

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const KEY_CACHE_LIMIT = 10_000;

// Decoding a key and the strictness check cost more than the verification, so keys are cached.
const publicKeys = new Map<string, KeyObject | null>();
const privateKeys = new Map<string, KeyObject>();

function publicKeyObject(publicKey: Uint8Array): KeyObject | null {
  const id = Buffer.from(publicKey).toString('base64');
  let key = publicKeys.get(id);
  if (key === undefined) {
    key = isStrictEd25519PublicKey(publicKey)
      ? createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, publicKey]), format: 'der', type: 'spki' })
      : null;
    if (publicKeys.size >= KEY_CACHE_LIMIT) publicKeys.clear();
    publicKeys.set(id, key);
  }
  return key;
}

function privateKeyObject(seed: Uint8Array): KeyObject {
  const id = Buffer.from(seed).toString('base64');
  let key = privateKeys.get(id);
  if (!key) {
    key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
    if (privateKeys.size >= 64) privateKeys.clear();
    privateKeys.set(id, key);
  }
  return key;
}

export const nodeBackend: CryptoBackend = {
  name: 'node',
  // One-shot hashing skips a Hash object per call, which matters on the Merkle and RNG hot paths.
  sha256: (data) => hash('sha256', data, 'buffer') as unknown as Uint8Array,
  hmacSha256: (key, data) => new Uint8Array(createHmac('sha256', key).update(data).digest()),
  ed25519Verify(signature, message, publicKey) {
    if (signature.length !== 64) return false;
    const key = publicKeyObject(publicKey);
    if (!key) return false;
    // OpenSSL rejects S >= L and compares R byte-for-byte, which is the strict RFC 8032 check.
    return verify(null, message, key, signature);
  },
  ed25519Sign: (message, seed) => new Uint8Array(sign(null, message, privateKeyObject(seed))),
  ed25519PublicKey(seed) {
    const der = createPublicKey(privateKeyObject(seed)).export({ format: 'der', type: 'spki' });
    return new Uint8Array(der.subarray(SPKI_ED25519_PREFIX.length));
  },
};
