// Shapes the pages read from the public API: the contract's house and receipt, and design §8's analytics.
import type { ReceiptAnchor } from '../../protocol/receipt.ts';

export type {
  Activity,
  Actor,
  Bucket,
  GameFilter as Game,
  Metric,
  Period,
  Play,
  PublicEvent as JournalEvent,
  Rankings,
  SourceFilter as Source,
  Stats,
  Totals,
} from '../../protocol/analytics.ts';

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
