// top_wagers filled once per completed hour from plays (analytics/top-wagers.ts), on both engines: the largest bets
// answer the same before, while and after hours are filled, and each hour is filled once.
import { describe, expect, it } from 'vitest';
import { journalRowOf, type JournalRow } from '../../analytics/journal-rows.ts';
import { migrate } from '../../analytics/migrations.ts';
import { activity } from '../../analytics/queries.ts';
import { insertJournalBatch } from '../../analytics/shipper.ts';
import { fillTopWagers, topWagersFilledTo } from '../../analytics/top-wagers.ts';
import { ENGINE_KINDS, engineEnv } from './engines.ts';
import { alias, count, modelActivity, playEntry, receiptIdFor, rng, type FixturePlay } from './fixture.ts';

const NOW = new Date('2027-01-01T00:30:00.000Z');
const HOUR = 3_600_000;
const BANKROLL = { totalValue: 1 };

/** Plays over the 30 hours before `NOW`, 160 of them in one hour (more than an hour keeps), in seq order. */
function history(): FixturePlay[] {
  const r = rng(25);
  const out: FixturePlay[] = [];
  const add = (atMs: number) => {
    const game = r() < 0.5 ? 'dice' : 'sweeper';
    const wager = 10_000n + BigInt(Math.floor(r() * 90_000_000));
    const won = r() < 0.45;
    out.push({
      receiptId: receiptIdFor(game),
      game,
      player: alias(Math.floor(9 * r())),
      sourceField: null,
      wager,
      payout: won ? wager * 2n : 0n,
      won,
      atMs,
      seq: 0,
    });
  };
  for (let i = 0; i < 300; i++) add(NOW.getTime() - 30 * HOUR + Math.floor(r() * 30 * HOUR));
  for (let i = 0; i < 160; i++) add(Date.parse('2026-12-31T22:00:00.000Z') + Math.floor(r() * HOUR));
  out.sort((a, b) => a.atMs - b.atMs);
  out.forEach((p, i) => {
    p.seq = i + 1;
  });
  return out;
}

const rowOf = (p: FixturePlay): JournalRow => {
  const e = playEntry(p);
  return journalRowOf(`${p.seq}-0`, ['seq', String(p.seq), 'type', e.type, 'at', e.at, 'data', JSON.stringify(e.data)]) as JournalRow;
};

describe.each(ENGINE_KINDS)('top_wagers on %s', (kind) => {
  const env = engineEnv(kind);

  it('fills each completed hour once, with its 100 largest bets, and answers the same before and after', async () => {
    const engine = await env.open();
    await migrate(engine);
    const plays = history();
    const shipped = plays.filter((p) => p.atMs < NOW.getTime() - HOUR);
    await insertJournalBatch(engine, shipped.map(rowOf));
    const topWagers = async () => (await activity(engine, { limit: 100, now: NOW, bankroll: BANKROLL })).topWagers;
    const want = () => modelActivity(shipped, 'all', 100, NOW).topWagers;

    // Nothing filled: every bet of the window is read from plays.
    expect(await topWagersFilledTo(engine)).toBe(0);
    expect(await topWagers()).toEqual(want());

    // Filled up to the hour before the newest play: the window's whole hours then come from top_wagers.
    const completeBefore = Date.parse('2026-12-31T23:10:00.000Z');
    expect(await fillTopWagers(engine, completeBefore)).toBe(Date.parse('2026-12-31T23:00:00.000Z'));
    // The 24 hours before, each with its marker, each bet once per slice.
    expect(await count(engine, "SELECT count() AS n FROM top_wagers WHERE slice = ''")).toBe(24);
    const rows = await count(engine, "SELECT count() AS n FROM top_wagers WHERE slice != ''");
    expect(await count(engine, "SELECT uniqExact(slice, seq) AS n FROM top_wagers WHERE slice != ''")).toBe(rows);
    expect(await count(engine, "SELECT count() AS n FROM top_wagers WHERE slice = '*' AND hour = toDateTime('2026-12-31 22:00:00', 'UTC')")).toBe(100);
    expect(await count(engine, "SELECT count() AS n FROM top_wagers WHERE hour >= toDateTime('2026-12-31 23:00:00', 'UTC')")).toBe(0);
    expect(await topWagers()).toEqual(want());

    // Again with nothing new completed: nothing written twice.
    expect(await fillTopWagers(engine, completeBefore + 30 * 60_000)).toBe(Date.parse('2026-12-31T23:00:00.000Z'));
    expect(await count(engine, "SELECT count() AS n FROM top_wagers WHERE slice != ''")).toBe(rows);

    // The newest plays arrive; the hour they complete is filled next, and the answer never changes shape.
    await insertJournalBatch(engine, plays.filter((p) => p.atMs >= NOW.getTime() - HOUR).map(rowOf));
    const all = modelActivity(plays, 'all', 100, NOW).topWagers;
    expect(await topWagers()).toEqual(all);
    expect(await fillTopWagers(engine, NOW.getTime())).toBe(Date.parse('2027-01-01T00:00:00.000Z'));
    expect(await topWagers()).toEqual(all);
    for (const game of ['dice', 'sweeper'] as const) {
      expect((await activity(engine, { game, limit: 7, now: NOW, bankroll: BANKROLL })).topWagers).toEqual(modelActivity(plays, game, 7, NOW).topWagers);
    }
  });

  it('writes one marker for hours without plays, so a start costs one INSERT, not 24', async () => {
    const engine = await env.open();
    await migrate(engine);
    expect(await fillTopWagers(engine, NOW.getTime())).toBe(Date.parse('2027-01-01T00:00:00.000Z'));
    expect(await count(engine, 'SELECT count() AS n FROM top_wagers')).toBe(1);
    const next = history().filter((p) => p.atMs >= NOW.getTime() - HOUR);
    for (const p of next) p.atMs += HOUR;
    await insertJournalBatch(engine, next.map(rowOf));
    expect(await fillTopWagers(engine, NOW.getTime() + HOUR)).toBe(Date.parse('2027-01-01T01:00:00.000Z'));
    expect(await count(engine, "SELECT count() AS n FROM top_wagers WHERE slice = '*' AND hour = toDateTime('2027-01-01 00:00:00', 'UTC')")).toBe(
      next.filter((p) => p.atMs < NOW.getTime() + HOUR / 2).length,
    );
    const later = new Date(NOW.getTime() + HOUR);
    expect((await activity(engine, { limit: 100, now: later, bankroll: BANKROLL })).topWagers).toEqual(modelActivity(next, 'all', 100, later).topWagers);
  });
});
