/**
 * Repairs the derived tables after a crash. A batch is one INSERT into `journal_events`; the views then
 * write `plays` and the aggregates from the same block, one table after another, so a process killed
 * inside that INSERT can leave a table without the last block. Run before shipping resumes (the shipper
 * is the only writer): it re-derives what is missing with the views' own SELECTs, so nothing is lost or
 * counted twice.
 * @module
 */
import type { AnalyticsEngine } from './engine.ts';
import { intOf } from './engine.ts';
import { viewDefinitions, type ViewDefinition } from './migrations.ts';
import { identifier, literal, raw, sql } from './sql.ts';
import { ACTOR_KIND, ALL, HOUR_KIND, TABLES, TABLE_COLUMNS, type TableName } from './tables.ts';

export interface ReconcileReport {
  /** Plays re-derived from the journal's tail. */
  playsRepaired: number;
  /** Tables rebuilt whole because their totals disagreed with the journal. */
  rebuilt: string[];
  /** Days of `top_wagers` dropped to be filled again from the repaired `plays`. */
  topWagerDays: number;
}

/** How many days of `top_wagers` are kept: the activity window is 24 h, plus the day it started in. */
export const TOP_WAGER_DAYS = 2;

const DAY_MS = 86_400_000;

function viewFeeding(views: Map<string, ViewDefinition>, target: TableName): ViewDefinition {
  for (const v of views.values()) if (v.target === target) return v;
  throw new Error(`no materialized view feeds ${target}`);
}

function columnsOf(table: TableName) {
  const cols = TABLE_COLUMNS[table] as readonly string[];
  return raw(cols.map((c) => identifier(c, cols).text).join(', '));
}

/** `INSERT INTO t (cols) SELECT cols FROM (<view select>) [WHERE …]`: the view's rows, re-derived. */
function rederive(table: TableName, view: ViewDefinition, where = '') {
  const cols = columnsOf(table);
  return `INSERT INTO ${identifier(table, TABLES)} (${cols}) SELECT ${cols} FROM (${view.select})${where ? ` WHERE ${where}` : ''}`;
}

async function one(engine: AnalyticsEngine, text: string): Promise<Record<string, unknown>> {
  return (await engine.query(text))[0] ?? {};
}

/** Checks every derived table against `journal_events` and repairs what disagrees. */
export async function reconcile(
  engine: AnalyticsEngine,
  now: Date = new Date(),
  views: Map<string, ViewDefinition> = viewDefinitions(),
): Promise<ReconcileReport> {
  const report: ReconcileReport = { playsRepaired: 0, rebuilt: [], topWagerDays: 0 };
  const journal = await one(engine, 'SELECT countIf(isPlay = 1) AS plays, max(seq) AS maxSeq FROM journal_events');
  const journalPlays = intOf(journal.plays ?? 0);

  const plays = await one(engine, 'SELECT count() AS n, max(seq) AS maxSeq FROM plays');
  let playsCount = intOf(plays.n ?? 0);
  if (playsCount !== journalPlays) {
    const playsView = viewFeeding(views, 'plays');
    const playsMax = intOf(plays.maxSeq ?? 0);
    const upTo = await one(engine, sql`SELECT countIf(isPlay = 1 AND seq <= ${playsMax}) AS n FROM journal_events`);
    if (intOf(upTo.n ?? 0) === playsCount) {
      // The usual case: only the last block is missing.
      await engine.exec(rederive('plays', playsView, sql`seq > ${playsMax}`));
    } else {
      await engine.exec('TRUNCATE TABLE plays');
      await engine.exec(rederive('plays', playsView));
      report.rebuilt.push('plays');
    }
    const after = intOf((await one(engine, 'SELECT count() AS n FROM plays')).n ?? 0);
    report.playsRepaired = after - playsCount;
    playsCount = after;
  }

  // Both kinds come from one view, so one block writes both or neither; either one short means a rebuild.
  const totals = await engine.query(sql`SELECT kind, sum(plays) AS n FROM slice_totals WHERE game = ${ALL} AND source = ${ALL} GROUP BY kind`);
  const byKind = new Map(totals.map((r) => [r.kind, intOf(r.n ?? 0)]));
  if ((byKind.get(ACTOR_KIND) ?? 0) !== journalPlays || (byKind.get(HOUR_KIND) ?? 0) !== journalPlays) {
    await engine.exec('TRUNCATE TABLE slice_totals');
    await engine.exec(rederive('slice_totals', viewFeeding(views, 'slice_totals')));
    report.rebuilt.push('slice_totals');
  }

  // Hours filled from plays that were short are filled again.
  if (report.playsRepaired !== 0 || report.rebuilt.includes('plays')) report.topWagerDays = await dropRecentTopWagers(engine, now);
  return report;
}

async function topWagerPartitions(engine: AnalyticsEngine): Promise<number[]> {
  const rows = await engine.query<{ partition: string }>(
    "SELECT DISTINCT partition FROM system.parts WHERE database = currentDatabase() AND table = 'top_wagers' AND active",
  );
  return rows.map((r) => Number(r.partition)).filter((p) => Number.isSafeInteger(p));
}

const dayKey = (ms: number) => {
  const d = new Date(ms);
  return d.getUTCFullYear() * 10_000 + (d.getUTCMonth() + 1) * 100 + d.getUTCDate();
};

/**
 * Drops the last {@link TOP_WAGER_DAYS} days of `top_wagers` (those the activity window can reach), so they are
 * filled again from `plays` as it is now (see `fillTopWagers`; until then, readers read those hours from `plays`).
 * @returns the number of days dropped
 */
export async function dropRecentTopWagers(engine: AnalyticsEngine, now: Date): Promise<number> {
  const fromDay = dayKey(Math.floor(now.getTime() / DAY_MS) * DAY_MS - (TOP_WAGER_DAYS - 1) * DAY_MS);
  let dropped = 0;
  for (const p of await topWagerPartitions(engine)) {
    if (p >= fromDay) {
      await engine.exec(`ALTER TABLE top_wagers DROP PARTITION ${literal(p)}`);
      dropped++;
    }
  }
  return dropped;
}

/**
 * Drops `top_wagers` days older than the activity window can reach, keeping the table small
 * (ClickHouse 18.16 has no TTL).
 * @returns the number of days dropped
 */
export async function pruneTopWagers(engine: AnalyticsEngine, now: Date): Promise<number> {
  const keepFrom = dayKey(Math.floor(now.getTime() / DAY_MS) * DAY_MS - TOP_WAGER_DAYS * DAY_MS);
  let dropped = 0;
  for (const p of await topWagerPartitions(engine)) {
    if (p < keepFrom) {
      await engine.exec(`ALTER TABLE top_wagers DROP PARTITION ${literal(p)}`);
      dropped++;
    }
  }
  return dropped;
}

/**
 * Merges the per-player and per-hour totals into one part. Background merges get there slowly; a
 * ranking reads every row of its slice, so after a burst of inserts it reads each player several times
 * until then. The cost grows with players and hours, not with plays.
 */
export async function compactAggregates(engine: AnalyticsEngine): Promise<void> {
  await engine.exec('OPTIMIZE TABLE slice_totals FINAL');
}
