import { describe, expect, it } from 'vitest';
import { cryptoBackend, setCryptoBackend, sha256, sha256Utf8 } from '../../protocol/crypto.ts';
import { nodeBackend } from '../../protocol/crypto-node.ts';
import { leafHash, leafHashOfText } from '../../protocol/merkle.ts';
import { installCrypto } from '../../verifier/crypto.ts';

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
