/**
 * The composition root: builds every part once at start and hands each role and module the few parts it uses.
 * It reads in stages: storage (Redis and its stores), the host's secrets, the chain (checked against the ledger),
 * the core every role shares (the games, their lifecycle, the chain tail, the house), then one function per role
 * this process runs. Only entry points (main.ts and the tests) read this object; nothing below them takes it.
 * @module
 */
import path from 'node:path';
import type { Logger } from 'pino';
import type { Ack } from './protocol/ack.ts';
import { rememberingAckSigner } from './operator/ack-signer.ts';
import { setCryptoBackend } from './protocol/crypto.ts';
import { nodeBackend } from './protocol/crypto-node.ts';
import type { LimitSettings } from './protocol/house.ts';
import type { Config } from './config/env.ts';
import { createRpc, type SolanaRpc } from './chain/rpc.ts';
import { ataOf, configuredSetup, ensureLocalnetGenesis, type ChainSetup } from './chain/genesis.ts';
import { fetchMint } from '@solana-program/token';
import { newestOperatorCommit, type OperatorCommit } from './chain/operator-history.ts';
import { redactUrl, StartupError } from './config/startup.ts';
import { explorerLinks, type ExplorerLinks } from './protocol/explorer.ts';
import { loadOperatorKey, loadOperatorKeys, loadSecret, type OperatorKey, type OperatorKeys } from './operator/keys.ts';
import { RngChains } from './operator/rng-chains.ts';
import { Aliases } from './operator/aliases.ts';
import { commandTimeoutOf, createServiceRedis, notAfterOf, type Redis } from './store/redis.ts';
import { Replication } from './store/replication.ts';
import { Keys } from './store/keys.ts';
import { defineScripts } from './store/scripts.ts';
import { LedgerStore } from './store/ledger.ts';
import { BetStore, type AckSource } from './store/bets.ts';
import { TicketStore } from './store/tickets.ts';
import { AuthStore } from './store/auth.ts';
import { ChallengeMac } from './auth/challenge.ts';
import { AnchorStore } from './store/anchor-store.ts';
import { ManifestStore } from './store/anchor-manifests.ts';
import { RngStore } from './store/rng.ts';
import { IndexerStore } from './store/indexer.ts';
import { TransparencyStore } from './store/transparency.ts';
import { RetentionStore, type JournalArchive, type ReceiptArchive } from './store/retention.ts';
import { TrustRoots } from './transparency/trust-root.ts';
import { checkpointOrigin } from './protocol/checkpoint.ts';
import { WithdrawalStore } from './store/withdrawals.ts';
import { LpStore } from './store/lp.ts';
import { PaymentStore } from './store/payments.ts';
import type { WithdrawalDeps } from './funding/withdrawals.ts';
import { ensureFeePayerFunded, FeePayerWatch, loadX402FeePayer } from './payments/fee-payer.ts';
import { facilitatorFromConfig, X402Payments, x402NetworkOf } from './payments/x402.ts';
import { TopUps } from './payments/top-up.ts';
import { HeartbeatStore } from './store/heartbeats.ts';
import { QueueDepths } from './store/queue-depths.ts';
import { createProcessMetrics, processScrape, type ProcessMetrics } from './config/metrics.ts';
import {
  anchorCheck,
  clickhouseCheck,
  feePayerCheck,
  heartbeatCheck,
  payoutsCheck,
  journalCheck,
  notConfigured,
  ReadinessChecks,
  redisCheck,
  rpcCheck,
} from './api/readiness.ts';
import { createServiceMetrics } from './api/service-metrics.ts';
import type { TailDeps } from './funding/tail.ts';
import type { PlayerDeps } from './funding/player.ts';
import { DiceGame } from './games/dice.ts';
import { Receipts } from './games/receipts.ts';
import { SweeperGame } from './games/sweeper.ts';
import { BetLifecycle } from './games/lifecycle.ts';
import type { HouseDeps } from './house/view.ts';
import type { WorkerDeps } from './anchor-worker/worker.ts';
import type { ApiDeps } from './api/deps.ts';
import { StateProofs, StateTrees, type HeldStateProofs } from './funding/state-proof.ts';
import { AgentStore } from './store/agents.ts';
import { AgentKeys } from './agents/agent-keys.ts';
import { AgentLimits } from './agents/limits.ts';
import { AgentArcade } from './agents/arcade.ts';
import { ActivityStream } from './analytics/activity-stream.ts';
import type { GameFilter } from './analytics/params.ts';
import { LivePlayStore } from './store/live-plays.ts';
import { PfwsError } from './protocol/errors.ts';
import { EngineHolder } from './analytics/engine-holder.ts';
import type { AnalyticsEngine } from './analytics/engine.ts';
import { openAnalyticsEngine } from './analytics/open-engine.ts';
import { migrate } from './analytics/migrations.ts';
import { EngineReader, engineArchive, type AnalyticsReader, type EngineArchive, type ShippedActivity } from './analytics/reader.ts';
import { houseState } from './house/view.ts';
import { microToNumber } from './protocol/money.ts';
import { JournalStream, ShipperStore } from './store/analytics.ts';
import { archivedJournalSeq } from './analytics/shipper.ts';
import { PayoutGate } from './funding/payout-gate.ts';

