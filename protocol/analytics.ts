/**
 * The public analytics shapes of design §8, as the API answers them and the pages read them. Money is a decimal
 * USDC number here, as everywhere in the API.
 * @module
 */

export const GAMES = ['all', 'dice', 'sweeper'] as const;
export const SOURCES = ['all', 'api', 'mcp'] as const;
export const METRICS = ['wagered', 'profit', 'roi', 'plays', 'winRate'] as const;
export const PERIODS = ['day', 'month', 'year'] as const;

export type GameFilter = (typeof GAMES)[number];
export type SourceFilter = (typeof SOURCES)[number];
export type Metric = (typeof METRICS)[number];
export type Period = (typeof PERIODS)[number];

export interface Play {
  receiptId: string;
  game: string;
  /** Public alias, never a wallet address. */
  player: string;
  source: string;
  betAmount: number;
  payout: number;
  /** payout − betAmount */
  profit: number;
  won: boolean;
  settledAt: string;
}

export interface PublicEvent {
  id: string;
  seq: number;
  type: string;
  at: string;
  data: unknown;
}

export interface Actor {
  rank: number;
  player: string;
  plays: number;
  wagered: number;
  paidOut: number;
  /** paidOut − wagered, the player's */
  profit: number;
  /** profit / wagered, a fraction */
  roi: number;
  /** wins / plays, a fraction */
  winRate: number;
}

export interface Totals {
  plays: number;
  wagered: number;
  paidOut: number;
  /** wagered − paidOut */
  houseNet: number;
}

export interface Bucket extends Totals {
  start: string;
}

export interface Bankroll {
  totalValue: number;
}

export interface Activity {
  generatedAt: string;
  game: GameFilter;
  latestPlays: Play[];
  latestEvents: PublicEvent[];
  topWagers: Play[];
  topActors: Actor[];
  totals: Totals;
  bankroll: Bankroll;
}

export interface Rankings {
  generatedAt: string;
  game: GameFilter;
  source: SourceFilter;
  metric: Metric;
  actors: Actor[];
  totals: Totals;
}

export interface Stats {
  generatedAt: string;
  game: GameFilter;
  period: Period;
  totals: Totals;
  bankroll: Bankroll;
  buckets: Bucket[];
}
