/**
 * Copies the public archive into ClickHouse (design §2, §13): every receipt once, as it settled, then its anchor
 * alone once it is filled, and every signed journal manifest. The stored JSON goes in as it is: the archiver reads
 * only the few fields it indexes by (analytics/receipt-index.ts). Progress is kept in Redis only as a hint: a crash
 * before it is recorded archives the same rows again, which the ReplacingMergeTree tables absorb.
 * @module
 */
import { archiveAnchors, archiveManifests, archiveReceipts, type ArchivedAnchor, type ArchivedReceipt } from './archive.ts';
import type { AnalyticsEngine } from './engine.ts';
import { receiptIndexOf } from './receipt-index.ts';
import type { ShipperStore } from '../store/analytics.ts';
import type { AnchorStore } from '../store/anchor-store.ts';
import type { ManifestStore } from '../store/anchor-manifests.ts';

export interface ArchiverDeps {
  anchors: Pick<AnchorStore, 'logSize' | 'filledSize' | 'logItems' | 'receiptFieldBytes'>;
  manifests: Pick<ManifestStore, 'recordsAfterSeq'>;
  progress: Pick<ShipperStore, 'archiveProgress' | 'setArchiveProgress'>;
}

/** What one pass archived. */
export interface ArchivePass {
  receipts: number;
  anchors: number;
  manifests: number;
}

export interface ArchivePassOptions {
  /**
   * Most rows per INSERT. A pass copies everything new, in INSERTs of this size; the worker runs a pass every
   * `archiveEveryMs` (2 s), so under load each table gets about one INSERT per pass.
   * @defaultValue 5000
   */
  batch?: number;
}

/** The bet-log item `<leaf hash hex>:<receiptId>`, as the ledger appends it. */
const receiptIdOf = (item: string): string => item.slice(65);

/**
 * Archives what is new since the last pass: receipts settled, anchors filled, manifests published.
 * @throws {EngineError} while ClickHouse cannot take them (progress stays at the last INSERT that succeeded)
 */
export async function archivePass(engine: AnalyticsEngine, deps: ArchiverDeps, options: ArchivePassOptions = {}): Promise<ArchivePass> {
  const batch = options.batch ?? 5000;
  const progress = await deps.progress.archiveProgress();
  const [size, filled] = await Promise.all([deps.anchors.logSize(), deps.anchors.filledSize()]);
  const pass: ArchivePass = { receipts: 0, anchors: 0, manifests: 0 };

  for (let from = progress.settled; from < size; ) {
    const to = Math.min(size, from + batch);
    const ids = (await deps.anchors.logItems(from, to)).map(receiptIdOf);
    const bodies = await deps.anchors.receiptFieldBytes(ids, 'body');
    const receipts: ArchivedReceipt[] = [];
    for (const body of bodies) {
      const index = body === null ? null : receiptIndexOf(body);
      if (index && body !== null) receipts.push({ ...index, body });
    }
    await archiveReceipts(engine, receipts);
    await deps.progress.setArchiveProgress({ settled: to });
    pass.receipts += receipts.length;
    from = to;
  }

  for (let from = progress.anchored; from < filled; ) {
    const to = Math.min(filled, from + batch);
    const ids = (await deps.anchors.logItems(from, to)).map(receiptIdOf);
    const stored = await deps.anchors.receiptFieldBytes(ids, 'anchor');
    const anchors: ArchivedAnchor[] = [];
    for (const [i, anchor] of stored.entries()) {
      const anchorStatus = anchor === null ? null : anchorStatusOf(anchor);
      if (anchor !== null && anchorStatus !== null) anchors.push({ receiptId: ids[i] as string, anchorStatus, anchor });
    }
    await archiveAnchors(engine, anchors);
    await deps.progress.setArchiveProgress({ anchored: to });
    pass.anchors += anchors.length;
    from = to;
  }

  const records = await deps.manifests.recordsAfterSeq(progress.manifestSeq, batch);
  if (records.length > 0) {
    await archiveManifests(engine, records);
    await deps.progress.setArchiveProgress({ manifestSeq: Math.max(...records.map((r) => r.lastSeq)) });
    pass.manifests = records.length;
  }
  return pass;
}

const ANCHOR_STATUS_RE = /^\{"status":"([a-z_]+)"/;

/** The status an anchor's JSON opens with (it is written that way), else whatever a full parse finds; null if none. */
function anchorStatusOf(anchor: Buffer): string | null {
  const m = ANCHOR_STATUS_RE.exec(anchor.toString('utf8', 0, 64));
  if (m) return m[1] as string;
  try {
    const status = (JSON.parse(anchor.toString('utf8')) as { status?: unknown } | null)?.status;
    return typeof status === 'string' ? status : null;
  } catch {
    return null;
  }
}
