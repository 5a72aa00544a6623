// Real journal events → the real shipper → ClickHouse (chDB and clickhouse-server) → activity, rankings and stats, checked against a plain-JS model.
import type { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AnalyticsEngine } from '../../analytics/engine.ts';
import { migrate } from '../../analytics/migrations.ts';
import { AnalyticsRequestError, GAMES, METRICS, PERIODS, SOURCES } from '../../analytics/params.ts';
import { activity, rankings, stats } from '../../analytics/queries.ts';
import { literal } from '../../analytics/sql.ts';
import { JournalShipper } from '../../analytics/shipper.ts';
import { JOURNAL_COLUMNS, journalRowOf, journalValues, type JournalRow } from '../../analytics/journal-rows.ts';
import { topWagersFilledTo } from '../../analytics/top-wagers.ts';
import { JournalStream } from '../../store/analytics.ts';
import { createRedis } from '../../store/redis.ts';
import { ENGINE_KINDS, engineEnv } from './engines.ts';
import {
  Journal,
  alias,
  count,
  expectConsistent,
  modelActivity,
  modelRankings,
  modelStats,
  playEntry,
  receiptIdFor,
  rng,
  type FixturePlay,
  type JournalEntry,
} from './fixture.ts';

const NOW = new Date('2027-01-01T00:30:00.000Z');
const T = (iso: string) => Date.parse(iso);
const HOUR = 3_600_000;
const DAY = 86_400_000;
const USDC = 1_000_000n;
const WHALE = alias(1000);
const NINE_PLAYS = alias(2000);
const WALLET_ADDRESS = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const BANKROLL = { totalValue: 12345.678901 };
const silent = pino({ level: 'silent' });

interface Dataset {
  entries: JournalEntry[];
  /** Plays in journal order (seq filled after appending). */
  plays: FixturePlay[];
  /** Index into entries of each play. */
  playAt: number[];
}

