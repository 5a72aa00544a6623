// Receipts and manifests in the archive: newest receipt version wins, re-sending changes nothing — on both engines.
import { describe, expect, it } from 'vitest';
import { archiveManifests, archiveReceipts, archivedReceipt } from '../../analytics/archive.ts';
import { migrate } from '../../analytics/migrations.ts';
import { ENGINE_KINDS, engineEnv } from './engines.ts';
import { count } from './fixture.ts';

const receipt = (status: string) => ({
  receiptId: 'dice_0123456789abcdef0123456789abcdef',
  game: 'dice',
  player: 'p_3xYz9',
  status: 'won',
  anchor: { status },
  createdAt: '2027-01-01T00:00:01.250Z',
  note: "it's kept whole",
});

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

  it('keeps the newest version of a receipt, whatever order the versions arrive in', async () => {
    const engine = await env.open();
    await migrate(engine);
    expect(await archivedReceipt(engine, receipt('x').receiptId)).toBeNull();
    await archiveReceipts(engine, [{ receipt: receipt('committed'), version: 2 }]);
    await archiveReceipts(engine, [{ receipt: receipt('pending_commit'), version: 1 }]);
    expect(await archivedReceipt(engine, receipt('x').receiptId)).toEqual({ receipt: receipt('committed'), version: 2n });
    await engine.exec('OPTIMIZE TABLE receipts FINAL');
    expect(await count(engine, 'SELECT count() AS n FROM receipts')).toBe(1);
    expect(await count(engine, "SELECT count() AS n FROM receipts WHERE anchorStatus = 'committed'")).toBe(1);
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
