// Receipts, their anchors and manifests in the archive: a receipt reads back with its archived anchor in place,
// re-sending changes nothing, and rows archived before anchors had a table of their own still read — on both engines.
import { describe, expect, it } from 'vitest';
import { archiveAnchors, archiveManifests, archiveReceipts, archivedReceipt, archivedReceiptTexts, type ArchivedReceipt } from '../../analytics/archive.ts';
import { migrate } from '../../analytics/migrations.ts';
import { receiptIndexOf } from '../../analytics/receipt-index.ts';
import { dateTimeText } from '../../analytics/sql.ts';
import { TABLE_COLUMNS } from '../../analytics/tables.ts';
import { ENGINE_KINDS, engineEnv } from './engines.ts';
import { count } from './fixture.ts';

const receipt = (anchor: Record<string, unknown>) => ({
  id: 'dice_0123456789abcdef0123456789abcdef',
  receiptId: 'dice_0123456789abcdef0123456789abcdef',
  game: 'dice',
  player: 'p_3xYz9',
  status: 'won',
  note: "it's kept whole, \\ and \t all",
  anchor,
  createdAt: '2027-01-01T00:00:01.250Z',
});
const pending = { status: 'pending_commit', betLogIndex: null, betLogProof: [] };
const committed = { status: 'committed', betLogIndex: 7, betLogProof: ['aa'.repeat(32)] };

const archived = (body: string): ArchivedReceipt => ({ ...(receiptIndexOf(body) as NonNullable<ReturnType<typeof receiptIndexOf>>), body });

const manifest = {
  version: 1,
  eventCount: 3,
  eventRoot: 'aa'.repeat(32),
  firstEventId: '1-0',
  lastEventId: '3-0',
  previousManifestHash: '0'.repeat(64),
  operatorPublicKey: 'Op1111111111111111111111111111111111111111',
  createdAt: '2027-01-01T00:00:02.000Z',
  manifestHash: 'bb'.repeat(32),
  signature: 'c2ln',
};

describe.each(ENGINE_KINDS)('archive on %s', (kind) => {
  const env = engineEnv(kind);
  const id = receipt(pending).receiptId;

  it('keeps the body as stored, and reads it back with its anchor once the anchor is archived', async () => {
    const engine = await env.open();
    await migrate(engine);
    expect(await archivedReceipt(engine, id)).toBeNull();
    const body = JSON.stringify(receipt(pending));
    await archiveReceipts(engine, [archived(body)]);
    expect(await archivedReceipt(engine, id)).toEqual({ receipt: receipt(pending), anchored: false });
    expect(await engine.query(`SELECT body, anchorStatus, toString(createdAt) AS t FROM receipts`)).toEqual([
      { body, anchorStatus: 'pending_commit', t: '2027-01-01 00:00:01' },
    ]);

    // Anchors (sent twice, as a crash before the progress is recorded would) join the body they fill.
    for (let i = 0; i < 2; i++) await archiveAnchors(engine, [{ receiptId: id, anchorStatus: 'committed', anchor: JSON.stringify(committed) }]);
    expect(await archivedReceipt(engine, id)).toEqual({ receipt: receipt(committed), anchored: true });
    await engine.exec('OPTIMIZE TABLE receipt_anchors FINAL');
    expect(await count(engine, "SELECT count() AS n FROM receipt_anchors WHERE anchorStatus = 'committed'")).toBe(1);
    expect(await count(engine, 'SELECT count() AS n FROM receipts')).toBe(1);
  });

  it('still reads a receipt archived whole at version 2 before anchors had their own rows', async () => {
    const engine = await env.open();
    await migrate(engine);
    const row = (anchor: Record<string, unknown>, version: number) => [
      id,
      'dice',
      'p_3xYz9',
      'won',
      anchor.status as string,
      JSON.stringify(receipt(anchor)),
      dateTimeText(new Date('2027-01-01T00:00:01Z')),
      version,
    ];
    await engine.insert('receipts', TABLE_COLUMNS.receipts, [row(committed, 2)]);
    await engine.insert('receipts', TABLE_COLUMNS.receipts, [row(pending, 1)]);
    expect(await archivedReceipt(engine, id)).toEqual({ receipt: receipt(committed), anchored: false });
  });

  it('gives the texts of many receipts at once, as stored: each body with its archived anchor, or none', async () => {
    const engine = await env.open();
    await migrate(engine);
    const bodies = ['a', 'b', 'c'].map((n) => JSON.stringify({ ...receipt(pending), id: `dice_${n}`, receiptId: `dice_${n}` }));
    await archiveReceipts(engine, bodies.map(archived));
    await archiveAnchors(engine, [{ receiptId: 'dice_b', anchorStatus: 'committed', anchor: JSON.stringify(committed) }]);
    const rows = await archivedReceiptTexts(engine, ['dice_a', 'dice_b', 'dice_b', "dice_'missing"]);
    expect(rows.sort((x, y) => x.receiptId.localeCompare(y.receiptId))).toEqual([
      { receiptId: 'dice_a', body: bodies[0], anchor: null },
      { receiptId: 'dice_b', body: bodies[1], anchor: JSON.stringify(committed) },
    ]);
    expect(await archivedReceiptTexts(engine, [])).toEqual([]);
  });

  it('stores a manifest once however often it is sent', async () => {
    const engine = await env.open();
    await migrate(engine);
    for (let i = 0; i < 3; i++) await archiveManifests(engine, [{ manifest, firstSeq: 1, lastSeq: 3 }]);
    await engine.exec('OPTIMIZE TABLE manifests FINAL');
    const rows = await engine.query('SELECT manifestHash, eventCount, firstSeq, lastSeq, signature FROM manifests');
    expect(rows).toEqual([{ manifestHash: manifest.manifestHash, eventCount: '3', firstSeq: '1', lastSeq: '3', signature: 'c2ln' }]);
  });
});
