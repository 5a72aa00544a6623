// The CLI's hash and signature primitives: libsodium (sodium-native, an optional dependency) when it is
// installed, else node:crypto. Both verify Ed25519 strictly (RFC 8032; design §4); libsodium is about
// twice as fast, which matters when a log has millions of signatures.
import { createHash, createHmac, createPublicKey, hash, verify, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import { cryptoBackend, isStrictEd25519PublicKey, setCryptoBackend, type CryptoBackend } from '../protocol/crypto.ts';
import { offHeapMessage, offHeapSignature } from '../protocol/sodium-args.ts';

interface Sodium {
  crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
}

const CACHE_LIMIT = 10_000;
// The strictness check costs more than a verification, so it is cached per key, as are parsed keys.
const strict = new Map<string, boolean>();
const keyObjects = new Map<string, KeyObject>();
// protocol/signatures.ts hands the same bytes for the same key: looked up by identity first, with no encoding.
const strictByBytes = new WeakMap<Uint8Array, boolean>();
const keyObjectsByBytes = new WeakMap<Uint8Array, KeyObject>();

const asBuffer = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

function isStrictKey(publicKey: Uint8Array): boolean {
  const known = strictByBytes.get(publicKey);
  if (known !== undefined) return known;
  const id = asBuffer(publicKey).toString('base64');
  let ok = strict.get(id);
  if (ok === undefined) {
    ok = isStrictEd25519PublicKey(publicKey);
    if (strict.size >= CACHE_LIMIT) strict.clear();
    strict.set(id, ok);
  }
  strictByBytes.set(publicKey, ok);
  return ok;
}

function keyObject(publicKey: Uint8Array): KeyObject {
  const known = keyObjectsByBytes.get(publicKey);
  if (known) return known;
  const id = asBuffer(publicKey).toString('base64url');
  let key = keyObjects.get(id);
  if (!key) {
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: id }, format: 'jwk' });
    if (keyObjects.size >= CACHE_LIMIT) keyObjects.clear();
    keyObjects.set(id, key);
  }
  keyObjectsByBytes.set(publicKey, key);
  return key;
}

const sha256 = (data: Uint8Array): Uint8Array => hash('sha256', data, 'buffer') as unknown as Uint8Array;

// The verifier never signs; signing stays with whatever backend was installed before (noble by default,
// or a service's own when both run in one process, as in tests).
const common = () => {
  const before = cryptoBackend();
  return {
    sha256,
    // Node hashes a string's UTF-8 directly: no encoded copy of each JCS text and entry.
    sha256Utf8: (text: string) => hash('sha256', text, 'buffer') as unknown as Uint8Array,
    // A hex digest is a string straight from OpenSSL: no Buffer (and its backing store) per hash.
    sha256Hex: (data: Uint8Array | string) => hash('sha256', data, 'hex'),
    // The digest as Node makes it, off V8's heap: a copy would be an on-heap array whose `.buffer` (the outcome
    // stream reads words through a DataView) moves it out again.
    hmacSha256: (key: Uint8Array, data: Uint8Array) => createHmac('sha256', key).update(data).digest(),
    ed25519Sign: before.ed25519Sign,
    ed25519PublicKey: before.ed25519PublicKey,
  };
};

/** node:crypto (OpenSSL), with the strict key check in front. */
const nodeCryptoBackend = (): CryptoBackend => ({
  name: 'node:crypto',
  ...common(),
  ed25519Verify(signature, message, publicKey) {
    if (signature.length !== 64 || publicKey.length !== 32 || !isStrictKey(publicKey)) return false;
    // OpenSSL rejects S >= L; a small-order R cannot pass with a strict (non-small-order) key.
    try {
      return verify(null, message, keyObject(publicKey), signature);
    } catch {
      return false;
    }
  },
});

function sodiumBackend(sodium: Sodium): CryptoBackend {
  return {
    name: 'sodium',
    ...common(),
    ed25519Verify(signature, message, publicKey) {
      if (signature.length !== 64 || publicKey.length !== 32 || !isStrictKey(publicKey)) return false;
      // A key is decoded once and cached (protocol/signatures.ts), so it moves off V8's heap only once.
      return sodium.crypto_sign_verify_detached(offHeapSignature(signature), offHeapMessage(message), publicKey);
    },
  };
}

/**
 * Installs the fastest backend available and returns its name.
 * @param prefer `node:crypto` forces the fallback (tests, or a libsodium one does not trust)
 */
export function installCrypto(prefer?: string): string {
  let backend: CryptoBackend | null = null;
  if (prefer !== 'node:crypto') {
    try {
      // Loaded at run time, so the bundled CLI works without the optional dependency.
      backend = sodiumBackend(createRequire(import.meta.url)('sodium-native') as Sodium);
    } catch {
      backend = null;
    }
  }
  backend ??= nodeCryptoBackend();
  setCryptoBackend(backend);
  return backend.name;
}

/** sha256 of a string, hex (file names of pins). */
export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');
