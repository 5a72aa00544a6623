import { describe, expect, it } from 'vitest';
import { cryptoBackend, ed25519PublicKey, nobleBackend, setCryptoBackend, sha256, sha256Hex, sha256Utf8, sha256Utf8Hex } from '../../protocol/crypto.ts';
import { nodeBackend } from '../../protocol/crypto-node.ts';
import { leafHash, leafHashHex, leafHashHexOfText, leafHashOfText, nodeHash, nodeHashHex } from '../../protocol/merkle.ts';
import { installCrypto } from '../../verifier/crypto.ts';
import { signText, verifyBase64Signature, verifyTextSignature } from '../../protocol/signatures.ts';
import { toBase58 } from '../../protocol/encoding.ts';

const TEXTS = ['', 'a', '{"v":1,"x":"é€𝄞"}', 'lone \ud800 high', 'lone \udc00 low', '\u0000nul', 'x'.repeat(5000)];

describe.each([
  ['the CLI', () => installCrypto()],
  ['the service', () => setCryptoBackend(nodeBackend)],
])('sha256 of text in %s backend', (_name, install) => {
  it('is sha256 of the TextEncoder bytes, lone surrogates included, and the leaf of a text is the leaf of its bytes', () => {
    const before = cryptoBackend();
    install();
    try {
      expect(cryptoBackend().sha256Utf8).toBeTypeOf('function');
      for (const text of TEXTS) {
        const bytes = new TextEncoder().encode(text);
        expect(Buffer.from(sha256Utf8(text)).toString('hex')).toBe(Buffer.from(sha256(bytes)).toString('hex'));
        expect(Buffer.from(leafHashOfText(text)).toString('hex')).toBe(Buffer.from(leafHash(bytes)).toString('hex'));
      }
    } finally {
      setCryptoBackend(before);
    }
  });
});

describe.each([
  ['the CLI', () => installCrypto(), true],
  ['the CLI without libsodium', () => installCrypto('node:crypto'), true],
  ['the service', () => setCryptoBackend(nodeBackend), true],
  ['the portable', () => setCryptoBackend(nobleBackend), false],
])('hex digests in %s backend', (_name, install, native) => {
  it('are the hex of the byte digests, for views into larger buffers and for any text', () => {
    const before = cryptoBackend();
    install();
    try {
      // Where the backend hands hex out itself, the protocol's hex helpers use it (no byte array per hash).
      expect(typeof cryptoBackend().sha256Hex === 'function').toBe(native);
      expect(sha256Utf8Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
      const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
      for (const text of TEXTS) {
        const bytes = new TextEncoder().encode(text);
        const padded = new Uint8Array(bytes.length + 7);
        padded.set(bytes, 3);
        const view = padded.subarray(3, 3 + bytes.length);
        expect(sha256Utf8Hex(text)).toBe(hex(sha256(bytes)));
        expect(sha256Hex(view)).toBe(hex(sha256(bytes)));
        expect(leafHashHexOfText(text)).toBe(hex(leafHash(bytes)));
        expect(leafHashHex(view)).toBe(hex(leafHash(bytes)));
      }
      const a = sha256(new Uint8Array([1]));
      const b = sha256(new Uint8Array([2]));
      expect(nodeHashHex(a, b)).toBe(hex(nodeHash(a, b)));
      expect(() => nodeHashHex(a, b.subarray(1))).toThrow(TypeError);
    } finally {
      setCryptoBackend(before);
    }
  });
});

describe('signed texts', () => {
  it('sign and verify the UTF-8 bytes of the text, whatever text came before (short after long, multi-byte, lone surrogates)', () => {
    const seed = new Uint8Array(32).fill(9);
    const key = toBase58(ed25519PublicKey(seed));
    const texts = ['x'.repeat(2000), 'pfws:v1:ack:00', 'é€𝄞', 'lone \ud800', '', 'y'.repeat(600), 'a'];
    for (const text of texts) {
      const signature = signText(text, seed);
      // The same bytes through the general path: the text's UTF-8 and nothing more.
      expect(verifyBase64Signature(signature, new TextEncoder().encode(text), key)).toBe(true);
      expect(verifyTextSignature(signature, text, key)).toBe(true);
      expect(verifyTextSignature(signature, `${text} `, key)).toBe(false);
    }
  });
});
