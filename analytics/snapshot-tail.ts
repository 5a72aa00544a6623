/**
 * A stream snapshot as of the journal's newest seq, not as of what ClickHouse holds yet (design §8). The
 * snapshot's id is the seq at connect and only plays after it follow, so a play settled within the shipping lag
 * would be in neither; the journal's events after what was shipped are added to the activity's lists here.
 *
 * Only the newest-first lists (`latestPlays`, `latestEvents`) take them, which the newest few events complete. The
 * rest (`topWagers`, `topActors`, `totals`) stays as analytics has it, which may lag settlement (issue 25: 2 s).
 * @module
 */
import type { Activity, Play, PublicEvent } from '../protocol/analytics.ts';
import { takesGame as takes } from './params.ts';
import type { JournalRow } from './journal-rows.ts';
import { eventOf, playOfJournalRow } from './shapes.ts';

/**
 * @param rows - the newest journal rows, all newer than what the activity was read from, oldest first
 * @param limit - the length of the activity's lists as it was asked for
 */
export function withJournalTail(activity: Activity, rows: readonly JournalRow[], limit: number): Activity {
  const plays: Play[] = [];
  const events: PublicEvent[] = [];
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i]!;
    if (takes(activity.game, row.eventGame)) events.push(eventOf({ id: row.id, seq: row.seq, type: row.type, at: row.at, data: row.data }));
    const play = playOfJournalRow(row);
    if (play && takes(activity.game, play.game)) plays.push(play);
  }
  if (plays.length === 0 && events.length === 0) return activity;
  const seqs = new Set(events.map((e) => e.seq));
  const receipts = new Set(plays.map((p) => p.receiptId));
  return {
    ...activity,
    latestPlays: [...plays, ...activity.latestPlays.filter((p) => !receipts.has(p.receiptId))].slice(0, limit),
    latestEvents: [...events, ...activity.latestEvents.filter((e) => !seqs.has(e.seq))].slice(0, limit),
  };
}
