/**
 * From a journal stream entry (`seq`, `type`, `at`, `data` fields, design §8) to its `journal_events`
 * row, with the play columns filled for a settled play: `bet_settled` (dice) and `ticket_settled`
 * (sweeper) events that carry a receiptId. `data.source` is 'api' or 'mcp'; absent means 'api'.
 * @module
 */
import { playFieldsOf, type PlayFields } from '../protocol/plays.ts';
import type { SqlValue } from './sql.ts';
import { TABLE_COLUMNS } from './tables.ts';

export interface JournalRow {
  seq: number;
  id: string;
  type: string;
  at: string;
  /** `at` in epoch milliseconds, 0 when `at` is not a timestamp. */
  atMs: number;
  /** `data.game` when the event belongs to a game, else ''. */
  eventGame: string;
  /** `data` exactly as journaled (JSON text). */
  data: string;
  play: PlayFields | null;
}

/**
 * Maps one raw stream entry (`XRANGE` reply: id and a flat field list).
 * @returns null when the entry has no usable `seq` (it cannot be placed in the journal order)
 */
export function journalRowOf(id: string, fields: readonly string[]): JournalRow | null {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i] as string] = fields[i + 1] as string;
  const seq = Number(f.seq);
  if (!Number.isSafeInteger(seq) || seq <= 0) return null;
  const type = f.type ?? '';
  const at = f.at ?? '';
  const text = f.data ?? 'null';
  let data: unknown = null;
  try {
    data = JSON.parse(text);
  } catch {
    // Kept as text: the archive stores what the journal holds.
  }
  const parsed = Date.parse(at);
  const atMs = Number.isFinite(parsed) && parsed > 0 ? parsed : 0;
  const game = typeof data === 'object' && data !== null ? (data as Record<string, unknown>).game : undefined;
  return { seq, id, type, at, atMs, eventGame: typeof game === 'string' ? game : '', data: text, play: playFieldsOf(type, data, atMs) };
}

/** The `journal_events` columns, in the order of {@link journalValues}. */
export const JOURNAL_COLUMNS = TABLE_COLUMNS.journal_events;

/** One VALUES tuple for `journal_events`. */
export function journalValues(row: JournalRow): SqlValue[] {
  const p = row.play;
  return [
    row.seq,
    row.id,
    row.type,
    row.at,
    row.atMs,
    row.eventGame,
    row.data,
    p ? 1 : 0,
    p?.receiptId ?? '',
    p?.game ?? '',
    p?.player ?? '',
    p?.source ?? '',
    p?.betAmount ?? 0n,
    p?.payout ?? 0n,
    p?.won ? 1 : 0,
  ];
}
