/**
 * The tables of `schemas/clickhouse/` and their columns: the whitelist every identifier in analytics
 * SQL is checked against. Keep in step with the migrations (a test compares them with the engine).
 * @module
 */

export const TABLE_COLUMNS = {
  schema_migrations: ['version', 'name', 'checksum', 'appliedAt'],
  journal_events: [
    'seq',
    'id',
    'type',
    'at',
    'atMs',
    'eventGame',
    'data',
    'isPlay',
    'playReceiptId',
    'playGame',
    'playPlayer',
    'playSource',
    'playBet',
    'playPayout',
    'playWon',
  ],
  plays: ['seq', 'receiptId', 'game', 'player', 'source', 'betAmount', 'payout', 'won', 'settledAt', 'settledAtMs'],
  receipts: ['receiptId', 'game', 'player', 'status', 'anchorStatus', 'body', 'createdAt', 'version'],
  receipt_anchors: ['receiptId', 'anchorStatus', 'anchor'],
  manifests: [
    'manifestHash',
    'version',
    'eventCount',
    'eventRoot',
    'firstEventId',
    'lastEventId',
    'previousManifestHash',
    'operatorPublicKey',
    'createdAt',
    'signature',
    'firstSeq',
    'lastSeq',
  ],
  slice_totals: ['kind', 'game', 'source', 'player', 'hour', 'plays', 'wins', 'wagered', 'paidOut'],
  // Plain views over slice_totals, kept for SQL written against the tables they were before migration 005.
  actor_totals: ['game', 'source', 'player', 'plays', 'wins', 'wagered', 'paidOut'],
  hourly_totals: ['game', 'source', 'hour', 'plays', 'wins', 'wagered', 'paidOut'],
  top_wagers: ['slice', 'hour', 'game', 'seq', 'receiptId', 'player', 'source', 'betAmount', 'payout', 'won', 'settledAtMs'],
} as const satisfies Record<string, readonly string[]>;

export type TableName = keyof typeof TABLE_COLUMNS;
export const TABLES = Object.keys(TABLE_COLUMNS) as TableName[];

/** Materialized views, each feeding one table from `journal_events` (`top_wagers` is filled hourly instead). */
export const VIEWS = ['plays_from_journal', 'slice_totals_from_journal'] as const;

/** `slice_totals.kind` of the per-player rows (`hour` is 0 there). */
export const ACTOR_KIND = 'actor';
/** `slice_totals.kind` of the per-hour rows (`player` is '' there). */
export const HOUR_KIND = 'hour';

/** Slice value that stands for "every game" or "every source" in the pre-aggregated tables. */
export const ALL = '*';
