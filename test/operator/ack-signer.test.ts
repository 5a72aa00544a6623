// The remembering ack signer (operator/ack-signer.ts) gives exactly the ack a fresh signature gives, for every body,
// whether remembered or not; bodies that differ only in a field's type get their own acks.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rememberingAckSigner } from '../../operator/ack-signer.ts';
import { signAck, verifyAck, type AckBody } from '../../protocol/ack.ts';
import { ed25519PublicKey } from '../../protocol/crypto.ts';
import { toBase58 } from '../../protocol/encoding.ts';

const seed = randomBytes(32);
const publicKey = toBase58(ed25519PublicKey(seed));
const body = (i: number): AckBody => ({
  betPayloadHash: randomBytes(32).toString('hex'),
  betNonce: i,
  rngIndex: 1000 + i,
  rngChainHead: 'ab'.repeat(32),
  committedAt: new Date(1_700_000_000_000 + i).toISOString(),
  revealDeadline: new Date(1_700_000_600_000 + i).toISOString(),
});

describe('the remembering ack signer', () => {
  it('gives the fresh ack, first time and remembered, and a caller changing its copy changes nothing', () => {
    const sign = rememberingAckSigner(seed);
    const b = body(1);
    const first = sign({ ...b, extra: 'ignored' } as AckBody);
    expect(first).toEqual(signAck(b, seed));
    expect(verifyAck(first, publicKey)).toEqual({ ok: true });
    first.operatorSignature = 'tampered';
    expect(sign(b)).toEqual(signAck(b, seed));
  });

  it('keeps bodies apart by value and type', () => {
    const sign = rememberingAckSigner(seed);
    const b = body(2);
    const asText = { ...b, rngIndex: String(b.rngIndex) } as unknown as AckBody;
    expect(sign(b)).toEqual(signAck(b, seed));
    expect(sign(asText)).toEqual(signAck(asText, seed));
    expect(sign(asText).ackHash).not.toBe(sign(b).ackHash);
    const later = { ...b, revealDeadline: new Date(1_800_000_000_000).toISOString() };
    expect(sign(later)).toEqual(signAck(later, seed));
  });

  it('stays right past its limit', () => {
    const sign = rememberingAckSigner(seed, 4);
    const bodies = Array.from({ length: 10 }, (_, i) => body(i));
    for (const b of [...bodies, ...bodies.reverse()]) expect(sign(b)).toEqual(signAck(b, seed));
  });
});