export interface Stores {
  ledger: LedgerStore;
  bets: BetStore;
  tickets: TicketStore;
  auth: AuthStore;
  anchors: AnchorStore;
  manifests: ManifestStore;
  rng: RngStore;
  indexer: IndexerStore;
  withdrawals: WithdrawalStore;
  lp: LpStore;
  payments: PaymentStore;
  transparency: TransparencyStore;
  agents: AgentStore;
  heartbeats: HeartbeatStore;
  shipper: ShipperStore;
  retention: RetentionStore;
}

/** What every role of this process shares: the stores, the chain, the operator keys, the games. */
export interface Core {
  config: Config;
  logger: Logger;
  clock: () => Date;
  redis: Redis;
  keys: Keys;
  stores: Stores;
  /** Before an answer goes out (or the worker anchors or pays), what was written is on the replicas (REDIS_WAIT_REPLICAS). */
  replication: Replication;
  /** For the worker and the indexer, which retry on their own. */
  rpc: SolanaRpc;
  /** For request paths: each call waits at most CHAIN_RPC_TIMEOUT_MS, then the request gets 503. */
  requestRpc: SolanaRpc;
  rpcUrl: string;
  setup: ChainSetup;
  operator: OperatorKeys;
  /** localnet only: the dev USDC mint authority. */
  faucet: OperatorKey | null;
  rngChains: RngChains;
  aliases: Aliases;
  /** State-tree salts are derived from this secret. */
  saltSecret: Uint8Array;
  links: ExplorerLinks;
  limits: LimitSettings;
  dice: DiceGame;
  /** Public receipts, from Redis or, once dropped there, from the archive. */
  receipts: Receipts;
  sweeper: SweeperGame;
  lifecycle: BetLifecycle;
  /** The chain tail: the indexer follows it, the worker's deadlines and the API's reads use it. */
  tail: TailDeps;
  house: HouseDeps;
  agentKeys: AgentKeys;
  /** This process's metrics (prom-client registry). */
  metrics: ProcessMetrics;
  queueDepths: QueueDepths;
  /** What the activity stream sends first (see ActivitySnapshot). */
  activitySnapshot: ActivitySnapshot;
  /** The analytics engine this process may open itself (the worker's chDB, or a ClickHouse server), else null. */
  analyticsEngine: EngineHolder | null;
  /** Activity, rankings and stats as the API serves them (and, in a node:cluster, the main process for its API processes). */
  analytics: AnalyticsReader;
  /** The worker's newest state trees (it keeps each one it commits); in a node:cluster the main process serves them. */
  stateTrees: StateTrees;
  /** Where state proofs are looked up before an API builds a tree itself: this process's trees, or the main process's. */
  heldStateProofs: HeldStateProofs;
}

/** The parts only the API role uses. */
export interface ApiParts {
  /** Sign-in challenge nonces are MAC'd with this (KEYS_DIR/challenge.secret). */
  challenges: ChallengeMac;
  player: PlayerDeps;
  withdrawals: WithdrawalDeps;
  topUps: TopUps;
  /** The x402 fee payer's SOL, where this service pays x402 fees itself (the embedded facilitator). */
  feePayer: FeePayerWatch | null;
  /** The MCP agents' plays under the agent limits. */
  agents: AgentArcade;
  /** What `GET /ready` checks; a dependency adds its check here. */
  readiness: ReadinessChecks;
}

export interface Wiring extends Core {
  /** Null in a process that does not run the api role. */
  api: ApiParts | null;
  /** Null in a process that does not run the worker role. */
  worker: WorkerDeps | null;
  close(): Promise<void>;
}

/** The activity of a game, as `GET /api/activity` answers it, and the seq it holds: the SSE stream's snapshot. */
export type ActivitySnapshot = (game: GameFilter) => Promise<ShippedActivity>;

export interface WiringOverrides {
  clock?: () => Date;
  redis?: Redis;
  activitySnapshot?: ActivitySnapshot;
  /** An API process forked beside a chDB owner asks the owner (analytics/cluster-ipc.ts) instead of opening chDB. */
  analyticsReader?: AnalyticsReader;
  /** An API process forked beside the worker asks it for state proofs (funding/state-proof.ts). */
  heldStateProofs?: HeldStateProofs;
}

export class LedgerMismatchError extends StartupError {
  override readonly name = 'LedgerMismatchError';
}

