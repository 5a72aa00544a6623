// The objects built for every bet and every audited entry share one hidden class per shape. In Node 20's V8, an object
// literal that starts with a spread (`{ ...head, input }`, `{ ...a, ...b }`) gets a class of its own for every object
// it makes: about 10 µs to build a receipt that way, and megamorphic reads wherever the object goes next (serializers,
// the verifier's comparison). Object.assign builds the same keys in the same order on one shared class.
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { signAck } from '../../protocol/ack.ts';
import { inspectReceipt, receiptReport } from '../../protocol/verify/receipt.ts';
import { rebuildReceipt } from '../helpers/rebuild-receipt.ts';

v8.setFlagsFromString('--allow-natives-syntax');
const sameClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

/** Two objects made after `make` has run often enough to have its feedback: the first few calls share a class anyway. */
function twoWarm<T extends object>(make: (i: number) => T): [T, T] {
  for (let i = 0; i < 200; i++) make(i);
  return [make(0), make(1)];
}

type Json = any;
const fixture = JSON.parse(readFileSync(new URL('../fixtures/verify/v1.json', import.meta.url), 'utf8')) as {
  config: { ackPublicKey: string };
  receipts: Json[];
};
const [wonA, wonB] = fixture.receipts.filter((r) => r.game === 'dice' && r.status === 'won') as [Json, Json];
const ticket = fixture.receipts.find((r) => r.game === 'sweeper') as Json;

describe('one hidden class per shape on the hot paths', () => {
  it('the control: a literal that starts with a spread does get a class per object here', () => {
    expect(sameClass(...twoWarm((i) => ({ ...{ a: `x${i}`, b: 'y' }, c: i })))).toBe(false);
  });

  it('Dice and Sweeper receipts', () => {
    expect(sameClass(...twoWarm((i) => rebuildReceipt(i % 2 ? wonA : wonB).receipt))).toBe(true);
    expect(sameClass(...twoWarm(() => rebuildReceipt(ticket).receipt))).toBe(true);
    expect(sameClass(...twoWarm(() => (rebuildReceipt(ticket).receipt.verifierPayload as { turns: object[] }).turns[0] as object))).toBe(true);
  });

  it('signed acks', () => {
    const seed = new Uint8Array(32).fill(3);
    const body = (i: number) => ({
      betPayloadHash: 'a'.repeat(64),
      betNonce: i,
      rngIndex: i,
      rngChainHead: 'b'.repeat(64),
      committedAt: 'x',
      revealDeadline: 'y',
    });
    expect(sameClass(...twoWarm((i) => signAck(body(i), seed)))).toBe(true);
  });

  it("the verifier's inspections and reports", () => {
    const ctx = { ackPublicKey: fixture.config.ackPublicKey };
    const [a, b] = twoWarm((i) => inspectReceipt(i % 2 ? wonA : wonB, ctx));
    expect(a.checks.every((c) => c.status !== 'fail')).toBe(true);
    expect(sameClass(a, b)).toBe(true);
    expect(sameClass(...twoWarm((i) => receiptReport(i % 2 ? a : b, [])))).toBe(true);
  });
});
