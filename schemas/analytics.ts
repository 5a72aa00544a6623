// Public analytics (design §8): activity, rankings and stats, with their element shapes. Players appear only as
// their public alias; money is a decimal USDC number.
import { Type } from 'typebox';
import { Amount, Timestamp } from './common.ts';
import { JournalEvent } from './journal.ts';

const GAME = ['all', 'dice', 'sweeper'] as const;
const SOURCE = ['all', 'api', 'mcp'] as const;
const METRIC = ['wagered', 'profit', 'roi', 'plays', 'winRate'] as const;
const PERIOD = ['day', 'month', 'year'] as const;

const literals = <T extends string>(values: readonly T[], description: string, dflt?: T) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description, ...(dflt ? { default: dflt } : {}) },
  );

const Alias = Type.String({ pattern: '^p_[1-9A-HJ-NP-Za-km-z]{1,22}$', description: "the player's public alias (never a wallet address)" });

// Query parameters: whitelists, so anything else is INVALID_REQUEST before a query is built.
const GameParam = Type.Optional(literals(GAME, 'all, dice or sweeper', 'all'));

export const ActivityQuery = Type.Object({
  game: { ...GameParam, examples: ['all'] },
  limit: Type.Optional(
    Type.Integer({
      minimum: Number.MIN_SAFE_INTEGER,
      maximum: Number.MAX_SAFE_INTEGER,
      default: 20,
      description: 'how many latest plays, events and top wagers: an integer, clamped to 1..100',
      examples: [20],
    }),
  ),
});

export const RankingsQuery = Type.Object({
  game: { ...GameParam, examples: ['all'] },
  source: { ...Type.Optional(literals(SOURCE, 'where the plays came from: all, api or mcp', 'all')), examples: ['all'] },
  metric: { ...Type.Optional(literals(METRIC, 'what the actors are ranked by: wagered, profit, roi, plays or winRate', 'profit')), examples: ['wagered'] },
});

export const StatsQuery = Type.Object({
  game: { ...GameParam, examples: ['all'] },
  period: {
    ...Type.Optional(literals(PERIOD, 'the window ending now: day (24 hourly buckets), month (30 daily), year (12 monthly)', 'day')),
    examples: ['day'],
  },
});

export const Play = Type.Object(
  {
    receiptId: Type.String({ description: 'the receipt (GET /api/receipts/:id)' }),
    game: literals(['dice', 'sweeper'], 'the game'),
    player: Alias,
    source: literals(['api', 'mcp'], 'where the play came from'),
    betAmount: { ...Amount, description: 'the stake, USDC' },
    payout: { ...Amount, description: 'what was paid out, USDC' },
    profit: { ...Amount, description: "payout − betAmount, the player's, USDC" },
    won: Type.Boolean({ description: 'whether the play won' }),
    settledAt: { ...Timestamp, description: 'when it settled' },
  },
  { description: 'a settled play' },
);

export const Actor = Type.Object(
  {
    rank: Type.Integer({ minimum: 1, description: 'position, from 1' }),
    player: Alias,
    plays: Type.Integer({ minimum: 0, description: 'settled plays' }),
    wagered: { ...Amount, description: 'total staked, USDC' },
    paidOut: { ...Amount, description: 'total paid out, USDC' },
    profit: { ...Amount, description: "paidOut − wagered, the player's, USDC" },
    roi: Type.Number({ description: 'profit / wagered, a fraction (0.25, not 25)' }),
    winRate: Type.Number({ description: 'wins / plays, a fraction' }),
  },
  { description: 'a player and their totals' },
);

export const Totals = Type.Object(
  {
    plays: Type.Integer({ minimum: 0, description: 'settled plays' }),
    wagered: { ...Amount, description: 'total staked, USDC' },
    paidOut: { ...Amount, description: 'total paid out, USDC' },
    houseNet: { ...Amount, description: 'wagered − paidOut, USDC' },
  },
  { description: 'totals' },
);

export const Bucket = Type.Object(
  {
    start: { ...Timestamp, description: 'start of the bucket (UTC hour, day or month)' },
    plays: Type.Integer({ minimum: 0, description: 'settled plays in the bucket' }),
    wagered: { ...Amount, description: 'staked in the bucket, USDC' },
    paidOut: { ...Amount, description: 'paid out in the bucket, USDC' },
    houseNet: { ...Amount, description: 'wagered − paidOut, USDC' },
  },
  { description: 'one bucket of the window' },
);