/** The Redis ledger is empty, yet the chain holds this operator's bet-log commits: starting as new would fork the log. */
export class LedgerMissingError extends StartupError {
  override readonly name = 'LedgerMissingError';
}

/**
 * Refuses to start an empty ledger for an operator whose commits are already on-chain (Redis lost, wiped or
 * pointed elsewhere): the balances, bets and bet log those commits anchor live only in that ledger.
 */
async function refuseLostLedger(ledger: LedgerStore, rpc: SolanaRpc, rpcUrl: string, anchorKey: string, config: Config, prefix: string): Promise<void> {
  if (!(await ledger.isEmpty())) return;
  let commit: OperatorCommit | null;
  try {
    commit = await newestOperatorCommit(rpc, anchorKey);
  } catch (err) {
    throw new StartupError(
      `cannot read the chain at ${redactUrl(rpcUrl)} to check for this operator's earlier commits (${(err as Error).message}); check SOLANA_RPC_URL`,
    );
  }
  if (!commit) return;
  const fresh = config.localnet ? ' On localnet you may instead start over with an empty DATA_DIR (a new chain).' : '';
  throw new LedgerMissingError(
    `the Redis ledger under REDIS_PREFIX="${prefix}" at ${redactUrl(config.REDIS_URL)} is empty, but the chain already holds this operator's ` +
      `bet-log commits (newest: ${commit.entryCount} entries, slot ${commit.slot}, transaction ${commit.signature}). ` +
      'Starting as new would lose every balance and fork the anchored log, so the service refuses. ' +
      'Restore Redis from its backup (the AOF or RDB file), or point REDIS_URL and REDIS_PREFIX at the ledger that made those commits; ' +
      `see "Restoring the ledger" in the README.${fresh}`,
  );
}

/** Builds the shared core, then the parts of each role this process runs (`config.roles`). */
export async function createWiring(config: Config, logger: Logger, rpcUrl: string, overrides: WiringOverrides = {}): Promise<Wiring> {
  setCryptoBackend(nodeBackend);
  const storage = await openStorage(config, logger, overrides);
  try {
    const clock = overrides.clock ?? (() => new Date());
    const secrets = await loadSecrets(config, logger);
    const chain = await openChain(config, rpcUrl, storage, secrets, clock);
    const core = coreOf(config, logger, clock, storage, secrets, chain, overrides);
    return {
      ...core,
      api: config.roles.includes('api') ? apiPartsOf(core, secrets) : null,
      worker: config.roles.includes('worker') ? workerPartsOf(core) : null,
      close: storage.close,
    };
  } catch (err) {
    await storage.close();
    throw err;
  }
}

interface Storage {
  redis: Redis;
  keys: Keys;
  replication: Replication;
  stores: Stores;
  queueDepths: QueueDepths;
  analyticsEngine: EngineHolder | null;
  /** The archive reads of this process's engine, under its ARCHIVE_READS_PER_SEC budget; null without one. */
  ownArchive: EngineArchive | null;
  /** Where receipts and journal events Redis no longer holds are read: this process's engine, or its owner's over IPC; null for none. */
  archive: (ReceiptArchive & JournalArchive) | null;
  close(): Promise<void>;
}

/**
 * chDB, handed out only once its schema is current: a query that arrives just after start-up waits for the tables
 * instead of failing on them. Its owner migrates it without the shipper's lease, as no other process can open the
 * directory; a server's schema stays the lease holder's to migrate.
 */
async function openOwnedChdb(dataDir: string, logger: Logger): Promise<AnalyticsEngine> {
  const engine = await openAnalyticsEngine({ dataDir });
  try {
    const applied = await migrate(engine);
    if (applied.length > 0) logger.info({ engine: engine.kind, applied }, 'analytics: migrated chDB as it opened');
  } catch (err) {
    await engine.close();
    throw err;
  }
  return engine;
}

