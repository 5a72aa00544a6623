// The anchor's receipt check reads a stored body's leaf off the bytes Redis sent: whatever those bytes hold, it must
// answer what anchorLeafHexOf answers for their text.
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { storedLeafHexOf } from '../../anchor-worker/anchor.ts';
import { anchorLeafHexOf } from '../../protocol/receipt.ts';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/verify/v1.json', import.meta.url), 'utf8')) as { receipts: Record<string, unknown>[] };
const leaf = 'ab'.repeat(32);
const same = (bytes: Buffer) => expect(storedLeafHexOf(bytes)).toEqual(anchorLeafHexOf(bytes.toString('utf8')));

describe('storedLeafHexOf', () => {
  it('reads the frozen receipts, and leaves the unusual ones to a full parse as the text check does', () => {
    for (const r of fixture.receipts) same(Buffer.from(JSON.stringify(r)));
    for (const text of [
      JSON.stringify({ input: { betLogEntryHash: 'cd'.repeat(32) }, anchor: { betLogEntryHash: leaf } }),
      JSON.stringify({ note: `"betLogEntryHash":"${'cd'.repeat(32)}"`, anchor: {} }),
      `{"anchor":{"betLogEntryHash":"\\u0061b${'ab'.repeat(31)}"}}`,
      `{"anchor":{"betLogEntryHash":"${leaf}"},"x":"\\\\"}`,
      `{"anchor":{"betLogEntryHash":"é${leaf}"}}`,
      '{"anchor":{"betLogEntryHash":"ab',
      '{"anchor":{"betLogEntryHash":""}}',
      'null',
    ])
      same(Buffer.from(text));
    expect(storedLeafHexOf(Buffer.from(JSON.stringify({ anchor: { betLogEntryHash: leaf } })))).toBe(leaf);
  });

  it('agrees with the text check on any bytes', () => {
    const key = '"betLogEntryHash":"';
    const piece = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom(key, '"', '\\', '{"anchor":{', '}', leaf, 'é'));
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
      fc.array(piece, { maxLength: 8 }).map((p) => Buffer.from(p.join(''))),
    );
    fc.assert(fc.property(bytes, (b) => isDeepStrictEqual(storedLeafHexOf(b), anchorLeafHexOf(b.toString('utf8')))));
  });
});
