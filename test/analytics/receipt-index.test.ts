// The archive's receipt fields: read where they stand in the service's own receipts (dice and sweeper, as stored),
// and by a full parse for any other shape, with the same answer either way.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { receiptIndexOf } from '../../analytics/receipt-index.ts';

type Json = Record<string, any>;
const fixture = JSON.parse(readFileSync(new URL('../fixtures/verify/v1.json', import.meta.url), 'utf8')) as { receipts: Json[] };
const pending = (r: Json) => ({ ...r, anchor: { ...r.anchor, status: 'pending_commit', betLogProof: [], betLogIndex: null } });
const expected = (r: Json) => ({
  receiptId: r.receiptId,
  game: r.game,
  player: r.player,
  status: r.status,
  anchorStatus: r.anchor.status,
  createdAt: r.createdAt,
});

describe('receiptIndexOf', () => {
  afterEach(() => vi.restoreAllMocks());

  it('reads the service receipts, stored or anchored, without parsing them whole', () => {
    expect(new Set(fixture.receipts.map((r) => r.game))).toEqual(new Set(['dice', 'sweeper']));
    const parse = vi.spyOn(JSON, 'parse');
    for (const r of fixture.receipts) {
      for (const body of [r, pending(r)]) {
        expect(receiptIndexOf(JSON.stringify(body))).toEqual(expected(body));
        expect(receiptIndexOf(Buffer.from(JSON.stringify(body)))).toEqual(expected(body));
      }
    }
    expect(parse).not.toHaveBeenCalled();
  });

  it('reads fields with multi-byte characters from the stored bytes as from the text', () => {
    const r = fixture.receipts[0] as Json;
    const accented = { ...r, id: `é${r.id}`, player: 'p_é✓𝄞', status: 'wön', anchor: { ...r.anchor, status: 'ançhored' } };
    expect(receiptIndexOf(Buffer.from(JSON.stringify(accented)))).toEqual(expected(accented));
    expect(receiptIndexOf(JSON.stringify(accented))).toEqual(expected(accented));
  });

  it('parses any other shape in full, to the same fields', () => {
    const r = fixture.receipts[0] as Json;
    const reordered = Object.fromEntries(Object.entries(r).reverse());
    expect(receiptIndexOf(JSON.stringify(reordered))).toEqual(expected(r));
    const quoted = { ...r, player: 'p_"odd"\\name' };
    expect(receiptIndexOf(JSON.stringify(quoted))).toEqual(expected(quoted));
    expect(receiptIndexOf(Buffer.from(JSON.stringify(quoted)))).toEqual(expected(quoted));
    const { createdAt, ...noTime } = r;
    expect(receiptIndexOf(JSON.stringify({ ...noTime, settledAt: createdAt }))).toMatchObject({ createdAt });
    expect(receiptIndexOf(JSON.stringify({ ...noTime, createdAt: 'not a time' }))).toMatchObject({ createdAt: '1970-01-01T00:00:00.000Z' });
    const { anchor, ...noAnchor } = r;
    expect(receiptIndexOf(JSON.stringify(noAnchor))).toMatchObject({ anchorStatus: 'pending_commit' });
  });

  it('refuses what is not a receipt', () => {
    for (const text of ['', 'null', '[]', '{"receiptId":7}', '{"id":"x"', '{"game":"dice"}']) expect(receiptIndexOf(text)).toBeNull();
  });
});
