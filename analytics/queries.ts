/**
 * The analytics reads of design §8 — activity, rankings, stats — as functions over an engine. They
 * read the pre-aggregated tables (one slice each) and small ranges of `plays`, never a scan of every
 * play. The clock and the house bankroll come from the caller.
 * @module
 */
import type { Activity, Bankroll, Bucket, Rankings, Stats, Totals } from '../protocol/analytics.ts';
import { bigIntOf, type AnalyticsEngine, type Row } from './engine.ts';
import {
  AnalyticsRequestError,
  parseGame,
  parseLimit,
  parseMetric,
  parsePeriod,
  parseSource,
  type GameFilter,
  type Metric,
  type SourceFilter,
} from './params.ts';
import { actorOf, eventOf, playOf, totalsOf } from './shapes.ts';
import { fragment, raw, sql, type SqlFragment } from './sql.ts';
import { ACTOR_KIND, ALL, HOUR_KIND } from './tables.ts';
import { topWagersFilledTo } from './top-wagers.ts';
import { DAY_MS, HOUR_MS, bucketStarts, floorTo } from './windows.ts';

export const RANKED_ACTORS = 20;
export const TOP_ACTORS = 5;
/** Players with fewer plays are not ranked by roi or winRate. */
export const MIN_PLAYS_FOR_RATIOS = 10;

const slice = (filter: string): string => (filter === 'all' ? ALL : filter);

/** `game = …` over a raw table (no '*' slice there), or no condition for all games. */
const gameCondition = (column: 'game' | 'eventGame', game: GameFilter): SqlFragment => (game === 'all' ? raw('1') : fragment`${raw(column)} = ${game}`);

/** Whole seconds, as DateTime literals need. */
const seconds = (ms: number): Date => new Date(floorTo(ms, 1000));

const PLAY_COLUMNS = 'seq, receiptId, game, player, source, betAmount, payout, won, settledAtMs';

// Ranking expressions over the per-player sums n (plays), w (wins), wag (wagered), paid (paidOut). The
// aliases differ from the column names: ClickHouse 18.16 resolves `sum(plays) AS plays` to itself.
const METRIC_ORDER: Record<Metric, string> = {
  wagered: 'wag',
  profit: 'paid - wag',
  roi: '(paid - wag) / wag',
  plays: 'n',
  winRate: 'w / n',
};

const ACTOR_SUMS = 'sum(plays) AS n, sum(wins) AS w, sum(wagered) AS wag, sum(paidOut) AS paid';
const TOTAL_SUMS = 'sum(plays) AS n, sum(wagered) AS wag, sum(paidOut) AS paid';

async function sliceTotals(engine: AnalyticsEngine, game: GameFilter, source: SourceFilter): Promise<Totals> {
  const [row] = await engine.query(
    sql`SELECT ${raw(TOTAL_SUMS)} FROM slice_totals WHERE kind = ${HOUR_KIND} AND game = ${slice(game)} AND source = ${slice(source)}`,
  );
  return totalsOf(row);
}

export interface RankingsInput {
  game?: unknown;
  source?: unknown;
  metric?: unknown;
  now: Date;
}

/**
 * Rankings: 20 actors by the metric descending, then plays descending, then player ascending; roi and
 * winRate rank only players with at least 10 plays; totals over the same game and source, all time.
 * @throws {AnalyticsRequestError} for an unknown game, source or metric
 */
export async function rankings(engine: AnalyticsEngine, input: RankingsInput): Promise<Rankings> {
  const game = parseGame(input.game);
  const source = parseSource(input.source);
  const metric = parseMetric(input.metric);
  const having = metric === 'roi' || metric === 'winRate' ? fragment`HAVING n >= ${MIN_PLAYS_FOR_RATIOS}` : raw('');
  const [rows, totals] = await Promise.all([
    engine.query(sql`SELECT player, ${raw(ACTOR_SUMS)} FROM slice_totals
      WHERE kind = ${ACTOR_KIND} AND game = ${slice(game)} AND source = ${slice(source)}
      GROUP BY player ${having}
      ORDER BY ${raw(METRIC_ORDER[metric])} DESC, n DESC, player ASC
      LIMIT ${RANKED_ACTORS}`),
    sliceTotals(engine, game, source),
  ]);
  return { generatedAt: input.now.toISOString(), game, source, metric, actors: rows.map((r, i) => actorOf(r, i + 1)), totals };
}

export interface StatsInput {
  game?: unknown;
  period?: unknown;
  now: Date;
  /** Awaited once the queries are sent: it comes from elsewhere (the chain), so both run at once. */
  bankroll: Bankroll | PromiseLike<Bankroll>;
}

/**
 * Stats: hourly (day), daily (month) or monthly (year) buckets of the window ending now, oldest first,
 * in UTC, empty buckets included; totals over the window.
 * @throws {AnalyticsRequestError} for an unknown game or period
 */
