// What the API role takes from the composition root: each route reads only the parts it names.
import type { Redis } from '../store/redis.ts';
import type { Logger } from 'pino';
import type { Config } from '../config/env.ts';
import type { ChainSetup } from '../chain/genesis.ts';
import type { ExplorerLinks } from '../protocol/explorer.ts';
import type { SolanaRpc } from '../chain/rpc.ts';
import type { OperatorKey } from '../operator/keys.ts';
import type { PlayerDeps } from '../funding/player.ts';
import type { WithdrawalDeps } from '../funding/withdrawals.ts';
import type { TopUps } from '../payments/top-up.ts';
import type { StateProofs } from '../funding/state-proof.ts';
import type { DiceGame } from '../games/dice.ts';
import type { BetLifecycle } from '../games/lifecycle.ts';
import type { SweeperGame } from '../games/sweeper.ts';
import type { HouseDeps } from '../house/view.ts';
import type { AgentArcade } from '../agents/arcade.ts';
import type { AgentKeys } from '../agents/agent-keys.ts';
import type { AnchorStore } from '../store/anchor-store.ts';
import type { ManifestStore } from '../store/anchor-manifests.ts';
import type { AuthStore } from '../store/auth.ts';
import type { ChallengeMac } from '../auth/challenge.ts';
import type { BetStore } from '../store/bets.ts';
import type { Receipts } from '../games/receipts.ts';
import type { RngStore } from '../store/rng.ts';
import type { TransparencyStore } from '../store/transparency.ts';
import type { TrustRoots } from '../transparency/trust-root.ts';
import type { ProcessMetrics } from '../config/metrics.ts';
import type { Registry } from 'prom-client';
import type { ReadinessChecks } from './readiness.ts';
import type { ActivityStream } from '../analytics/activity-stream.ts';
import type { AnalyticsReader } from '../analytics/reader.ts';
import type { ReplicationBarrier } from '../store/replication.ts';
import type { Base58Key } from '../protocol/address.ts';

/** The chain objects and operator public keys clients and verifiers start from. */
export interface ChainInfo {
  cluster: Config['cluster'];
  /** The RPC URL published to clients. */
  rpcUrl: string;
  setup: ChainSetup;
  ackPublicKey: Base58Key;
  anchorPublicKey: Base58Key;
  explorerBaseUrl: string;
}

/** What the operations routes (`/health`, `/ready`, `/metrics`) read. */
export interface OpsDeps {
  readiness: ReadinessChecks;
  /** This process's metrics; request latency is recorded here. */
  metrics: ProcessMetrics;
  /** The process metrics as one scrape sees them: this process's, or in a node:cluster every process's, summed. */
  scrape: () => Promise<string>;
  /** Gauges of the whole service, read from Redis and the chain on each scrape. */
  service: Registry;
}

export interface ApiDeps {
  config: Config;
  logger: Logger;
  clock: () => Date;
  auth: AuthStore;
  /** Makes and checks sign-in challenge nonces under the secret every API process shares. */
  challenges: ChallengeMac;
  bets: BetStore;
  /** Public receipts, from Redis or, once dropped there, from the archive. */
  receipts: Receipts;
  anchors: AnchorStore;
  manifests: ManifestStore;
  rng: RngStore;
  lifecycle: BetLifecycle;
  dice: DiceGame;
  sweeper: SweeperGame;
  player: PlayerDeps;
  house: HouseDeps;
  withdrawals: WithdrawalDeps;
  /** x402 top-ups (also what the MCP `top_up` tool calls). */
  topUps: TopUps;
  chain: ChainInfo;
  links: ExplorerLinks;
  stateProofs: StateProofs;
  transparency: TransparencyStore;
  trustRoots: TrustRoots;
  /** The MCP agents: their service-held session keys, and their plays under the agent limits. */
  agentKeys: AgentKeys;
  agents: AgentArcade;
  /** The live activity stream (SSE) of this process: one Redis subscription, fanned out to its clients. */
  activityStream: ActivityStream;
  /** localnet only: the dev faucet. */
  faucet: { key: OperatorKey; rpc: SolanaRpc; setup: ChainSetup } | null;
  ops: OpsDeps;
  /** Activity, rankings and stats (the SSE snapshot reads `analytics.activity` too). */
  analytics: AnalyticsReader;
  /** Where every API process leases its slots of the rate limit's one budget (store/rate-limit.ts). */
  rateLimitStore: { redis: Redis; nameSpace: string };
  /** Waits until what was written is on the replicas (REDIS_WAIT_REPLICAS); every write answer passes through it. */
  replication: ReplicationBarrier;
}