/** A year of plays with a skewed player mix, a burst hour, and plays on every window edge. */
function dataset(seed: number): Dataset {
  const r = rng(seed);
  const raw: Omit<FixturePlay, 'seq'>[] = [];
  const micro = (lo: bigint, hi: bigint) => lo + BigInt(Math.floor(r() * Number(hi - lo)));
  const add = (atMs: number, player = alias(Math.floor(40 * r() * r())), wager = micro(10_000n, 5n * USDC), won = r() < 0.45, payoutMul = 198n) => {
    const game = r() < 0.5 ? 'dice' : 'sweeper';
    const s = r();
    raw.push({
      receiptId: receiptIdFor(game),
      game,
      player,
      sourceField: s < 0.3 ? 'mcp' : s < 0.6 ? 'api' : null,
      wager,
      payout: won ? (wager * payoutMul) / 100n : 0n,
      won,
      atMs,
    });
  };
  for (let i = 0; i < 350; i++) add(NOW.getTime() - 400 * DAY + Math.floor(r() * (400 * DAY - HOUR)));
  for (let i = 0; i < 60; i++) add(NOW.getTime() - Math.floor(r() * 300 * DAY) - HOUR, WHALE, 1000n * USDC);
  for (let i = 0; i < 9; i++) add(NOW.getTime() - (i + 2) * DAY, NINE_PLAYS, 10n * USDC, true, 10_000n);
  // 250 plays in one hour inside the activity window: one shipped block holds more than 100 of them.
  for (let i = 0; i < 250; i++) add(T('2026-12-31T12:00:00.000Z') + Math.floor(r() * HOUR), undefined, micro(10_000n, 900n * USDC));
  // The activity window [now − 24 h, now]: its partial edge hours, and just outside.
  add(T('2026-12-31T00:29:59.999Z'), alias(501), 999n * USDC);
  add(T('2026-12-31T00:30:00.000Z'), alias(502), 950n * USDC);
  add(T('2026-12-31T00:45:00.000Z'), alias(503), 940n * USDC);
  add(T('2027-01-01T00:10:00.000Z'), alias(504), 930n * USDC);
  add(T('2027-01-01T00:30:00.000Z'), alias(505), 920n * USDC);
  // Stats window edges: year from 2026-02-01, month from 2026-12-03, day from 2026-12-31T01:00.
  for (const iso of [
    '2026-01-31T23:59:59.999Z',
    '2026-02-01T00:00:00.000Z',
    '2026-12-02T23:59:59.999Z',
    '2026-12-03T00:00:00.000Z',
    '2026-12-31T00:59:59.999Z',
    '2026-12-31T01:00:00.000Z',
    '2026-12-31T23:59:59.999Z',
    '2027-01-01T00:00:00.000Z',
  ])
    add(T(iso));
  raw.sort((a, b) => a.atMs - b.atMs);

  const entries: JournalEntry[] = [];
  const playAt: number[] = [];
  const other = (atMs: number): JournalEntry => {
    const at = new Date(atMs).toISOString();
    const player = alias(Math.floor(40 * r()));
    const pick = Math.floor(r() * 7);
    if (pick === 0) return { type: 'deposit_credited', at, data: { player, amount: '5000000' } };
    if (pick === 1)
      return {
        type: 'bet_committed',
        at,
        data: {
          game: 'dice',
          player,
          betPayloadHash: 'ef'.repeat(32),
          betNonce: 3,
          rngIndex: 9,
          rngChainHead: '01'.repeat(32),
          wager: '100000',
          ticketId: null,
        },
      };
    if (pick === 2)
      return {
        type: 'sweeper_turn_settled',
        at,
        data: { game: 'sweeper', player, ticketId: 't1', betPayloadHash: 'aa'.repeat(32), kind: 'choice', row: 1, safe: true },
      };
    if (pick === 3)
      return { type: 'ticket_settled', at, data: { game: 'sweeper', player, ticketId: 't2', receiptId: null, wager: '100', payout: '0', status: null } };
    if (pick === 4)
      return { type: 'bet_settled', at, data: { game: 'dice', player: WALLET_ADDRESS, receiptId: 'dice_wallet', wager: '1', payout: '0', status: 'lost' } };
    if (pick === 5) return { type: 'bet_settled', at, data: { game: 'dice', player, receiptId: 'dice_badwager', wager: '1.5', payout: '0', status: 'lost' } };
    return { type: 'house_funded', at, data: { amount: '1000000000', signature: 'it\'s \\ "quoted"\n' } };
  };
  for (const p of raw) {
    if (r() < 0.25) entries.push(other(p.atMs));
    playAt.push(entries.length);
    entries.push(playEntry(p));
  }
  return { entries, plays: raw.map((p) => ({ ...p, seq: 0 })), playAt };
}

