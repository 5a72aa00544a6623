// Published vectors: RFC 8032 (Ed25519) through both crypto backends, RFC 8785 (JCS) through our canonicalizer.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nobleBackend, type CryptoBackend } from '../../protocol/crypto.ts';
import { nodeBackend } from '../../protocol/crypto-node.ts';
import { canonicalize } from '../../protocol/jcs.ts';

const read = (name: string) => JSON.parse(readFileSync(new URL(`../vectors/${name}`, import.meta.url), 'utf8'));
const hex = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));
const ed = read('rfc8032-ed25519.json') as { vectors: { name: string; secretKey: string; publicKey: string; message: string; signature: string }[] };
const jcs = read('rfc8785-jcs.json') as { documents: { name: string; input: string; output: string }[]; numbers: { ieee: string; output: string }[] };

const L = (1n << 252n) + 27742317777372353535851937790883648493n;

describe.each([nobleBackend, nodeBackend] as CryptoBackend[])('RFC 8032 Ed25519 with the $name backend', (backend) => {
  it.each(ed.vectors)('$name: derives the key, signs and verifies', (v) => {
    expect(Buffer.from(backend.ed25519PublicKey(hex(v.secretKey))).toString('hex')).toBe(v.publicKey);
    expect(Buffer.from(backend.ed25519Sign(hex(v.message), hex(v.secretKey))).toString('hex')).toBe(v.signature);
    expect(backend.ed25519Verify(hex(v.signature), hex(v.message), hex(v.publicKey))).toBe(true);
  });

  it.each(ed.vectors)('$name: rejects a changed message or signature', (v) => {
    const sig = hex(v.signature);
    sig[5]! ^= 1;
    expect(backend.ed25519Verify(sig, hex(v.message), hex(v.publicKey))).toBe(false);
    expect(backend.ed25519Verify(hex(v.signature), hex(`${v.message}00`), hex(v.publicKey))).toBe(false);
  });

  it('rejects a non-canonical S (S + L), which a lax verifier accepts', () => {
    const v = ed.vectors[0]!;
    const sig = hex(v.signature);
    let s = 0n;
    for (let i = 31; i >= 0; i--) s = (s << 8n) | BigInt(sig[32 + i]!);
    s += L;
    for (let i = 0; i < 32; i++) sig[32 + i] = Number((s >> BigInt(8 * i)) & 0xffn);
    expect(backend.ed25519Verify(sig, hex(v.message), hex(v.publicKey))).toBe(false);
  });

  it('rejects a small-order public key even with a signature that satisfies the cofactorless equation', () => {
    const identity = hex(`01${'00'.repeat(31)}`);
    const sig = hex(`01${'00'.repeat(63)}`);
    expect(backend.ed25519Verify(sig, new TextEncoder().encode('anything'), identity)).toBe(false);
  });
});

describe('RFC 8785 JCS', () => {
  it.each(jcs.documents)('$name', (d) => {
    expect(canonicalize(JSON.parse(d.input))).toBe(d.output);
  });

  it.each(jcs.numbers)('number $ieee serializes as $output', (n) => {
    const value = Buffer.from(n.ieee, 'hex').readDoubleBE(0);
    expect(canonicalize(value)).toBe(n.output);
  });
});
