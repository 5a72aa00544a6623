/**
 * The public archive beside the journal: receipts, each archived once as it settled, the anchors that later fill
 * them as small rows of their own, and signed journal manifests. Re-sending any of them is harmless: the tables are
 * ReplacingMergeTree, and reads take one row per key.
 * @module
 */
import type { Manifest } from '../protocol/manifest.ts';
import type { AnalyticsEngine } from './engine.ts';
import type { ReceiptIndex } from './receipt-index.ts';
import type { ArchivedReceiptText } from '../store/retention.ts';
import { dateTimeText, raw, sql, tuple, type SqlValue } from './sql.ts';
import { TABLE_COLUMNS } from './tables.ts';

/** A receipt as the archive takes it: its stored JSON (text, or its UTF-8 bytes), as is, and the fields it is indexed by. */
export interface ArchivedReceipt extends ReceiptIndex {
  body: string | Uint8Array;
}

/** An anchor as the archive takes it: its stored JSON (text, or its UTF-8 bytes), as is. */
export interface ArchivedAnchor {
  receiptId: string;
  anchorStatus: string;
  anchor: string | Uint8Array;
}

/** A manifest with the journal seq range it covers. */
export interface ArchivedManifest {
  manifest: Manifest;
  firstSeq: number;
  lastSeq: number;
}

/**
 * The `version` of a receipt body row: bodies are archived at 1. Rows archived before anchors had a table of their
 * own carry the anchored body at 2; reads still prefer them, and the anchor row wins over the body's own anchor.
 */
export const RECEIPT_BODY_VERSION = 1;

/** Inserts settled receipts, one INSERT. */
export async function archiveReceipts(engine: AnalyticsEngine, receipts: readonly ArchivedReceipt[]): Promise<void> {
  const rows: SqlValue[][] = receipts.map((r) => [
    r.receiptId,
    r.game,
    r.player,
    r.status,
    r.anchorStatus,
    r.body,
    dateTimeText(new Date(r.createdAt)),
    RECEIPT_BODY_VERSION,
  ]);
  await engine.insert('receipts', TABLE_COLUMNS.receipts, rows);
}

/** Inserts the anchors of receipts, one INSERT. */
export async function archiveAnchors(engine: AnalyticsEngine, anchors: readonly ArchivedAnchor[]): Promise<void> {
  await engine.insert(
    'receipt_anchors',
    TABLE_COLUMNS.receipt_anchors,
    anchors.map((a) => [a.receiptId, a.anchorStatus, a.anchor]),
  );
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

/** Most receipt ids one read names (a receipt bundle's 256, with room). */
export const MAX_ARCHIVED_READ = 512;

/**
 * The archived texts of these receipts, those the archive holds, in no particular order.
 * @throws {EngineError} while ClickHouse cannot answer
 */
export async function archivedReceiptTexts(engine: AnalyticsEngine, receiptIds: readonly string[]): Promise<ArchivedReceiptText[]> {
  const ids = [...new Set(receiptIds)];
  if (ids.length === 0) return [];
  if (ids.length > MAX_ARCHIVED_READ) throw new RangeError(`at most ${MAX_ARCHIVED_READ} receipts a read`);
  const list = raw(tuple(ids));
  // One query, not two: each costs chDB a few ms whatever it reads. argMax and any(): unmerged parts may still hold
  // several rows of one key.
  const rows = await engine.query<{ receiptId: string; text: string; kind: string }>(
    sql`SELECT receiptId, argMax(body, version) AS text, 'body' AS kind FROM receipts WHERE receiptId IN ${list} GROUP BY receiptId UNION ALL SELECT receiptId, any(anchor) AS text, 'anchor' AS kind FROM receipt_anchors WHERE receiptId IN ${list} GROUP BY receiptId`,
  );
  const bodies = rows.filter((r) => r.kind === 'body');
  const anchorOf = new Map(rows.filter((r) => r.kind === 'anchor').map((a) => [a.receiptId, a.text]));
  return bodies.map((r) => ({ receiptId: r.receiptId, body: r.text, anchor: anchorOf.get(r.receiptId) ?? null }));
}

/**
 * A receipt as the archive holds it: the body with its archived anchor in place of the one it settled with.
 * @returns null when the receipt is not archived; `anchored` when an anchor row was found for it
 */
export async function archivedReceipt(engine: AnalyticsEngine, receiptId: string): Promise<{ receipt: Record<string, unknown>; anchored: boolean } | null> {
  const [row] = await archivedReceiptTexts(engine, [receiptId]);
  if (!row) return null;
  const receipt = JSON.parse(row.body) as Record<string, unknown>;
  if (row.anchor !== null) receipt.anchor = JSON.parse(row.anchor) as unknown;
  return { receipt, anchored: row.anchor !== null };
}
