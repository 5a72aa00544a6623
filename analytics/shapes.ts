/**
 * The public analytics shapes of design §8, built from result rows. Money arrives as Int64 micro-USDC
 * and leaves as a decimal USDC number, converted exactly and only at the end.
 * @module
 */
import type { Actor, Play, PublicEvent, Totals } from '../protocol/analytics.ts';
import { microToNumber } from '../protocol/money.ts';
import { bigIntOf, intOf, type Row } from './engine.ts';
import { publicPlayOf } from '../protocol/plays.ts';
import type { JournalRow } from './journal-rows.ts';

/** Row columns: receiptId, game, player, source, betAmount, payout, won, settledAtMs. */
export function playOf(row: Row): Play {
  const betAmount = bigIntOf(row.betAmount);
  const payout = bigIntOf(row.payout);
  return {
    receiptId: String(row.receiptId),
    game: String(row.game),
    player: String(row.player),
    source: String(row.source),
    betAmount: microToNumber(betAmount),
    payout: microToNumber(payout),
    profit: microToNumber(payout - betAmount),
    won: intOf(row.won) === 1,
    settledAt: new Date(intOf(row.settledAtMs)).toISOString(),
  };
}

/**
 * The public play of a journal entry that settles one, as `latestPlays` shows it: for replaying missed
 * plays from the Redis stream on `Last-Event-ID`.
 * @example playOfJournalRow(journalRowOf(id, fields)!)
 */
export function playOfJournalRow(row: JournalRow): Play | null {
  return row.play ? publicPlayOf(row.play, row.atMs) : null;
}

/** Row columns: id, seq, type, at, data (the journaled JSON text). */
export function eventOf(row: Row): PublicEvent {
  const text = String(row.data);
  let data: unknown = text;
  try {
    data = JSON.parse(text);
  } catch {
    // Served as journaled, like GET …/journal/events does.
  }
  return { id: String(row.id), seq: intOf(row.seq), type: String(row.type), at: String(row.at), data };
}

/** Row columns: player, n (plays), w (wins), wag (wagered), paid (paidOut). */
export function actorOf(row: Row, rank: number): Actor {
  const plays = intOf(row.n);
  const wins = intOf(row.w);
  const wagered = bigIntOf(row.wag);
  const paidOut = bigIntOf(row.paid);
  const profit = paidOut - wagered;
  return {
    rank,
    player: String(row.player),
    plays,
    wagered: microToNumber(wagered),
    paidOut: microToNumber(paidOut),
    profit: microToNumber(profit),
    // Exact micro integers (< 2^53) divided once: the same double ClickHouse ranks by.
    roi: wagered === 0n ? 0 : Number(profit) / Number(wagered),
    winRate: plays === 0 ? 0 : wins / plays,
  };
}

/** Row columns: n (plays), wag (wagered), paid (paidOut); empty sums read as 0. */
export function totalsOf(row: Row | undefined): Totals {
  const wagered = row ? bigIntOf(row.wag ?? 0) : 0n;
  const paidOut = row ? bigIntOf(row.paid ?? 0) : 0n;
  return {
    plays: row ? intOf(row.n ?? 0) : 0,
    wagered: microToNumber(wagered),
    paidOut: microToNumber(paidOut),
    houseNet: microToNumber(wagered - paidOut),
  };
}