export async function stats(engine: AnalyticsEngine, input: StatsInput): Promise<Stats> {
  const game = parseGame(input.game);
  const period = parsePeriod(input.period);
  const starts = bucketStarts(period, input.now);
  const bounds = starts.map((ms) => BigInt(ms / 1000));
  const rows = await engine.query(sql`SELECT arrayCount(b -> b <= toUInt32(hour), ${bounds}) - 1 AS bucket, ${raw(TOTAL_SUMS)}
    FROM slice_totals
    WHERE kind = ${HOUR_KIND} AND game = ${slice(game)} AND source = ${ALL} AND hour >= ${new Date(starts[0] as number)} AND hour <= ${seconds(input.now.getTime())}
    GROUP BY bucket`);
  const byBucket = new Map<number, Row>(rows.map((r) => [Number(r.bucket), r]));
  const buckets: Bucket[] = starts.map((ms, i) => ({ start: new Date(ms).toISOString(), ...totalsOf(byBucket.get(i)) }));
  let [n, wag, paid] = [0n, 0n, 0n];
  for (const r of rows) {
    n += bigIntOf(r.n);
    wag += bigIntOf(r.wag);
    paid += bigIntOf(r.paid);
  }
  const totals = totalsOf({ n: n.toString(), wag: wag.toString(), paid: paid.toString() });
  return { generatedAt: input.now.toISOString(), game, period, totals, bankroll: await input.bankroll, buckets };
}

export interface ActivityInput {
  game?: unknown;
  limit?: unknown;
  now: Date;
  /** Awaited once the queries are sent: it comes from elsewhere (the chain), so both run at once. */
  bankroll: Bankroll | PromiseLike<Bankroll>;
}

/**
 * Activity: the newest `limit` plays and events (newest first), the `limit` largest bets and the top 5
 * players by wagered of the last 24 h, and all-time totals.
 * @throws {AnalyticsRequestError} for an unknown game or a limit that is not an integer
 */
export async function activity(engine: AnalyticsEngine, input: ActivityInput): Promise<Activity> {
  const game = parseGame(input.game);
  const limit = parseLimit(input.limit);
  const nowMs = input.now.getTime();
  const fromMs = nowMs - DAY_MS;
  const [latestPlays, latestEvents, topWagers, topActors, totals] = await Promise.all([
    engine.query(sql`SELECT ${raw(PLAY_COLUMNS)} FROM plays WHERE ${gameCondition('game', game)}
      ORDER BY settledAtMs DESC, seq DESC LIMIT ${limit}`),
    // Seqs first, then the rows: only the granules holding those seqs have their `data` read.
    engine.query(sql`SELECT seq, id, type, at, data FROM journal_events
      WHERE seq IN (SELECT seq FROM journal_events WHERE ${gameCondition('eventGame', game)} ORDER BY seq DESC LIMIT ${limit})
      ORDER BY seq DESC`),
    largestBets(engine, game, fromMs, nowMs, limit),
    engine.query(sql`SELECT player, count() AS n, sum(won) AS w, sum(betAmount) AS wag, sum(payout) AS paid FROM plays
      WHERE ${gameCondition('game', game)} AND settledAtMs >= ${fromMs} AND settledAtMs <= ${nowMs}
      GROUP BY player ORDER BY wag DESC, n DESC, player ASC LIMIT ${TOP_ACTORS}`),
    sliceTotals(engine, game, 'all'),
  ]);
  return {
    generatedAt: input.now.toISOString(),
    game,
    latestPlays: latestPlays.map(playOf),
    latestEvents: latestEvents.map(eventOf),
    topWagers: topWagers.map(playOf),
    topActors: topActors.map((r, i) => actorOf(r, i + 1)),
    totals,
    bankroll: await input.bankroll,
  };
}

/**
 * The highest journal seq whose play every analytics table already holds: one batch is one insert, and the
 * shipper inserts in seq order, so once `plays` shows a seq every earlier event is in every table.
 */
export async function shippedPlaySeq(engine: AnalyticsEngine): Promise<number> {
  const [row] = await engine.query(sql`SELECT max(seq) AS s FROM plays`);
  return row ? Number(row.s ?? 0) : 0;
}

/**
 * The `limit` largest bets settled in [fromMs, toMs], largest first (newer first among equal bets).
 * Whole hours already filled come from `top_wagers`, which keeps every hour's top 100; the partial hour at the
 * window's start and everything after the filled hours come from `plays`, ranges of its sort key.
 */
async function largestBets(engine: AnalyticsEngine, game: GameFilter, fromMs: number, toMs: number, limit: number): Promise<Row[]> {
  const wholeFrom = Math.ceil(fromMs / HOUR_MS) * HOUR_MS;
  const wholeTo = Math.max(wholeFrom, Math.min(floorTo(toMs, HOUR_MS), await topWagersFilledTo(engine)));
  // LIMIT 1 BY seq: two fillers racing at a lease handover could have written an hour twice.
  return engine.query(sql`SELECT ${raw(PLAY_COLUMNS)} FROM (
      SELECT ${raw(PLAY_COLUMNS)} FROM top_wagers
      WHERE slice = ${slice(game)} AND hour >= ${new Date(wholeFrom)} AND hour < ${new Date(wholeTo)}
      LIMIT 1 BY seq
      UNION ALL
      SELECT ${raw(PLAY_COLUMNS)} FROM plays
      WHERE ${gameCondition('game', game)}
        AND ((settledAtMs >= ${fromMs} AND settledAtMs < ${wholeFrom}) OR (settledAtMs >= ${wholeTo} AND settledAtMs <= ${toMs}))
    )
    ORDER BY betAmount DESC, seq DESC LIMIT ${limit}`);
}

export { AnalyticsRequestError };
