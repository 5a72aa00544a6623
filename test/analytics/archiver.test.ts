// The worker's archive pass on both engines: each receipt is read and archived once, as it settled; once its anchor
// is filled only the anchor is archived, and the receipt reads back anchored; manifests are copied once each; a pass
// that fails leaves the progress where it was, and a repeated pass changes nothing.
import { describe, expect, it } from 'vitest';
import { archivedReceipt } from '../../analytics/archive.ts';
import { archivePass, type ArchiverDeps } from '../../analytics/archiver.ts';
import { EngineError } from '../../analytics/engine.ts';
import { migrate } from '../../analytics/migrations.ts';
import type { ArchiveProgress } from '../../store/analytics.ts';
import type { ManifestRecord } from '../../store/anchor-manifests.ts';
import { ENGINE_KINDS, engineEnv } from './engines.ts';
import { alias, count } from './fixture.ts';

/** In-memory ledger: the bet log, stored receipts (body + anchor) and published manifests; counts what is read. */
function ledger() {
  const log: string[] = [];
  const receipts = new Map<string, { body: string; anchor: string | null }>();
  const manifests: ManifestRecord[] = [];
  const progress: ArchiveProgress = { settled: 0, anchored: 0, manifestSeq: 0 };
  const reads = { bodies: new Map<string, number>(), anchors: new Map<string, number>() };
  const read = (ids: readonly string[], field: 'body' | 'anchor') =>
    ids.map((id) => {
      const m = field === 'body' ? reads.bodies : reads.anchors;
      m.set(id, (m.get(id) ?? 0) + 1);
      const text = receipts.get(id)?.[field];
      return typeof text === 'string' ? Buffer.from(text) : null;
    });
  let filled = 0;
  const deps: ArchiverDeps = {
    anchors: {
      logSize: async () => log.length,
      filledSize: async () => filled,
      logItems: async (from, to) => log.slice(from, to),
      receiptFieldBytes: async (ids, field) => read(ids, field),
    },
    manifests: { recordsAfterSeq: async (after, limit) => manifests.filter((m) => m.firstSeq > after).slice(0, limit) },
    progress: {
      archiveProgress: async () => ({ ...progress }),
      setArchiveProgress: async (p) => void Object.assign(progress, p),
    },
  };
  return {
    deps,
    progress,
    reads,
    settle(n: number) {
      const id = `dice_${String(n).padStart(32, '0')}`;
      log.push(`${'ab'.repeat(32)}:${id}`);
      const body = {
        receiptId: id,
        game: 'dice',
        player: alias(n),
        status: 'won',
        anchor: { status: 'pending_commit' },
        createdAt: '2027-05-01T10:00:00.000Z',
      };
      receipts.set(id, { body: JSON.stringify(body), anchor: null });
      return id;
    },
    anchorAll() {
      for (const [id, r] of receipts) receipts.set(id, { ...r, anchor: JSON.stringify({ status: 'committed', entryIndex: 0 }) });
      filled = log.length;
    },
    publish(firstSeq: number, lastSeq: number) {
      const hash = String(firstSeq).padStart(64, 'c');
      manifests.push({
        firstSeq,
        lastSeq,
        manifest: {
          version: 1,
          eventCount: lastSeq - firstSeq + 1,
          eventRoot: 'aa'.repeat(32),
          firstEventId: `${firstSeq}-0`,
          lastEventId: `${lastSeq}-0`,
          previousManifestHash: '0'.repeat(64),
          operatorPublicKey: 'Op1111111111111111111111111111111111111111',
          createdAt: '2027-05-01T10:00:02.000Z',
          manifestHash: hash,
          signature: 'c2ln',
        },
      });
      return hash;
    },
  };
}

describe.each(ENGINE_KINDS)('archive pass on %s', (kind) => {
  const env = engineEnv(kind);

  it('archives each receipt once, then only its anchor, copies manifests once, and survives a failed pass', async () => {
    const engine = await env.open();
    await migrate(engine);
    const l = ledger();
    const ids = [1, 2, 3].map((n) => l.settle(n));
    l.publish(1, 4);
    expect(await archivePass(engine, l.deps)).toEqual({ receipts: 3, anchors: 0, manifests: 1 });
    for (const id of ids) {
      const got = await archivedReceipt(engine, id);
      expect(got).toMatchObject({ anchored: false, receipt: { receiptId: id, anchor: { status: 'pending_commit' } } });
    }
    expect(l.progress).toEqual({ settled: 3, anchored: 0, manifestSeq: 4 });

    // The anchors land: only they are read and archived; the bodies are not read again.
    const later = l.settle(4);
    l.anchorAll();
    l.publish(5, 9);
    expect(await archivePass(engine, l.deps)).toEqual({ receipts: 1, anchors: 4, manifests: 1 });
    for (const id of [...ids, later]) {
      const got = await archivedReceipt(engine, id);
      expect(got).toMatchObject({ anchored: true, receipt: { receiptId: id, anchor: { status: 'committed', entryIndex: 0 } } });
    }
    expect([...l.reads.bodies.values()]).toEqual([1, 1, 1, 1]);
    expect([...l.reads.anchors.values()]).toEqual([1, 1, 1, 1]);
    expect(await count(engine, 'SELECT count() AS n FROM receipts')).toBe(4);
    expect(l.progress).toEqual({ settled: 4, anchored: 4, manifestSeq: 9 });
    expect(await archivePass(engine, l.deps)).toEqual({ receipts: 0, anchors: 0, manifests: 0 });
    expect(await count(engine, 'SELECT uniqExact(manifestHash) AS n FROM manifests')).toBe(2);

    // ClickHouse refuses: nothing advances, and the next pass copies what was missed.
    l.settle(5);
    const failing = { ...engine, insert: async () => Promise.reject(new EngineError('down (injected)')) };
    await expect(archivePass(failing, l.deps)).rejects.toThrow(EngineError);
    expect(l.progress.settled).toBe(4);
    expect(await archivePass(engine, l.deps)).toEqual({ receipts: 1, anchors: 0, manifests: 0 });
    expect(await count(engine, 'SELECT uniqExact(receiptId) AS n FROM receipts')).toBe(5);
  });

  it('copies a backlog in one pass, in INSERTs of at most `batch` rows', async () => {
    const engine = await env.open();
    await migrate(engine);
    const l = ledger();
    for (let n = 1; n <= 7; n++) l.settle(n);
    l.anchorAll();
    const sizes: number[] = [];
    const counting = {
      ...engine,
      insert: async (...a: Parameters<typeof engine.insert>) => {
        sizes.push(a[2].length);
        await engine.insert(...a);
      },
    };
    expect(await archivePass(counting, l.deps, { batch: 3 })).toEqual({ receipts: 7, anchors: 7, manifests: 0 });
    expect(sizes).toEqual([3, 3, 1, 3, 3, 1]);
    expect(l.progress).toMatchObject({ settled: 7, anchored: 7 });
  });
});
