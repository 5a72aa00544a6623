/**
 * Copies the public archive into ClickHouse (design §2): every settled receipt (again once its anchor is filled,
 * at a higher version, so the anchored one replaces it) and every signed journal manifest. Progress is kept in
 * Redis only as a hint: a crash before it is recorded archives the same rows again, which the ReplacingMergeTree
 * tables absorb.
 * @module
 */
import { archiveManifests, archiveReceipts, type ArchivedReceipt } from './archive.ts';
import type { AnalyticsEngine } from './engine.ts';
import { readReceipt } from '../games/receipts.ts';
import type { ShipperStore } from '../store/analytics.ts';
import type { AnchorStore } from '../store/anchor-store.ts';
import type { ManifestStore } from '../store/anchor-manifests.ts';
import type { BetStore } from '../store/bets.ts';

export interface ArchiverDeps {
  anchors: Pick<AnchorStore, 'logSize' | 'filledSize' | 'logItems'>;
  bets: Pick<BetStore, 'receipt'>;
  manifests: Pick<ManifestStore, 'recordsAfterSeq'>;
  progress: Pick<ShipperStore, 'archiveProgress' | 'setArchiveProgress'>;
}

/** Receipt versions: a receipt is archived when it settles, and replaced once its anchor is committed. */
export const RECEIPT_VERSION = { settled: 1, anchored: 2 } as const;

/** What one pass archived. */
export interface ArchivePass {
  receipts: number;
  manifests: number;
}

/**
 * Archives up to `batch` receipts as settled, `batch` as anchored and `batch` manifests.
 * @throws {EngineError} while ClickHouse cannot take them (progress is not advanced)
 */
export async function archivePass(engine: AnalyticsEngine, deps: ArchiverDeps, batch = 500): Promise<ArchivePass> {
  const progress = await deps.progress.archiveProgress();
  const [size, filled] = await Promise.all([deps.anchors.logSize(), deps.anchors.filledSize()]);
  let receipts = 0;
  for (const [field, upTo] of [
    ['settled', size],
    ['anchored', filled],
  ] as const) {
    const from = progress[field];
    if (from >= upTo) continue;
    const to = Math.min(upTo, from + batch);
    const items = await deps.anchors.logItems(from, to);
    const bodies = await Promise.all(items.map((item) => readReceipt(deps.bets, item.slice(65))));
    const rows = bodies.filter((b): b is Record<string, unknown> => b !== null).map(archivedOf);
    await archiveReceipts(
      engine,
      rows.map((receipt) => ({ receipt, version: receipt.anchor.status === 'committed' ? RECEIPT_VERSION.anchored : RECEIPT_VERSION.settled })),
    );
    await deps.progress.setArchiveProgress({ [field]: to });
    receipts += rows.length;
  }
  const records = await deps.manifests.recordsAfterSeq(progress.manifestSeq, batch);
  if (records.length > 0) {
    await archiveManifests(engine, records);
    await deps.progress.setArchiveProgress({ manifestSeq: Math.max(...records.map((r) => r.lastSeq)) });
  }
  return { receipts, manifests: records.length };
}

/** The indexed fields of a stored receipt (the whole receipt goes along as its body). */
function archivedOf(body: Record<string, unknown>): ArchivedReceipt {
  const anchor = (body.anchor ?? { status: 'pending_commit' }) as { status: string };
  const at = [body.settledAt, body.createdAt, body.endedAt].find((v) => typeof v === 'string' && Number.isFinite(Date.parse(v)));
  return {
    ...body,
    receiptId: String(body.receiptId),
    game: String(body.game),
    player: String(body.player),
    status: String(body.status),
    anchor,
    createdAt: (at as string | undefined) ?? new Date(0).toISOString(),
  };
}