/** Redis, its stores and the connections beside it. */
async function openStorage(config: Config, logger: Logger, overrides: WiringOverrides): Promise<Storage> {
  const redis = overrides.redis ?? (await createServiceRedis(config.redis, config.REDIS_COMMAND_TIMEOUT_MS, logger));
  const notAfter = notAfterOf(config.REDIS_COMMAND_TIMEOUT_MS);
  const keys = new Keys(config.REDIS_PREFIX);
  // WAIT blocks its connection, so the barrier has one of its own: the request paths' connection never waits on it.
  const replicationRedis =
    config.REDIS_WAIT_REPLICAS > 0
      ? redis.duplicate({ enableAutoPipelining: false, enableOfflineQueue: false, commandTimeout: commandTimeoutOf(config.REDIS_COMMAND_TIMEOUT_MS) })
      : null;
  replicationRedis?.on('error', () => {}); // reported by the command connection (logOutages)
  const replication = new Replication(replicationRedis ?? redis, keys.replicationBarrier(), {
    replicas: config.REDIS_WAIT_REPLICAS,
    timeoutMs: config.REDIS_WAIT_TIMEOUT_MS,
  });
  const queueDepths = new QueueDepths(config.redis, keys.queuePrefix());
  // chDB belongs to the worker's process; with a ClickHouse server every process may open its own client.
  const analyticsEngine = config.CLICKHOUSE_URL
    ? new EngineHolder(() => openAnalyticsEngine({ clickhouseUrl: config.CLICKHOUSE_URL, dataDir: config.dataDir }))
    : config.roles.includes('worker') && !overrides.analyticsReader
      ? new EngineHolder(() => openOwnedChdb(config.dataDir, logger))
      : null;
  const close = async () => {
    await analyticsEngine?.close();
    await queueDepths.close();
    replicationRedis?.disconnect();
    if (!overrides.redis) await redis.quit().catch(() => redis.disconnect());
  };
  const scripts = defineScripts(redis);
  const ownArchive = analyticsEngine ? engineArchive(() => analyticsEngine.get(), config.ARCHIVE_READS_PER_SEC) : null;
  const archive = overrides.analyticsReader ?? ownArchive;
  const stores: Stores = {
    ledger: new LedgerStore(redis, keys, scripts),
    bets: new BetStore(redis, keys, scripts, notAfter),
    tickets: new TicketStore(redis, keys, scripts, notAfter),
    auth: new AuthStore(redis, keys, scripts, { tokenCacheTtlMs: config.TOKEN_CACHE_TTL_MS }),
    anchors: new AnchorStore(redis, keys, scripts),
    manifests: new ManifestStore(redis, keys, scripts, archive),
    rng: new RngStore(redis, keys, scripts),
    indexer: new IndexerStore(redis, keys, scripts),
    withdrawals: new WithdrawalStore(redis, keys, scripts, notAfter),
    lp: new LpStore(redis, keys, scripts),
    payments: new PaymentStore(redis, keys),
    transparency: new TransparencyStore(redis, keys, config.tilesDir, archive),
    agents: new AgentStore(redis, keys, scripts),
    heartbeats: new HeartbeatStore(redis, keys),
    shipper: new ShipperStore(redis, keys, scripts),
    retention: new RetentionStore(redis, keys, scripts),
  };
  return { redis, keys, replication, stores, queueDepths, analyticsEngine, ownArchive, archive, close };
}

interface Secrets {
  operator: OperatorKeys;
  /** localnet only: the dev USDC mint authority. */
  faucet: OperatorKey | null;
  aliases: Aliases;
  saltSecret: Uint8Array;
  /** Seals the agent session keys at rest (design §9); null where no API runs. */
  agentSealingKey: Uint8Array | null;
  /** Every API process signs and checks sign-in challenges with this secret; null where no API runs. */
  challengeSecret: Uint8Array | null;
  /** The x402 fee payer (SOL only): the embedded facilitator pays from it; null where absent or no API runs. */
  x402Key: OperatorKey | null;
}

/**
 * The operator's keys and secrets on this host. On localnet the main process makes the API's secrets too, even
 * when its API processes are forked, so that they never race to create the same file.
 */
async function loadSecrets(config: Config, logger: Logger): Promise<Secrets> {
  const forApi = config.localnet || config.roles.includes('api');
  const operator = await loadOperatorKeys(config.keysDir, config.localnet);
  const aliases = new Aliases(loadSecret(config.keysDir, 'alias', config.localnet));
  const saltSecret = loadSecret(config.keysDir, 'salt', config.localnet);
  // Made on localnet, required on API hosts elsewhere, and absent from the other roles' hosts.
  const agentSealingKey = forApi ? loadSecret(config.keysDir, 'agent', config.localnet) : null;
  const challengeSecret = forApi ? loadSecret(config.keysDir, 'challenge', config.localnet) : null;
  const faucet = config.localnet ? await loadOperatorKey(config.keysDir, 'faucet', true) : null;
  // The embedded facilitator needs the fee payer on API hosts; a remote one (X402_FACILITATOR_URL) does not.
  const x402Key = forApi
    ? await loadX402FeePayer(config.keysDir, config.localnet).catch((err: unknown) => {
        logger.warn({ err }, 'no x402 fee payer key: x402 top-ups need X402_FACILITATOR_URL');
        return null;
      })
    : null;
  return { operator, faucet, aliases, saltSecret, agentSealingKey, challengeSecret, x402Key };
}

interface ChainParts {
  rpcUrl: string;
  rpc: SolanaRpc;
  requestRpc: SolanaRpc;
  setup: ChainSetup;
  startedAtMs: number;
  keeperLpAccount: Awaited<ReturnType<typeof ataOf>>;
}

