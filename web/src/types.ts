// Shapes the pages read from the public API: the contract's house and receipt, and design §8's analytics.
import type { ReceiptAnchor } from '../../protocol/receipt.ts';

export type Game = 'all' | 'dice' | 'sweeper';
export type Source = 'all' | 'api' | 'mcp';
export type Metric = 'wagered' | 'profit' | 'roi' | 'plays' | 'winRate';
export type Period = 'day' | 'month' | 'year';

/** `GET /api/house` → `house`. */
export interface House {
  totalValue: number;
  baseBankroll: number;
  gameNet: number;
  volume: number;
  apr: number;
  maxExposure: number;
  utilization: number;
  totalStaked: number;
  sharePrice: number;
  activeReserve: number;
  idleReserve: number;
  deployableToYield: number;
  maxBet: number;
  maxPayout: number;
  openExposure: number;
  strategy: string;
}

/** A settled play as analytics, the SSE feed and (rebuilt from receipts) the fallback feed give it. */
export interface Play {
  receiptId: string;
  game: string;
  player: string;
  source: string;
  betAmount: number;
  payout: number;
  profit: number;
  won: boolean;
  settledAt: string;
}

export interface Actor {
  rank: number;
  player: string;
  plays: number;
  wagered: number;
  paidOut: number;
  profit: number;
  roi: number;
  winRate: number;
}

export interface Totals {
  plays: number;
  wagered: number;
  paidOut: number;
  houseNet: number;
}

export interface Bucket extends Totals {
  start: string;
}

export interface JournalEvent {
  id: string;
  seq: number;
  type: string;
  at: string;
  data: unknown;
}

export interface Activity {
  generatedAt: string;
  game: Game;
  latestPlays: Play[];
  latestEvents: JournalEvent[];
  topWagers: Play[];
  topActors: Actor[];
  totals: Totals;
  bankroll: { totalValue: number };
}

export interface Rankings {
  generatedAt: string;
  game: Game;
  source: Source;
  metric: Metric;
  actors: Actor[];
  totals: Totals;
}

export interface Stats {
  generatedAt: string;
  game: Game;
  period: Period;
  totals: Totals;
  bankroll: { totalValue: number };
  buckets: Bucket[];
}

/** `GET /api/protocol/v1/config` (design §5). */
export interface PublishedConfig {
  cluster: string;
  rpcUrl: string;
  usdcMint: string;
  vaultAuthority: string;
  vaultTokenAccount: string;
  operatorPublicKey: string;
  ackPublicKey: string;
  memoProgram: string;
  lpMint: string;
  rngChainHead: string | null;
  explorerBaseUrl: string;
}

/** `GET /api/protocol/v1/bet-log/entries`. */
export interface BetLogPage {
  entries: { index: number; leafHash: string; receiptId: string }[];
  size: number;
  committedSize: number;
}

/** A receipt as served; the inner objects stay loose because a pasted one is untrusted. */
export interface Receipt {
  id: string;
  receiptId: string;
  game: string;
  gameId: string;
  player: string;
  actorAlias: string;
  source: string;
  betAmount: number;
  payout: number;
  profit: number;
  status: string;
  input: Record<string, unknown>;
  result: Record<string, unknown>;
  proof: Record<string, unknown>;
  verifierPayload: Record<string, unknown>;
  anchor: ReceiptAnchor;
  createdAt: string;
}