export const Bankroll = Type.Object({ totalValue: { ...Amount, description: 'the house NAV, USDC' } }, { description: 'the house bankroll now' });

const Game = literals(GAME, 'the game filter applied');
const GeneratedAt = { ...Timestamp, description: 'when the answer was computed (answers are shared for about a second)' };

const play = {
  receiptId: 'sweeper_t_dba96af4213f12ab58900e7a',
  game: 'sweeper',
  player: 'p_UwWJ2XsPysN',
  source: 'api',
  betAmount: 1,
  payout: 1.32,
  profit: 0.32,
  won: true,
  settledAt: '2026-11-23T16:03:41.001Z',
};
const dicePlay = {
  receiptId: 'dice_f565e4c7b498b86e4ccd13bab2fbea0d',
  game: 'dice',
  player: 'p_UwWJ2XsPysN',
  source: 'api',
  betAmount: 1,
  payout: 0,
  profit: -1,
  won: false,
  settledAt: '2026-11-23T16:03:39.864Z',
};
const actor = { rank: 1, player: 'p_UwWJ2XsPysN', plays: 2, wagered: 2, paidOut: 1.32, profit: -0.68, roi: -0.34, winRate: 0.5 };
const totals = { plays: 2, wagered: 2, paidOut: 1.32, houseNet: 0.68 };
const bankroll = { totalValue: 1000001.68 };

export const ActivityResponse = Type.Object(
  {
    generatedAt: GeneratedAt,
    game: Game,
    latestPlays: Type.Array(Play, { description: 'the newest plays, newest first' }),
    latestEvents: Type.Array(JournalEvent, { description: 'the newest public journal events, newest first' }),
    topWagers: Type.Array(Play, { description: 'the largest bets of the last 24 h, largest first' }),
    topActors: Type.Array(Actor, { description: 'the top 5 players by wagered over the last 24 h' }),
    totals: { ...Totals, description: 'all-time totals of the game' },
    bankroll: Bankroll,
  },
  {
    description: 'Public activity',
    examples: [
      {
        generatedAt: '2026-11-23T16:03:45.000Z',
        game: 'all',
        latestPlays: [play, dicePlay],
        latestEvents: [
          {
            id: '1795449821001-0',
            seq: 12,
            type: 'ticket_settled',
            at: '2026-11-23T16:03:41.001Z',
            data: {
              game: 'sweeper',
              player: 'p_UwWJ2XsPysN',
              ticketId: 't_dba96af4213f12ab58900e7a',
              receiptId: 'sweeper_t_dba96af4213f12ab58900e7a',
              mode: 'easy',
              outcome: 'cashed_out',
              rowsWon: 1,
              wager: '1000000',
              payout: '1320000',
              status: 'won',
              source: 'api',
            },
          },
        ],
        topWagers: [play, dicePlay],
        topActors: [actor],
        totals,
        bankroll,
      },
    ],
  },
);

export const RankingsResponse = Type.Object(
  {
    generatedAt: GeneratedAt,
    game: Game,
    source: literals(SOURCE, 'the source filter applied'),
    metric: literals(METRIC, 'the ranking metric'),
    actors: Type.Array(Actor, {
      description: '20 players by the metric descending, then plays descending, then player ascending; roi and winRate rank only players with 10 plays or more',
    }),
    totals: { ...Totals, description: 'all-time totals of the same game and source' },
  },
  {
    description: 'Rankings',
    examples: [{ generatedAt: '2026-11-23T16:03:45.000Z', game: 'all', source: 'all', metric: 'wagered', actors: [actor], totals }],
  },
);

const HOUR_MS = 3_600_000;
const dayStart = Date.parse('2026-11-22T17:00:00.000Z');
export const StatsResponse = Type.Object(
  {
    generatedAt: GeneratedAt,
    game: Game,
    period: literals(PERIOD, 'the window'),
    totals: { ...Totals, description: 'totals over the window' },
    bankroll: Bankroll,
    buckets: Type.Array(Bucket, { description: 'the buckets of the window, oldest first, in UTC, empty ones included' }),
  },
  {
    description: 'Stats',
    examples: [
      {
        generatedAt: '2026-11-23T16:03:45.000Z',
        game: 'all',
        period: 'day',
        totals,
        bankroll,
        buckets: Array.from({ length: 24 }, (_, i) => ({
          start: new Date(dayStart + i * HOUR_MS).toISOString(),
          ...(i === 23 ? totals : { plays: 0, wagered: 0, paidOut: 0, houseNet: 0 }),
        })),
      },
    ],
  },
);