/** The chain this ledger belongs to, checked against the ledger before any role starts. */
async function openChain(config: Config, rpcUrl: string, storage: Storage, secrets: Secrets, clock: () => Date): Promise<ChainParts> {
  const { stores, keys } = storage;
  const { operator, faucet } = secrets;
  const rpc = createRpc(rpcUrl);
  const requestRpc = createRpc(rpcUrl, config.CHAIN_RPC_TIMEOUT_MS);
  const setup = config.localnet
    ? await ensureLocalnetGenesis(rpc, config.dataDir, operator, faucet!, config.DEV_HOUSE_CAPITAL)
    : await configuredSetup(config.USDC_MINT!, config.LP_MINT!, operator.keeper.publicKey);
  await refuseLostLedger(stores.ledger, rpc, rpcUrl, operator.anchor.publicKey, config, keys.prefix);
  const identity = `${setup.usdcMint}:${setup.vaultTokenAccount}`;
  const stored = await stores.ledger.claimChain(identity);
  if (stored) {
    throw new LedgerMismatchError(
      `Redis prefix "${keys.prefix}" holds the ledger of another chain (${stored}); this one is ${identity}. ` +
        "Use another REDIS_PREFIX, or delete that prefix's keys to start over.",
    );
  }
  if (setup.houseFunding) {
    // The genesis mint into the vault is house capital, not an unattributed inflow.
    const { signature, amount } = setup.houseFunding;
    await stores.ledger.applyChainItem({ key: `${signature}:rest`, kind: 'house', signature, slot: 0, amount: BigInt(amount) }, clock().toISOString());
  }
  const startedAtMs = await stores.ledger.startedAt(clock().getTime());
  // The LP supply the ledger prices with starts at the bootstrap shares minted at genesis.
  await stores.lp.initSupply(async () =>
    setup.bootstrapShares !== undefined ? BigInt(setup.bootstrapShares) : (await fetchMint(rpc, setup.lpMint)).data.supply,
  );
  const keeperLpAccount = await ataOf(setup.vaultAuthority, setup.lpMint);
  if (secrets.x402Key && config.localnet) await ensureFeePayerFunded(rpc, secrets.x402Key.signer.address, 1_000_000_000n);
  return { rpcUrl, rpc, requestRpc, setup, startedAtMs, keeperLpAccount };
}

/** The games, their one lifecycle, the chain tail and the house: the API plays, the worker settles, the indexer credits. */
function coreOf(config: Config, logger: Logger, clock: () => Date, storage: Storage, secrets: Secrets, chain: ChainParts, overrides: WiringOverrides): Core {
  const { stores } = storage;
  const { operator, aliases } = secrets;
  const { rpc, requestRpc, setup } = chain;
  const metrics = createProcessMetrics();
  const rngChains = new RngChains(path.join(config.keysDir, 'rng'));
  const rngValue = (chainId: number, index: number) => rngChains.get(chainId).valueHex(index);
  const signAckOf = rememberingAckSigner(operator.ack.seed);
  const ackOf = (bet: AckSource): Ack => signAckOf({ betPayloadHash: bet.hash, ...bet });
  const aliasOf = (wallet: string) => aliases.of(wallet);
  const limits: LimitSettings = {
    maxBetBps: config.MAX_BET_BPS,
    maxPayoutBps: config.MAX_PAYOUT_BPS,
    maxExposureBps: config.MAX_EXPOSURE_BPS,
    maxWalletExposureBps: config.MAX_WALLET_EXPOSURE_BPS,
  };
  const links = explorerLinks({ baseUrl: config.EXPLORER_BASE_URL, cluster: config.cluster, rpcUrl: config.PUBLIC_RPC_URL ?? chain.rpcUrl });

  const receipts = new Receipts({ bets: stores.bets, retention: stores.retention, archive: storage.archive });
  const dice = new DiceGame({ bets: stores.bets, rng: stores.rng, ackOf, receipts });
  const sweeper = new SweeperGame({
    bets: stores.bets,
    tickets: stores.tickets,
    rng: stores.rng,
    ackOf,
    aliasOf,
    clock,
    limits,
    agentLimits: config.agentLimits,
  });
  const agentKeys = new AgentKeys({ store: stores.agents, ledger: stores.ledger, sealingKey: secrets.agentSealingKey });
  const lifecycle = new BetLifecycle({
    bets: stores.bets,
    games: { dice, sweeper },
    aliasOf,
    ackOf,
    rngValue,
    clock,
    settings: {
      prepareTtlMs: config.PREPARE_TTL_MS,
      revealDeadlineMs: config.REVEAL_DEADLINE_MS,
      scarceExposure: { thresholdBps: config.SCARCE_EXPOSURE_BPS, revealDeadlineMs: config.SCARCE_REVEAL_DEADLINE_MS },
      limits,
      agent: config.agentLimits,
      maxPreparedPerWallet: config.MAX_PREPARED_BETS_PER_WALLET,
      maxUnrevealedPerWallet: config.MAX_UNREVEALED_BETS_PER_WALLET,
    },
    observer: metrics.observer,
    agentKeyOf: (wallet) => agentKeys.publicKeyOf(wallet),
  });
  const tail: TailDeps = {
    rpc,
    ledger: stores.ledger,
    indexer: stores.indexer,
    ctx: { usdcMint: setup.usdcMint, vaultTokenAccount: setup.vaultTokenAccount, lpMint: setup.lpMint, keeperLpAccount: chain.keeperLpAccount },
    commitment: config.INDEXER_COMMITMENT,
    clock,
    aliasOf,
    onReveal: (reveal) => lifecycle.applyWalletReveal(reveal),
  };
  const house: HouseDeps = {
    ledger: stores.ledger,
    lp: stores.lp,
    rpc: requestRpc,
    setup,
    vaultTokenAccount: setup.vaultTokenAccount,
    lpMint: setup.lpMint,
    limits,
    clock,
    startedAtMs: chain.startedAtMs,
  };
  const analytics = overrides.analyticsReader ?? analyticsReaderOf(config, clock, storage, house);
  const stateTrees = new StateTrees();
  return {
    stateTrees,
    heldStateProofs: overrides.heldStateProofs ?? (async (epoch, wallet) => stateTrees.proofAt(epoch, wallet)),
    config,
    logger,
    clock,
    redis: storage.redis,
    keys: storage.keys,
    stores,
    replication: storage.replication,
    rpc,
    requestRpc,
    rpcUrl: chain.rpcUrl,
    setup,
    operator,
    faucet: secrets.faucet,
    rngChains,
    aliases,
    saltSecret: secrets.saltSecret,
    links,
    limits,
    dice,
    receipts,
    sweeper,
    lifecycle,
    tail,
    house,
    agentKeys,
    metrics,
    queueDepths: storage.queueDepths,
    activitySnapshot: overrides.activitySnapshot ?? ((game) => analytics.shippedActivity({ game })),
    analyticsEngine: storage.analyticsEngine,
    analytics,
  };
}

