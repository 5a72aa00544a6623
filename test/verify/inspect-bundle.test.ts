// A tile's inspections travel back from a worker thread packed (shared check lists and commits sent once):
// unpacked, each must be exactly the inspection of its receipt, whatever the receipt's faults.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../protocol/jcs.ts';
import { leafHash } from '../../protocol/merkle.ts';
import { toHex, utf8 } from '../../protocol/encoding.ts';
import { encodeEntryBundle } from '../../protocol/tlog-tiles.ts';
import { inspectReceipt } from '../../protocol/verify/receipt.ts';
import { inspectBundle, unpackInspection } from '../../verifier/inspect-bundle.ts';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/verify/v1.json', import.meta.url), 'utf8')) as {
  config: { ackPublicKey: string };
  receipts: Record<string, unknown>[];
};

// The fixture's receipts, honest and tampered in every way a check names, cycled to fill a tile.
function receipts(count: number): unknown[] {
  const tamper: ((r: Record<string, any>) => unknown)[] = [
    (r) => r,
    (r) => ({ ...r, payout: 123 }),
    (r) => ({ ...r, anchor: { ...r.anchor, betLogProof: [...r.anchor.betLogProof].reverse() } }),
    (r) => ({ ...r, anchor: { ...r.anchor, status: 'pending_commit' } }),
    (r) => ({ ...r, anchor: undefined }),
    (r) => ({ ...r, game: 'roulette' }),
    () => 'not a receipt',
    (r) => ({ ...r, verifierPayload: { ...r.verifierPayload, commitSignature: 'AAAA' } }),
    (r) => ({ ...r, anchor: { ...r.anchor, stateRoot: 'ab'.repeat(32) } }),
    (r) => ({ ...r, anchor: { ...r.anchor, commitSignature: 'x' } }),
    (r) => ({ ...r, anchor: { ...r.anchor, stateRoot: { not: 'a string' } } }),
  ];
  // Each receipt next to its own tampered copies: shared parts must not leak from one to the next.
  return Array.from({ length: count }, (_, i) => {
    const r = structuredClone(fixture.receipts[Math.floor(i / tamper.length) % fixture.receipts.length]!);
    return tamper[i % tamper.length]!(r);
  });
}

const entryOf = (r: unknown): Uint8Array => {
  const entry = (r as { verifierPayload?: { betLogEntry?: unknown } })?.verifierPayload?.betLogEntry;
  return utf8(canonicalize(entry ?? { none: true }));
};

describe('packed bundle inspections', () => {
  const ackKeys = [{ publicKey: fixture.config.ackPublicKey, validFrom: '2000-01-01T00:00:00.000Z' }];
  const ctx = { ackPublicKey: fixture.config.ackPublicKey };

  it('unpack to the inspection of each receipt, from the first entry asked for', () => {
    const list = receipts(200);
    const bytes = (v: unknown) => utf8(JSON.stringify(v));
    for (const from of [0, 37]) {
      const result = inspectBundle({
        start: 0,
        width: list.length,
        from,
        entries: encodeEntryBundle(list.map(entryOf)),
        receipts: bytes({ receipts: list }),
        ackKeys,
      });
      expect(result.problem).toBeNull();
      expect(result.leaves).toEqual(list.slice(from).map((r) => toHex(leafHash(entryOf(r)))));
      expect(result.packed).toHaveLength(list.length - from);
      for (let i = from; i < list.length; i++) expect(unpackInspection(result, i - from)).toEqual(inspectReceipt(list[i], ctx, { bulk: true }));
      // What repeats is sent once: far fewer check lists and commits than receipts.
      expect(result.checkLists.length).toBeLessThan(40);
      expect(result.anchors.length).toBeLessThan(20);
    }
  });

  it('reports a receipt bundle of the wrong length or not JSON, and an unreadable one, per entry', () => {
    const list = receipts(10);
    const entries = encodeEntryBundle(list.map(entryOf));
    const short = inspectBundle({ start: 0, width: 10, from: 0, entries, receipts: utf8(JSON.stringify({ receipts: list.slice(1) })), ackKeys });
    expect(short.problem).toEqual({ reason: 'the receipt bundle does not hold 10 receipts', withheld: true });
    expect(short.packed).toEqual(Array(10).fill(null));
    const garbled = inspectBundle({ start: 0, width: 10, from: 0, entries: entries.slice(), receipts: utf8('{"receipts":['), ackKeys });
    expect(garbled.problem?.withheld).toBe(true);
    const gone = inspectBundle({ start: 0, width: 10, from: 4, entries: entries.slice(), receipts: { error: 'down', withheld: false }, ackKeys });
    expect(gone.problem).toEqual({ reason: 'down', withheld: false });
    expect(gone.leaves).toHaveLength(6);
    expect(unpackInspection(gone, 0)).toBeNull();
  });

  // Receipts are split where one object ends and the next begins (`},{`): a split anywhere else must leave
  // the verdict of the whole document, which a layout the split does not take (indented) always gets.
  it('reads a bundle split receipt by receipt exactly as the whole document', () => {
    const list = receipts(12).map((r, i) => (i === 1 ? { ...(r as object), source: '},{"id":"x"},{' } : i === 2 ? { ...(r as object), extra: [{}, {}] } : r));
    const entries = encodeEntryBundle(list.map(entryOf));
    const inspect = (text: string, from = 0) => inspectBundle({ start: 0, width: list.length, from, entries: entries.slice(), receipts: utf8(text), ackKeys });
    for (const from of [0, 5]) expect(inspect(JSON.stringify({ receipts: list }), from)).toEqual(inspect(JSON.stringify({ receipts: list }, null, 1), from));
    const withheld = { reason: `the receipt bundle does not hold ${list.length} receipts`, withheld: true };
    // One receipt too many, one too few, an unparsable one before `from`, and trailing text.
    expect(inspect(JSON.stringify({ receipts: [...list, list[0]] })).problem).toEqual(withheld);
    expect(inspect(JSON.stringify({ receipts: list.slice(1) })).problem).toEqual(withheld);
    expect(inspect(JSON.stringify({ receipts: list }).replace('{"id"', '{"id":'), 5).problem).toEqual(withheld);
    expect(inspect(`${JSON.stringify({ receipts: list })}]}`).problem).toEqual(withheld);
  });
});
