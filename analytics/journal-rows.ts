/**
 * From a journal stream entry (`seq`, `type`, `at`, `data` fields, design §8) to its `journal_events`
 * row, with the play columns filled for a settled play: `bet_settled` (dice) and `ticket_settled`
 * (sweeper) events that carry a receiptId. `data.source` is 'api' or 'mcp'; absent means 'api'.
 * @module
 */
import type { SqlValue } from './sql.ts';
import { TABLE_COLUMNS } from './tables.ts';

/** A play as it enters the `plays` table; money in micro-USDC. */
export interface PlayFields {
  receiptId: string;
  game: string;
  player: string;
  source: 'api' | 'mcp';
  betAmount: bigint;
  payout: bigint;
  won: boolean;
}

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

/** Event types that settle a play. */
export const PLAY_EVENT_TYPES: readonly string[] = ['bet_settled', 'ticket_settled'];

// A public alias (`p_` + base58 of a keyed hash); anything else — a wallet address above all — is not
// let into the play tables.
const ALIAS_RE = /^p_[1-9A-HJ-NP-Za-km-z]{1,22}$/;
const MICRO_RE = /^(0|[1-9]\d{0,18})$/;
const INT64_MAX = (1n << 63n) - 1n;

function micro(value: unknown): bigint | null {
  if (typeof value !== 'string' || !MICRO_RE.test(value)) return null;
  const n = BigInt(value);
  return n <= INT64_MAX ? n : null;
}

/** The play an event settles, or null when it settles none (or is malformed). */
export function playOf(type: string, data: unknown, atMs: number): PlayFields | null {
  if (!PLAY_EVENT_TYPES.includes(type) || atMs <= 0 || typeof data !== 'object' || data === null) return null;
  const d = data as Record<string, unknown>;
  const betAmount = micro(d.wager);
  const payout = micro(d.payout);
  if (typeof d.receiptId !== 'string' || d.receiptId === '' || typeof d.game !== 'string' || d.game === '') return null;
  if (typeof d.player !== 'string' || !ALIAS_RE.test(d.player) || betAmount === null || payout === null) return null;
  return {
    receiptId: d.receiptId,
    game: d.game,
    player: d.player,
    source: d.source === 'mcp' ? 'mcp' : 'api',
    betAmount,
    payout,
    won: d.status === 'won',
  };
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
  return { seq, id, type, at, atMs, eventGame: typeof game === 'string' ? game : '', data: text, play: playOf(type, data, atMs) };
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