/** Analytics from this process's own engine, with the house value read from the chain for the bankroll. */
function analyticsReaderOf(config: Config, clock: () => Date, storage: Pick<Storage, 'analyticsEngine' | 'ownArchive'>, house: HouseDeps): AnalyticsReader {
  const engine = storage.analyticsEngine;
  return new EngineReader({
    ...(storage.ownArchive ? { archive: storage.ownArchive } : {}),
    engine: async () => {
      if (!engine) throw new PfwsError('SERVICE_UNAVAILABLE', 'Analytics are not served by this process');
      return engine.get();
    },
    clock,
    cacheMs: config.ANALYTICS_CACHE_MS,
    bankroll: async () => {
      try {
        return { totalValue: microToNumber((await houseState(house)).nav) };
      } catch (err) {
        throw new PfwsError('SERVICE_UNAVAILABLE', 'The house value cannot be read from the chain right now; retry shortly', undefined, { cause: err });
      }
    },
  });
}

/** The worker role: anchoring and manifests, RNG heads, deadlines, the keeper, and shipping the journal to analytics. */
function workerPartsOf(core: Core): WorkerDeps {
  const { config, logger, clock, stores, operator, replication, rpc, keys } = core;
  const workerLogger = logger.child({ role: 'worker' });
  const rngValue = (chainId: number, index: number) => core.rngChains.get(chainId).valueHex(index);
  const journal = JournalStream.of(core.redis, keys, replication);
  return {
    logger,
    heartbeats: stores.heartbeats,
    ...(core.analyticsEngine
      ? {
          analytics: {
            engine: core.analyticsEngine,
            stream: journal,
            lease: stores.shipper.lease,
            archive: { anchors: stores.anchors, manifests: stores.manifests, progress: stores.shipper },
            ...(config.SETTLED_RETENTION_MS > 0
              ? {
                  retention: {
                    store: stores.retention,
                    archived: stores.shipper,
                    files: stores.transparency,
                    manifests: stores.manifests,
                    retentionMs: config.SETTLED_RETENTION_MS,
                    clock,
                  },
                }
              : {}),
            heartbeats: stores.heartbeats,
            clock,
            logger: workerLogger,
          },
        }
      : {}),
    rngHeads: {
      rng: stores.rng,
      chains: core.rngChains,
      rpc,
      anchorKey: operator.anchor,
      logger: workerLogger,
      chainLength: config.RNG_CHAIN_LENGTH,
      rolloverMargin: config.RNG_ROLLOVER_MARGIN,
    },
    deadlines: {
      bets: stores.bets,
      tickets: stores.tickets,
      lifecycle: core.lifecycle,
      tail: core.tail,
      clock,
      logger: workerLogger,
      ticketIdleMs: config.TICKET_IDLE_MS,
    },
    anchoring: {
      anchorer: {
        store: stores.anchors,
        rpc,
        anchorKey: operator.anchor,
        rngValue,
        saltSecret: core.saltSecret,
        links: core.links,
        clock,
        logger: workerLogger,
        maxEntries: config.ANCHOR_MAX_ENTRIES,
        commitment: config.INDEXER_COMMITMENT,
        checkpoints: { store: stores.transparency, origin: checkpointOrigin(config.PUBLIC_BASE_URL), witnesses: config.witnesses },
        replication,
        stateTrees: core.stateTrees,
        stateTreeCpuPercent: config.STATE_TREE_CPU_PERCENT,
      },
      manifests: { store: stores.manifests, anchorKey: operator.anchor, maxEvents: config.MANIFEST_MAX_EVENTS, clock, logger: workerLogger, replication },
      redis: config.redis,
      queuePrefix: keys.queuePrefix(),
      logger,
      anchorMaxEntries: config.ANCHOR_MAX_ENTRIES,
      anchorMaxDelayMs: config.ANCHOR_MAX_DELAY_MS,
      manifestMaxEvents: config.MANIFEST_MAX_EVENTS,
      manifestMaxDelayMs: config.MANIFEST_MAX_DELAY_MS,
    },
    keeper: {
      keeper: {
        withdrawals: stores.withdrawals,
        lp: stores.lp,
        ledger: stores.ledger,
        rpc,
        setup: core.setup,
        keeperKey: operator.keeper,
        limits: core.limits,
        commitment: config.INDEXER_COMMITMENT,
        clock,
        logger: workerLogger,
        replication,
        gate: new PayoutGate({
          archivedSeq: async () => {
            if (!core.analyticsEngine) throw new Error('this process has no analytics engine');
            return archivedJournalSeq(await core.analyticsEngine.get());
          },
          ledgerSeq: () => journal.lastSeq(),
          heartbeats: stores.heartbeats,
          clock,
          logger: workerLogger,
        }),
      },
      redis: config.redis,
      queuePrefix: keys.queuePrefix(),
      logger,
    },
  };
}

