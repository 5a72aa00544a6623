/**
 * The public archive beside the journal: receipts (a newer version replaces an older one, as when the
 * anchor fields are filled) and signed journal manifests. Re-sending either is harmless: both tables
 * are ReplacingMergeTree, and reads take the newest version.
 * @module
 */
import type { Manifest } from '../protocol/manifest.ts';
import type { AnalyticsEngine } from './engine.ts';
import { dateTimeText, sql, type SqlValue } from './sql.ts';
import { TABLE_COLUMNS } from './tables.ts';

/** The receipt fields the archive indexes; the whole receipt is kept as JSON in `body`. */
export interface ArchivedReceipt {
  receiptId: string;
  game: string;
  /** Public alias. */
  player: string;
  status: string;
  anchor: { status: string };
  createdAt: string;
}

/** A manifest with the journal seq range it covers. */
export interface ArchivedManifest {
  manifest: Manifest;
  firstSeq: number;
  lastSeq: number;
}

/**
 * Inserts receipts at a version; for one receiptId the highest version wins (use a number that grows
 * with every change of the receipt, e.g. its anchor's progress or an update time in ms).
 */
export async function archiveReceipts(engine: AnalyticsEngine, items: readonly { receipt: ArchivedReceipt; version: number | bigint }[]): Promise<void> {
  const rows: SqlValue[][] = items.map(({ receipt: r, version }) => [
    r.receiptId,
    r.game,
    r.player,
    r.status,
    r.anchor.status,
    JSON.stringify(r),
    dateTimeText(new Date(r.createdAt)),
    BigInt(version),
  ]);
  await engine.insert('receipts', TABLE_COLUMNS.receipts, rows);
}

export async function archiveManifests(engine: AnalyticsEngine, records: readonly ArchivedManifest[]): Promise<void> {
  const rows: SqlValue[][] = records.map(({ manifest: m, firstSeq, lastSeq }) => [
    m.manifestHash,
    m.version,
    m.eventCount,
    m.eventRoot,
    m.firstEventId,
    m.lastEventId,
    m.previousManifestHash,
    m.operatorPublicKey,
    m.createdAt,
    m.signature,
    firstSeq,
    lastSeq,
  ]);
  await engine.insert('manifests', TABLE_COLUMNS.manifests, rows);
}

/** The newest archived version of a receipt, or null. */
export async function archivedReceipt(engine: AnalyticsEngine, receiptId: string): Promise<{ receipt: unknown; version: bigint } | null> {
  // argMax over the versions, so unmerged parts never show an older receipt.
  const [row] = await engine.query<{ body: string; v: string }>(
    sql`SELECT argMax(body, version) AS body, toString(max(version)) AS v FROM receipts WHERE receiptId = ${receiptId} GROUP BY receiptId`,
  );
  return row ? { receipt: JSON.parse(row.body), version: BigInt(row.v) } : null;
}