describe.each(ENGINE_KINDS)('analytics on %s', (kind) => {
  const env = engineEnv(kind);
  let redis: Redis;
  const journals: Journal[] = [];
  const shippers: JournalShipper[] = [];

  beforeAll(() => {
    redis = createRedis('redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    for (const s of shippers) await s.stop();
    for (const j of journals) await j.cleanup();
    await redis.quit();
  });

  const newJournal = () => {
    const j = new Journal(redis);
    journals.push(j);
    return j;
  };
  const newShipper = (journal: Journal, engine: AnalyticsEngine, batchSize = 300) => {
    // Compacting after every batch here (the fault tests never compact): every answer is checked on both.
    const s = new JournalShipper({
      stream: new JournalStream(redis, journal.streamKey),
      engine,
      logger: silent,
      batchSize,
      blockMs: 200,
      retry: { minMs: 20, maxMs: 200 },
      compactEveryMs: 0,
      now: () => NOW,
    });
    shippers.push(s);
    return s;
  };

  it('ranks by the sums over every part a player has rows in, and counts all of them for the plays a ratio needs', async () => {
    const engine = await env.open();
    try {
      await migrate(engine);
      // Each INSERT below is a part of its own in slice_totals, left unmerged: the ranking must add them up.
      await engine.exec('SYSTEM STOP MERGES slice_totals');
      const r = rng(5);
      const [split, whole, even] = [alias(3001), alias(3002), alias(3003)];
      // `split` has 11 plays over three parts (none with 10), `whole` 9 in one, `even` 10 over two.
      const batches: [string, number][][] = [
        [
          [split, 4],
          [whole, 9],
          [even, 5],
        ],
        [
          [split, 4],
          [even, 5],
          [alias(3004), 2],
        ],
        [[split, 3]],
      ];
      const plays: FixturePlay[] = [];
      let seq = 0;
      for (const batch of batches) {
        const rows = batch.flatMap(([player, n]) =>
          Array.from({ length: n }, () => {
            const won = r() < 0.5;
            const play: FixturePlay = {
              receiptId: receiptIdFor('dice'),
              game: 'dice',
              player,
              sourceField: 'api',
              wager: 1_000_000n + BigInt(Math.floor(r() * 9_000_000)),
              payout: 0n,
              won,
              atMs: NOW.getTime() - HOUR,
              seq: ++seq,
            };
            if (won) play.payout = (play.wager * 198n) / 100n;
            plays.push(play);
            const e = playEntry(play);
            return journalRowOf(`${seq}-0`, ['seq', String(seq), 'type', e.type, 'at', e.at, 'data', JSON.stringify(e.data)]) as JournalRow;
          }),
        );
        await engine.insert('journal_events', JOURNAL_COLUMNS, rows.map(journalValues));
      }
      expect(await count(engine, `SELECT count() AS n FROM system.parts WHERE active AND database = currentDatabase() AND table = 'slice_totals'`)).toBe(3);
      for (const metric of METRICS) {
        const got = await rankings(engine, { game: 'dice', source: 'api', metric, now: NOW });
        expect({ metric, actors: got.actors }).toEqual({ metric, actors: modelRankings(plays, 'dice', 'api', metric).actors });
      }
      const ranked = (await rankings(engine, { metric: 'winRate', now: NOW })).actors.map((a) => [a.player, a.plays]);
      expect(ranked.sort()).toEqual(
        [
          [split, 11],
          [even, 10],
        ].sort(),
      );
    } finally {
      await engine.close();
    }
  });

  describe('a year of history', () => {
    const data = dataset(11);
    let engine: AnalyticsEngine;
    let journal: Journal;
    let shipper: JournalShipper;

    beforeAll(async () => {
      engine = await env.open();
      expect(await migrate(engine)).toEqual([1, 2, 3, 4, 5, 6]);
      journal = newJournal();
      // The history exists before the shipper ever runs: the first start ships all of it.
      const seqs = await journal.append(data.entries);
      for (const [i, at] of data.playAt.entries()) (data.plays[i] as FixturePlay).seq = seqs[at] as number;
      shipper = newShipper(journal, engine);
      shipper.start();
      await shipper.waitFor(seqs[seqs.length - 1] as number);
    }, 60_000);

    it('ships the existing journal on first start, every event and play exactly once', async () => {
      await expectConsistent(engine, data.entries.length, data.plays, NOW);
      expect(await count(engine, "SELECT count() AS n FROM plays WHERE NOT match(player, '^p_')")).toBe(0);
      expect(await count(engine, `SELECT count() AS n FROM plays WHERE player = ${literal(WALLET_ADDRESS)}`)).toBe(0);
      expect(await count(engine, "SELECT count() AS n FROM plays WHERE source NOT IN ('api', 'mcp')")).toBe(0);
      // Once shipping is past them, the hours of the activity window are filled: the burst hour keeps its 100 largest.
      await vi.waitFor(async () => expect(await topWagersFilledTo(engine)).toBe(T('2027-01-01T00:00:00.000Z')), { timeout: 10_000, interval: 50 });
      expect(await count(engine, "SELECT count() AS n FROM top_wagers WHERE slice = '*' AND hour = toDateTime('2026-12-31 12:00:00', 'UTC')")).toBe(100);
    });

    it('ranks every metric, game and source as the model does, with totals for the same slice', async () => {
      for (const game of GAMES) {
        for (const source of SOURCES) {
          for (const metric of METRICS) {
            const got = await rankings(engine, { game, source, metric, now: NOW });
            expect({ game, source, metric, actors: got.actors, totals: got.totals }).toEqual({
              game,
              source,
              metric,
              ...modelRankings(data.plays, game, source, metric),
            });
            expect(got.generatedAt).toBe(NOW.toISOString());
          }
        }
      }
      const byWagered = await rankings(engine, { metric: 'wagered', now: NOW });
      expect(byWagered.actors[0]?.player).toBe(WHALE);
      expect(byWagered.actors).toHaveLength(20);
      expect((await rankings(engine, { metric: 'profit', now: NOW })).actors.map((a) => a.player)).toContain(NINE_PLAYS);
      for (const metric of ['roi', 'winRate'] as const) {
        const got = await rankings(engine, { metric, now: NOW });
        expect(got.actors.map((a) => a.player)).not.toContain(NINE_PLAYS);
        expect(got.actors.every((a) => a.plays >= 10)).toBe(true);
      }
      const defaults = await rankings(engine, { now: NOW });
      expect([defaults.game, defaults.source, defaults.metric]).toEqual(['all', 'all', 'profit']);
    });

    it('buckets stats by UTC hour, day and month across the day, month and year boundaries', async () => {
      for (const game of GAMES) {
        for (const period of PERIODS) {
          const got = await stats(engine, { game, period, now: NOW, bankroll: BANKROLL });
          const want = modelStats(data.plays, game, period, NOW);
          expect({ game, period, buckets: got.buckets, totals: got.totals }).toEqual({ game, period, ...want });
          expect(got.bankroll).toEqual(BANKROLL);
        }
      }
      const year = await stats(engine, { period: 'year', now: NOW, bankroll: BANKROLL });
      expect(year.buckets.map((b) => b.start.slice(0, 10))).toEqual([
        '2026-02-01',
        '2026-03-01',
        '2026-04-01',
        '2026-05-01',
        '2026-06-01',
        '2026-07-01',
        '2026-08-01',
        '2026-09-01',
        '2026-10-01',
        '2026-11-01',
        '2026-12-01',
        '2027-01-01',
      ]);
      const month = await stats(engine, { period: 'month', now: NOW, bankroll: BANKROLL });
      expect([month.buckets.length, month.buckets[0]?.start, month.buckets[29]?.start]).toEqual([30, '2026-12-03T00:00:00.000Z', '2027-01-01T00:00:00.000Z']);
      const day = await stats(engine, { now: NOW, bankroll: BANKROLL });
      expect([day.period, day.buckets.length, day.buckets[0]?.start, day.buckets[23]?.start]).toEqual([
        'day',
        24,
        '2026-12-31T01:00:00.000Z',
        '2027-01-01T00:00:00.000Z',
      ]);
      // The last bucket of each window holds the play at exactly midnight (and whatever else fell in it).
      expect(day.buckets[23]?.plays).toBeGreaterThanOrEqual(1);
      // An empty window still has every bucket, all zero.
      const past = await stats(engine, { period: 'day', now: new Date('2020-06-01T12:00:00Z'), bankroll: BANKROLL });
      expect(past.buckets).toHaveLength(24);
      expect(past.totals).toEqual({ plays: 0, wagered: 0, paidOut: 0, houseNet: 0 });
    });

    it('answers activity newest first, with the 24 h windows exact at their edges and limit clamped to 1..100', async () => {
      for (const game of GAMES) {
        for (const limit of [undefined, 1, 7, 100]) {
          const got = await activity(engine, { game, limit, now: NOW, bankroll: BANKROLL });
          const want = modelActivity(data.plays, game, limit ?? 20, NOW);
          expect({ game, limit, ...pick(got) }).toEqual({ game, limit, ...want });
          const events = data.entries
            .map((e, i) => ({ e, seq: i + 1 }))
            .filter(({ e }) => game === 'all' || (e.data as { game?: string }).game === game)
            .reverse()
            .slice(0, limit ?? 20);
          expect(got.latestEvents.map((e) => [e.seq, e.type, e.at, e.data])).toEqual(events.map(({ e, seq }) => [seq, e.type, e.at, e.data]));
        }
      }
      const all = await activity(engine, { now: NOW, bankroll: BANKROLL });
      expect(all.topWagers.slice(0, 4).map((p) => p.player)).toEqual([alias(502), alias(503), alias(504), alias(505)]);
      expect(all.topWagers.map((p) => p.player)).not.toContain(alias(501));
      expect((await activity(engine, { limit: 0, now: NOW, bankroll: BANKROLL })).latestPlays).toHaveLength(1);
      expect((await activity(engine, { limit: '-3', now: NOW, bankroll: BANKROLL })).latestEvents).toHaveLength(1);
      expect((await activity(engine, { limit: '1000', now: NOW, bankroll: BANKROLL })).latestPlays).toHaveLength(100);
      expect((await activity(engine, { limit: 1000, now: NOW, bankroll: BANKROLL })).topWagers).toHaveLength(100);
      for (const bad of ['abc', '1.5', 2.5, '1e2', {}]) {
        await expect(activity(engine, { limit: bad, now: NOW, bankroll: BANKROLL })).rejects.toBeInstanceOf(AnalyticsRequestError);
      }
    });

    it('refuses unknown parameters with a typed INVALID_REQUEST error, whatever they hold', async () => {
      const attempts: [string, () => Promise<unknown>][] = [
        ['game', () => rankings(engine, { game: 'poker', now: NOW })],
        ['game', () => rankings(engine, { game: "dice' OR 1=1 --", now: NOW })],
        ['source', () => rankings(engine, { source: 'web', now: NOW })],
        ['metric', () => rankings(engine, { metric: 'wagered DESC; DROP TABLE plays', now: NOW })],
        ['period', () => stats(engine, { period: 'week', now: NOW, bankroll: BANKROLL })],
        ['game', () => activity(engine, { game: ['dice'], now: NOW, bankroll: BANKROLL })],
      ];
      for (const [param, attempt] of attempts) {
        const err = await attempt().then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(AnalyticsRequestError);
        expect(err).toMatchObject({ code: 'INVALID_REQUEST', details: { param } });
      }
      await expectConsistent(engine, data.entries.length, data.plays, NOW);
    });

    it('reads back hostile strings exactly through this engine', async () => {
      for (const s of ["'", "\\'", "x' OR '1'='1", '\n\r\t\0\x7f', 'ünï ✓ 𝄞', '\\']) {
        expect((await engine.query(`SELECT ${literal(s)} AS v`))[0]?.v).toBe(s);
      }
    });

    it('ships new events while running', async () => {
      const p: Omit<FixturePlay, 'seq'> = {
        receiptId: receiptIdFor('dice'),
        game: 'dice',
        player: alias(7),
        sourceField: 'mcp',
        wager: 3n * USDC,
        payout: 0n,
        won: false,
        atMs: NOW.getTime() - 1000,
      };
      const [seq] = await journal.append([playEntry(p)]);
      await shipper.waitFor(seq as number);
      const latest = await activity(engine, { game: 'dice', limit: 1, now: NOW, bankroll: BANKROLL });
      expect(latest.latestPlays[0]).toMatchObject({ receiptId: p.receiptId, player: alias(7), source: 'mcp', betAmount: 3, payout: 0, profit: -3, won: false });
      data.entries.push(playEntry(p));
      data.plays.push({ ...p, seq: seq as number });
      await expectConsistent(engine, data.entries.length, data.plays, NOW);
    });
  });
});

function pick(a: Awaited<ReturnType<typeof activity>>) {
  return { latestPlays: a.latestPlays, topWagers: a.topWagers, topActors: a.topActors, totals: a.totals };
}
