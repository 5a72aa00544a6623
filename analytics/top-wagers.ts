/**
 * `top_wagers`, filled once per completed hour from `plays` rather than by a view on every shipped batch: a view
 * writes a part per INSERT (twice a second under load), and the cost of ingestion is per part (issue 25). Each filled
 * hour keeps exactly its 100 largest bets per game slice, and a marker row (slice `''`, which no query selects) says
 * the hour and every hour before it (back to where filling started) are filled; {@link topWagersFilledTo} tells a reader
 * where the table ends and `plays` must take over.
 * @module
 */
import { intOf, type AnalyticsEngine } from './engine.ts';
import { fragment, raw, sql, type SqlFragment } from './sql.ts';
import { GAMES } from './params.ts';
import { ALL, TABLE_COLUMNS } from './tables.ts';
import { DAY_MS, HOUR_MS, floorTo } from './windows.ts';

/** Bets kept per (game slice, hour): the largest `limit` an activity request may ask for. */
export const TOP_WAGERS_PER_HOUR = 100;

/** `top_wagers.slice` of the rows that mark an hour as filled. */
export const FILLED_SLICE = '';

/** How far back filling starts when nothing is filled: the activity window, 24 h. */
const WINDOW_MS = DAY_MS;

const COLUMNS = raw(TABLE_COLUMNS.top_wagers.join(', '));
const PLAY_COLUMNS = raw('game, seq, receiptId, player, source, betAmount, payout, won, settledAtMs');

/**
 * The end (epoch ms, exclusive) of the filled hours, or 0 when none is: every whole hour from the start of filling up
 * to it is in `top_wagers`.
 */
export async function topWagersFilledTo(engine: AnalyticsEngine): Promise<number> {
  const [row] = await engine.query(sql`SELECT count() AS n, toUInt32(max(hour)) AS h FROM top_wagers WHERE slice = ${FILLED_SLICE}`);
  return row && intOf(row.n) > 0 ? intOf(row.h) * 1000 + HOUR_MS : 0;
}

/**
 * Fills every whole hour before `completeBeforeMs` that is not filled yet (back to 24 h before it), one INSERT per
 * hour: each is one part, so an hour's rows and its marker land together or not at all, and one sort never holds more
 * than an hour of plays. Hours before the first play to fill are skipped (empty, they need no rows), and when there is
 * none only the last hour's marker is written: one INSERT at a start, not 24. The caller passes a time before which
 * every play is already in `plays`.
 * @returns the new {@link topWagersFilledTo}
 */
export async function fillTopWagers(engine: AnalyticsEngine, completeBeforeMs: number): Promise<number> {
  const to = floorTo(completeBeforeMs, HOUR_MS);
  const filledTo = await topWagersFilledTo(engine);
  const from = Math.max(filledTo, to - WINDOW_MS);
  if (from >= to) return filledTo;
  const [first] = await engine.query(sql`SELECT settledAtMs FROM plays WHERE settledAtMs >= ${from} AND settledAtMs < ${to} ORDER BY settledAtMs LIMIT 1`);
  if (!first) await fillHour(engine, to - HOUR_MS);
  else for (let hour = floorTo(intOf(first.settledAtMs), HOUR_MS); hour < to; hour += HOUR_MS) await fillHour(engine, hour);
  return topWagersFilledTo(engine);
}

/**
 * One hour's largest bets per game slice and its marker, in one INSERT (one part: the hour's day partition). Each
 * slice is its own `ORDER BY … LIMIT`, which ClickHouse answers with a partial sort holding 100 rows, where one sort
 * of every play of the hour (an hour at 2,000 bets/s is 7 million) would hold them all.
 */
async function fillHour(engine: AnalyticsEngine, hourMs: number): Promise<void> {
  const hour = new Date(hourMs);
  const inHour = fragment`settledAtMs >= ${hourMs} AND settledAtMs < ${hourMs + HOUR_MS}`;
  const top = (slice: string, where: SqlFragment) => fragment`SELECT * FROM (
      SELECT ${slice} AS slice, ${hour} AS hour, ${PLAY_COLUMNS} FROM plays WHERE ${where}
      ORDER BY betAmount DESC, seq DESC LIMIT ${TOP_WAGERS_PER_HOUR}
    )`;
  const slices = [top(ALL, inHour), ...GAMES.filter((g) => g !== 'all').map((game) => top(game, fragment`${inHour} AND game = ${game}`))];
  // The guard keeps a second filler (a lease handover) from adding the hour twice.
  await engine.exec(sql`INSERT INTO top_wagers (${COLUMNS}) SELECT ${COLUMNS} FROM (
    ${raw(slices.map((f) => f.text).join(' UNION ALL '))}
    UNION ALL
    SELECT ${FILLED_SLICE} AS slice, ${hour} AS hour, '' AS game, toUInt64(0) AS seq, '' AS receiptId, '' AS player, '' AS source,
      toInt64(0) AS betAmount, toInt64(0) AS payout, toUInt8(0) AS won, toInt64(0) AS settledAtMs
  )
  WHERE (SELECT count() FROM top_wagers WHERE slice = ${FILLED_SLICE} AND hour = ${hour}) = 0`);
}