/** The API role: sign-in, the player's and house's reads, withdrawals, x402 top-ups, the MCP agents, readiness. */
function apiPartsOf(core: Core, secrets: Secrets): ApiParts {
  const { config, logger, clock, stores, setup, requestRpc, links, tail } = core;
  const { x402Key } = secrets;
  const aliasOf = (wallet: string) => core.aliases.of(wallet);
  const network = x402NetworkOf(config.cluster);
  const computeBudget = { maxUnitLimit: config.X402_MAX_CU_LIMIT, maxUnitPriceMicroLamports: BigInt(config.X402_MAX_CU_PRICE_MICROLAMPORTS) };
  const x402 = new X402Payments({
    network,
    usdcMint: setup.usdcMint,
    payTo: setup.vaultAuthority,
    computeBudget,
    facilitator: facilitatorFromConfig({
      network,
      url: config.X402_FACILITATOR_URL,
      rpcUrl: core.rpcUrl,
      computeBudget,
      feePayer: () => {
        if (!x402Key) throw new Error(`no x402 fee payer key in ${config.keysDir}`);
        return x402Key.signer;
      },
    }),
  });
  const publicBase = config.PUBLIC_BASE_URL?.replace(/\/+$/, '') ?? `http://localhost:${config.PORT}`;
  // Only the embedded facilitator pays fees from this service's own key.
  const feePayer =
    x402Key && !config.X402_FACILITATOR_URL
      ? new FeePayerWatch({
          rpc: requestRpc,
          address: x402Key.signer.address,
          minLamports: BigInt(config.FEE_PAYER_MIN_LAMPORTS),
          logger: logger.child({ role: 'x402' }),
        })
      : null;
  const topUps = new TopUps({
    x402,
    payments: stores.payments,
    tail,
    ledger: stores.ledger,
    resourceUrl: `${publicBase}/api/protocol/v1/player/x402-deposit`,
    minTopUp: config.minTopUp,
    feePayer,
  });
  const readiness = new ReadinessChecks()
    .add('redis', redisCheck(stores.heartbeats))
    .add('rpc', rpcCheck(requestRpc))
    .add('clickhouse', clickhouseCheck(core.analytics))
    .add('indexer', heartbeatCheck(stores.heartbeats, 'indexer', clock))
    .add('worker', heartbeatCheck(stores.heartbeats, 'worker', clock))
    .add(
      'x402FeePayer',
      feePayer
        ? feePayerCheck(feePayer)
        : notConfigured(
            config.X402_FACILITATOR_URL ? 'x402 fees are paid by the remote facilitator (X402_FACILITATOR_URL)' : 'no x402 fee payer key on this host',
          ),
    )
    .add('anchor', anchorCheck(stores.anchors))
    .add('journal', journalCheck(stores.heartbeats))
    .add('payouts', payoutsCheck(stores.heartbeats));
  const agentLimits = new AgentLimits({ store: stores.agents, settings: config.agentLimits, clock });
  return {
    challenges: new ChallengeMac(requirePart(secrets.challengeSecret, 'the challenge secret (KEYS_DIR/challenge.secret)')),
    player: { ledger: stores.ledger, withdrawals: stores.withdrawals, links, rpc: requestRpc, setup, tail: { ...tail, rpc: requestRpc }, aliasOf },
    withdrawals: {
      withdrawals: stores.withdrawals,
      aliasOf,
      links,
      clock,
      rpc: requestRpc,
      setup,
      limits: config.withdrawalLimits,
      payoutsHalted: async () => {
        const fields = (await stores.heartbeats.read('keeper'))?.fields;
        return fields?.payouts === 'behind' ? (fields.reason ?? 'behind') : null;
      },
    },
    topUps,
    feePayer,
    agents: new AgentArcade({
      lifecycle: core.lifecycle,
      sweeper: core.sweeper,
      tickets: stores.tickets,
      bets: stores.bets,
      keys: core.agentKeys,
      limits: agentLimits,
      clock,
    }),
    readiness,
  };
}

