/**
 * The public play of design §8 as the journal's settle events carry it: which events settle a play, the play's
 * fields (money in micro-USDC), and its public shape. Shared by the ledger's live feed (games/), the analytics
 * pipeline and the replay of missed plays, so all three show the same object.
 * @module
 */
import type { Play } from './analytics.ts';
import { microToNumber } from './money.ts';

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
export function playFieldsOf(type: string, data: unknown, atMs: number): PlayFields | null {
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

/** The public play of a settled play's fields, settled at `atMs`. */
export function publicPlayOf(p: PlayFields, atMs: number): Play {
  return {
    receiptId: p.receiptId,
    game: p.game,
    player: p.player,
    source: p.source,
    betAmount: microToNumber(p.betAmount),
    payout: microToNumber(p.payout),
    profit: microToNumber(p.payout - p.betAmount),
    won: p.won,
    settledAt: new Date(atMs).toISOString(),
  };
}

/**
 * The public play of a settle event about to be journaled (`type`, its JSON `data`, `at`), built by the
 * same rules as a replay from the journal (`analytics/shapes.ts` playOfJournalRow), so the live SSE `play` and a replayed one are the same object.
 * @returns null when the event settles no play
 */
export function playOfSettleEvent(type: string, data: string, at: string): Play | null {
  const atMs = Date.parse(at);
  const fields = playFieldsOf(type, JSON.parse(data) as unknown, Number.isFinite(atMs) ? atMs : 0);
  return fields && publicPlayOf(fields, atMs);
}
