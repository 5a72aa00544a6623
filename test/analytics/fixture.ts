// Journal events written by the ledger's own scripts, plus a plain-JS model of what analytics must answer.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { expect } from 'vitest';
import { intOf, type AnalyticsEngine } from '../../analytics/engine.ts';
import { rankings } from '../../analytics/queries.ts';
import { microToNumber } from '../../protocol/money.ts';
import { toBase58 } from '../../protocol/encoding.ts';
import type { Actor, Bucket, Play, Totals } from '../../protocol/analytics.ts';
import { bucketStarts } from '../../analytics/windows.ts';
import type { GameFilter, Metric, Period, SourceFilter } from '../../analytics/params.ts';
import { Keys } from '../../store/keys.ts';
import { LedgerPlays, type JournalEntry } from '../helpers/ledger-plays.ts';

export type { JournalEntry };

export interface FixturePlay {
  receiptId: string;
  game: 'dice' | 'sweeper';
  player: string;
  /** How the event spells it: 'api', 'mcp', or absent (counts as 'api'). */
  sourceField: 'api' | 'mcp' | null;
  wager: bigint;
  payout: bigint;
  won: boolean;
  atMs: number;
  seq: number;
}

export const sourceOf = (p: FixturePlay): 'api' | 'mcp' => p.sourceField ?? 'api';

/** A public alias in the service's format (`p_` + base58). */
export const alias = (n: number): string => `p_${toBase58(new Uint8Array([n >> 24, (n >> 16) & 255, (n >> 8) & 255, n & 255, 7]))}`;

export function playEntry(p: Omit<FixturePlay, 'seq'>): JournalEntry {
  const common = {
    player: p.player,
    receiptId: p.receiptId,
    wager: p.wager.toString(),
    payout: p.payout.toString(),
    status: p.won ? 'won' : 'lost',
    ...(p.sourceField ? { source: p.sourceField } : {}),
  };
  const at = new Date(p.atMs).toISOString();
  if (p.game === 'dice') {
    return { type: 'bet_settled', at, data: { game: 'dice', ...common, betPayloadHash: 'ab'.repeat(32), rngIndex: 7, rngReveal: 'cd'.repeat(32), roll: 4242 } };
  }
  return {
    type: 'ticket_settled',
    at,
    data: { game: 'sweeper', ...common, ticketId: p.receiptId.slice(8), mode: 'classic', outcome: p.won ? 'cashed_out' : 'busted', rowsWon: 2 },
  };
}

/** A journal stream under a random key prefix. */
export class Journal {
  readonly prefix = `test-analytics-${randomBytes(6).toString('hex')}`;
  readonly keys = new Keys(this.prefix);
  readonly streamKey = this.keys.journal();
  readonly seqKey = this.keys.journalSeq();
  readonly #ledger: LedgerPlays;

  constructor(readonly redis: Redis) {
    this.#ledger = new LedgerPlays(redis, this.keys);
  }

  /** Appends entries in order, with the next seqs, through a ledger script (test/helpers/ledger-plays.ts). @returns their seqs */
  append(entries: readonly JournalEntry[]): Promise<number[]> {
    return this.#ledger.append(entries);
  }

  /**
   * A rewound ledger (a fault no script makes: Redis came back with its seq counter behind the stream) handing out
   * seqs again: each entry takes the counter's next value, as journal() in store/scripts/_lib.lua would.
   * @returns their seqs
   */
  async appendRewound(entries: readonly JournalEntry[]): Promise<number[]> {
    const out: number[] = [];
    for (const e of entries) {
      const seq = await this.redis.incr(this.seqKey);
      await this.redis.xadd(this.streamKey, '*', 'seq', String(seq), 'type', e.type, 'at', e.at, 'data', JSON.stringify(e.data));
      out.push(seq);
    }
    return out;
  }

  async length(): Promise<number> {
    return this.redis.xlen(this.streamKey);
  }

  async cleanup(): Promise<void> {
    await this.redis.del(this.streamKey, this.seqKey);
  }
}

/** Deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let receiptCounter = 0;
export const receiptIdFor = (game: 'dice' | 'sweeper'): string =>
  `${game}_${(++receiptCounter).toString(16).padStart(8, '0')}${randomBytes(12).toString('hex')}`;

// ——— the model: plain JS over the generated plays ———

const matches = (p: FixturePlay, game: GameFilter, source: SourceFilter = 'all') =>
  (game === 'all' || p.game === game) && (source === 'all' || sourceOf(p) === source);

export function modelTotals(plays: readonly FixturePlay[]): Totals {
  let wagered = 0n;
  let paidOut = 0n;
  for (const p of plays) {
    wagered += p.wager;
    paidOut += p.payout;
  }
  return { plays: plays.length, wagered: microToNumber(wagered), paidOut: microToNumber(paidOut), houseNet: microToNumber(wagered - paidOut) };
}

interface Agg {
  player: string;
  plays: number;
  wins: number;
  wagered: bigint;
  paidOut: bigint;
}

function aggregate(plays: readonly FixturePlay[]): Agg[] {
  const by = new Map<string, Agg>();
  for (const p of plays) {
    const a = by.get(p.player) ?? { player: p.player, plays: 0, wins: 0, wagered: 0n, paidOut: 0n };
    a.plays++;
    if (p.won) a.wins++;
    a.wagered += p.wager;
    a.paidOut += p.payout;
    by.set(p.player, a);
  }
  return [...by.values()];
}

const metricValue = (a: Agg, metric: Metric): number => {
  switch (metric) {
    case 'wagered':
      return Number(a.wagered);
    case 'profit':
      return Number(a.paidOut - a.wagered);
    case 'roi':
      return Number(a.paidOut - a.wagered) / Number(a.wagered);
    case 'plays':
      return a.plays;
    case 'winRate':
      return a.wins / a.plays;
  }
};

const toActor = (a: Agg, i: number): Actor => ({
  rank: i + 1,
  player: a.player,
  plays: a.plays,
  wagered: microToNumber(a.wagered),
  paidOut: microToNumber(a.paidOut),
  profit: microToNumber(a.paidOut - a.wagered),
  roi: Number(a.paidOut - a.wagered) / Number(a.wagered),
  winRate: a.wins / a.plays,
});

const byteOrder = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

export function modelActors(plays: readonly FixturePlay[], metric: Metric, limit: number, minPlays = 0): Actor[] {
  return aggregate(plays)
    .filter((a) => a.plays >= minPlays)
    .sort((x, y) => metricValue(y, metric) - metricValue(x, metric) || y.plays - x.plays || byteOrder(x.player, y.player))
    .slice(0, limit)
    .map(toActor);
}

export function modelRankings(plays: readonly FixturePlay[], game: GameFilter, source: SourceFilter, metric: Metric) {
  const sel = plays.filter((p) => matches(p, game, source));
  const min = metric === 'roi' || metric === 'winRate' ? 10 : 0;
  return { actors: modelActors(sel, metric, 20, min), totals: modelTotals(sel) };
}

const HOUR = 3_600_000;

export function modelStats(plays: readonly FixturePlay[], game: GameFilter, period: Period, now: Date): { buckets: Bucket[]; totals: Totals } {
  const starts = bucketStarts(period, now);
  const groups: FixturePlay[][] = starts.map(() => []);
  for (const p of plays) {
    if (!matches(p, game)) continue;
    const hour = Math.floor(p.atMs / HOUR) * HOUR;
    if (hour < (starts[0] as number) || hour > now.getTime()) continue;
    let i = starts.length - 1;
    while (i > 0 && (starts[i] as number) > p.atMs) i--;
    groups[i]?.push(p);
  }
  const buckets = starts.map((ms, i) => ({ start: new Date(ms).toISOString(), ...modelTotals(groups[i] ?? []) }));
  return { buckets, totals: modelTotals(groups.flat()) };
}

export function modelPlay(p: FixturePlay): Play {
  return {
    receiptId: p.receiptId,
    game: p.game,
    player: p.player,
    source: sourceOf(p),
    betAmount: microToNumber(p.wager),
    payout: microToNumber(p.payout),
    profit: microToNumber(p.payout - p.wager),
    won: p.won,
    settledAt: new Date(p.atMs).toISOString(),
  };
}

export function modelActivity(plays: readonly FixturePlay[], game: GameFilter, limit: number, now: Date) {
  const sel = plays.filter((p) => matches(p, game));
  const recent = sel.filter((p) => p.atMs >= now.getTime() - 86_400_000 && p.atMs <= now.getTime());
  return {
    latestPlays: [...sel]
      .sort((x, y) => y.atMs - x.atMs || y.seq - x.seq)
      .slice(0, limit)
      .map(modelPlay),
    topWagers: [...recent]
      .sort((x, y) => (y.wager > x.wager ? 1 : y.wager < x.wager ? -1 : y.seq - x.seq))
      .slice(0, limit)
      .map(modelPlay),
    topActors: modelActors(recent, 'wagered', 5),
    totals: modelTotals(sel),
  };
}

export async function count(engine: AnalyticsEngine, text: string): Promise<number> {
  return intOf((await engine.query(text))[0]?.n ?? 0);
}

/** Every table agrees with the model: each event once, each play once, every slice's totals. */
export async function expectConsistent(engine: AnalyticsEngine, events: number, plays: readonly FixturePlay[], now: Date) {
  expect(await count(engine, 'SELECT count() AS n FROM journal_events')).toBe(events);
  expect(await count(engine, 'SELECT uniqExact(seq) AS n FROM journal_events')).toBe(events);
  expect(await count(engine, 'SELECT count() AS n FROM plays')).toBe(plays.length);
  expect(await count(engine, 'SELECT uniqExact(receiptId) AS n FROM plays')).toBe(plays.length);
  for (const table of ['actor_totals', 'hourly_totals']) {
    expect(await count(engine, `SELECT sum(plays) AS n FROM ${table} WHERE game = 'dice' AND source = '*'`)).toBe(
      plays.filter((p) => p.game === 'dice').length,
    );
    expect(await count(engine, `SELECT sum(plays) AS n FROM ${table} WHERE game = '*' AND source = '*'`)).toBe(plays.length);
  }
  const got = await rankings(engine, { now, metric: 'wagered' });
  expect(got.totals).toEqual(modelTotals(plays));
  expect(got.actors).toEqual(modelActors(plays, 'wagered', 20));
}

/** `n` plays of a few players over the two days before `now`, in time order. */
export function recentPlays(n: number, seed: number, now: Date): Omit<FixturePlay, 'seq'>[] {
  const r = rng(seed);
  const out: Omit<FixturePlay, 'seq'>[] = [];
  for (let i = 0; i < n; i++) {
    const game = r() < 0.5 ? 'dice' : 'sweeper';
    const wager = 10_000n + BigInt(Math.floor(r() * 50_000_000));
    const won = r() < 0.45;
    out.push({
      receiptId: receiptIdFor(game),
      game,
      player: alias(Math.floor(12 * r() * r())),
      sourceField: r() < 0.4 ? 'mcp' : null,
      wager,
      payout: won ? (wager * 198n) / 100n : 0n,
      won,
      atMs: now.getTime() - Math.floor(r() * 2 * 86_400_000),
    });
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}