/** The activity stream of one API process: its own subscriber connection, made when the first client comes. */
export function activityStreamOf(w: Core): ActivityStream {
  const store = new LivePlayStore(w.redis, w.keys, w.config.redis);
  return new ActivityStream({
    journal: store,
    subscribe: (handlers) => store.subscribe(handlers),
    snapshot: w.activitySnapshot,
    observer: w.metrics.streamObserver,
    settings: {
      keepAliveMs: w.config.SSE_KEEPALIVE_MS,
      clientBufferBytes: w.config.SSE_CLIENT_BUFFER_BYTES,
      replayMaxEvents: w.config.SSE_REPLAY_MAX_EVENTS,
      flushMs: w.config.SSE_FLUSH_MS,
    },
  });
}

function requirePart<T>(part: T | null, what: string): T {
  if (part === null) throw new Error(`${what} is not loaded in this process, which does not run the api role`);
  return part;
}

/** The parts the API role takes. */
export function apiDepsOf(w: Wiring): ApiDeps {
  const { config, stores } = w;
  const api = requirePart(w.api, "the api role's parts");
  return {
    config,
    logger: w.logger,
    clock: w.clock,
    auth: stores.auth,
    challenges: api.challenges,
    bets: stores.bets,
    receipts: w.receipts,
    anchors: stores.anchors,
    manifests: stores.manifests,
    rng: stores.rng,
    lifecycle: w.lifecycle,
    dice: w.dice,
    sweeper: w.sweeper,
    player: api.player,
    house: w.house,
    withdrawals: api.withdrawals,
    topUps: api.topUps,
    chain: {
      cluster: config.cluster,
      rpcUrl: config.PUBLIC_RPC_URL ?? w.rpcUrl,
      setup: w.setup,
      ackPublicKey: w.operator.ack.publicKey,
      anchorPublicKey: w.operator.anchor.publicKey,
      explorerBaseUrl: config.EXPLORER_BASE_URL,
    },
    links: w.links,
    stateProofs: new StateProofs({
      anchors: stores.anchors,
      saltSecret: w.saltSecret,
      held: w.heldStateProofs,
      onBuild: () => w.metrics.stateTreesBuilt.inc(),
    }),
    transparency: stores.transparency,
    trustRoots: new TrustRoots({
      store: stores.transparency,
      rpc: w.requestRpc,
      setup: w.setup,
      cluster: config.cluster,
      ackPublicKey: w.operator.ack.publicKey,
      anchorPublicKey: w.operator.anchor.publicKey,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      clock: w.clock,
    }),
    faucet: w.faucet ? { key: w.faucet, rpc: w.requestRpc, setup: w.setup } : null,
    activityStream: activityStreamOf(w),
    agentKeys: w.agentKeys,
    agents: api.agents,
    analytics: w.analytics,
    rateLimitStore: { redis: w.redis, nameSpace: w.keys.rateLimit() },
    replication: w.replication,
    ops: {
      readiness: api.readiness,
      metrics: w.metrics,
      scrape: processScrape(w.metrics.registry),
      service: createServiceMetrics({
        ledger: stores.ledger,
        anchors: stores.anchors,
        retention: stores.retention,
        manifests: stores.manifests,
        heartbeats: stores.heartbeats,
        queues: w.queueDepths,
        rpc: w.requestRpc,
        commitment: config.INDEXER_COMMITMENT,
        clock: w.clock,
        feePayer: api.feePayer,
      }),
    },
  };
}
