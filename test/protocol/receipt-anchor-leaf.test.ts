// The anchor's receipt check reads `anchor.betLogEntryHash` off the stored body's text: it must agree with a full
// parse on every real receipt, and leave anything unusual (the key repeated, escaped, absent, bad JSON) to the parse.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { anchorLeafHexOf } from '../../protocol/receipt.ts';

type Json = Record<string, unknown>;
const fixture = JSON.parse(readFileSync(new URL('../fixtures/verify/v1.json', import.meta.url), 'utf8')) as { receipts: Json[] };

describe('anchorLeafHexOf', () => {
  it('agrees with a full parse on the frozen dice and sweeper receipts', () => {
    expect(new Set(fixture.receipts.map((r) => r.game))).toEqual(new Set(['dice', 'sweeper']));
    for (const r of fixture.receipts) {
      const leaf = (r.anchor as { betLogEntryHash: string }).betLogEntryHash;
      expect(leaf).toMatch(/^[0-9a-f]{64}$/);
      expect(anchorLeafHexOf(JSON.stringify(r))).toBe(leaf);
      expect(anchorLeafHexOf(JSON.stringify(r, null, 2))).toBe(leaf);
    }
  });

  it('lets a full parse decide when the key is repeated, escaped or absent, and answers undefined for bad JSON', () => {
    const leaf = 'ab'.repeat(32);
    const decoy = 'cd'.repeat(32);
    // Another object naming the key before the anchor: the anchor's value wins.
    expect(anchorLeafHexOf(JSON.stringify({ input: { betLogEntryHash: decoy }, anchor: { betLogEntryHash: leaf } }))).toBe(leaf);
    // Inside a string value the key's quotes are escaped: it is not a key.
    expect(anchorLeafHexOf(JSON.stringify({ note: `"betLogEntryHash":"${decoy}"`, anchor: { betLogEntryHash: leaf } }))).toBe(leaf);
    expect(anchorLeafHexOf(JSON.stringify({ note: `"betLogEntryHash":"${decoy}"`, anchor: {} }))).toBeUndefined();
    // An escaped value is decoded as JSON decodes it.
    expect(anchorLeafHexOf(`{"anchor":{"betLogEntryHash":"\\u0061b${'ab'.repeat(31)}"}}`)).toBe(leaf);
    expect(anchorLeafHexOf(JSON.stringify({ anchor: { status: 'pending_commit' } }))).toBeUndefined();
    expect(anchorLeafHexOf('{"anchor":{"betLogEntryHash":"ab')).toBeUndefined();
    expect(anchorLeafHexOf('null')).toBeUndefined();
  });
});
