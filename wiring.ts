/**
 * The composition root: builds every part once at start (Redis and its stores, the chain, the operator keys,
 * the games and their lifecycle) and hands each role and module the few parts it uses. Only entry points
 * (main.ts and the tests) read this object; nothing below them takes it.
 * @module
 */
import path from 'node:path';
import type { Logger } from 'pino';
import type { Ack } from './protocol/ack.ts';
import { signAck } from './protocol/ack.ts';
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
import { SweeperGame } from './games/sweeper.ts';
import { BetLifecycle } from './games/lifecycle.ts';
import type { HouseDeps } from './house/view.ts';
import type { WorkerDeps } from './anchor-worker/worker.ts';
import type { ApiDeps } from './api/deps.ts';
import { StateProofs } from './funding/state-proof.ts';
import { AgentStore } from './store/agents.ts';
import { AgentKeys } from './agents/agent-keys.ts';
import { AgentLimits } from './agents/limits.ts';
import { AgentArcade } from './agents/arcade.ts';
import { ActivityStream } from './analytics/activity-stream.ts';
import type { GameFilter } from './analytics/params.ts';
import type { Activity } from './protocol/analytics.ts';
import { LivePlayStore } from './store/live-plays.ts';
import { PfwsError } from './protocol/errors.ts';
import { EngineHolder } from './analytics/engine-holder.ts';
import { openAnalyticsEngine } from './analytics/open-engine.ts';
import { EngineReader, type AnalyticsReader } from './analytics/reader.ts';
import { houseState } from './house/view.ts';
import { microToNumber } from './protocol/money.ts';
import { JournalStream, ShipperStore } from './store/analytics.ts';

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
}

export interface Wiring {
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
  /** Sign-in challenge nonces are MAC'd with this (API hosts only: KEYS_DIR/challenge.secret). */
  challenges: ChallengeMac | null;
  links: ExplorerLinks;
  limits: LimitSettings;
  dice: DiceGame;
  sweeper: SweeperGame;
  lifecycle: BetLifecycle;
  tail: TailDeps;
  player: PlayerDeps;
  house: HouseDeps;
  withdrawals: WithdrawalDeps;
  topUps: TopUps;
  /** The x402 fee payer's SOL, where this service pays x402 fees itself (the embedded facilitator). */
  feePayer: FeePayerWatch | null;
  worker: WorkerDeps;
  agentKeys: AgentKeys;
  agents: AgentArcade;
  /** This process's metrics (prom-client registry). */
  metrics: ProcessMetrics;
  /** What `GET /ready` checks; a dependency adds its check here. */
  readiness: ReadinessChecks;
  queueDepths: QueueDepths;
  /** What the activity stream sends first (see ActivitySnapshot). */
  activitySnapshot: ActivitySnapshot;
  /** The analytics engine this process may open itself (the worker's chDB, or a ClickHouse server), else null. */
  analyticsEngine: EngineHolder | null;
  /** Activity, rankings and stats as the API serves them. */
  analytics: AnalyticsReader;
  close(): Promise<void>;
}

/** The activity of a game, as `GET /api/activity` answers it: the SSE stream's snapshot. */
export type ActivitySnapshot = (game: GameFilter) => Promise<Activity>;

export interface WiringOverrides {
  clock?: () => Date;
  redis?: Redis;
  activitySnapshot?: ActivitySnapshot;
  /** An API process forked beside a chDB owner asks the owner (analytics/cluster-ipc.ts) instead of opening chDB. */
  analyticsReader?: AnalyticsReader;
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

export async function createWiring(config: Config, logger: Logger, rpcUrl: string, overrides: WiringOverrides = {}): Promise<Wiring> {
  setCryptoBackend(nodeBackend);
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
  const analyticsEngine =
    config.CLICKHOUSE_URL || (config.roles.includes('worker') && !overrides.analyticsReader)
      ? new EngineHolder(() => openAnalyticsEngine({ clickhouseUrl: config.CLICKHOUSE_URL, dataDir: config.dataDir }))
      : null;
  const close = async () => {
    await analyticsEngine?.close();
    await queueDepths.close();
    replicationRedis?.disconnect();
    if (!overrides.redis) await redis.quit().catch(() => redis.disconnect());
  };
  const scripts = defineScripts(redis);
  const stores: Stores = {
    ledger: new LedgerStore(redis, keys, scripts),
    bets: new BetStore(redis, keys, scripts, notAfter),
    tickets: new TicketStore(redis, keys, scripts, notAfter),
    auth: new AuthStore(redis, keys, scripts, { tokenCacheTtlMs: config.TOKEN_CACHE_TTL_MS }),
    anchors: new AnchorStore(redis, keys, scripts),
    manifests: new ManifestStore(redis, keys, scripts),
    rng: new RngStore(redis, keys, scripts),
    indexer: new IndexerStore(redis, keys, scripts),
    withdrawals: new WithdrawalStore(redis, keys, scripts, notAfter),
    lp: new LpStore(redis, keys, scripts),
    payments: new PaymentStore(redis, keys),
    transparency: new TransparencyStore(redis, keys, config.tilesDir),
    agents: new AgentStore(redis, keys, scripts),
    heartbeats: new HeartbeatStore(redis, keys),
    shipper: new ShipperStore(redis, keys, scripts),
  };
  const metrics = createProcessMetrics();
  const clock = overrides.clock ?? (() => new Date());
  const operator = await loadOperatorKeys(config.keysDir, config.localnet);
  const aliases = new Aliases(loadSecret(config.keysDir, 'alias', config.localnet));
  const saltSecret = loadSecret(config.keysDir, 'salt', config.localnet);
  // Seals the agent session keys at rest (design §9): made on localnet (by the main process, before API processes
  // fork), required on API hosts elsewhere, and absent from the other roles' hosts.
  const agentSealingKey = config.localnet || config.roles.includes('api') ? loadSecret(config.keysDir, 'agent', config.localnet) : null;
  // Every API process signs and checks sign-in challenges with the same secret, made and required the same way.
  const challengeSecret = config.localnet || config.roles.includes('api') ? loadSecret(config.keysDir, 'challenge', config.localnet) : null;
  const rpc = createRpc(rpcUrl);
  const requestRpc = createRpc(rpcUrl, config.CHAIN_RPC_TIMEOUT_MS);

  let faucet: OperatorKey | null = null;
  let setup: ChainSetup;
  if (config.localnet) {
    faucet = await loadOperatorKey(config.keysDir, 'faucet', true);
    setup = await ensureLocalnetGenesis(rpc, config.dataDir, operator, faucet, config.DEV_HOUSE_CAPITAL);
  } else {
    setup = await configuredSetup(config.USDC_MINT!, config.LP_MINT!, operator.keeper.publicKey);
  }
  try {
    await refuseLostLedger(stores.ledger, rpc, rpcUrl, operator.anchor.publicKey, config, keys.prefix);
  } catch (err) {
    await close();
    throw err;
  }
  const identity = `${setup.usdcMint}:${setup.vaultTokenAccount}`;
  const stored = await stores.ledger.claimChain(identity);
  if (stored) {
    await close();
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

  // The x402 fee payer holds only SOL; the embedded facilitator needs it on API hosts, a remote one does not.
  const x402Key = await loadX402FeePayer(config.keysDir, config.localnet).catch((err: unknown) => {
    logger.warn({ err }, 'no x402 fee payer key: x402 top-ups need X402_FACILITATOR_URL');
    return null;
  });
  if (x402Key && config.localnet) await ensureFeePayerFunded(rpc, x402Key.signer.address, 1_000_000_000n);

  const rngChains = new RngChains(path.join(config.keysDir, 'rng'));
  const rngValue = (chainId: number, index: number) => rngChains.get(chainId).valueHex(index);
  const ackOf = (bet: AckSource): Ack => signAck({ betPayloadHash: bet.hash, ...bet }, operator.ack.seed);
  const aliasOf = (wallet: string) => aliases.of(wallet);
  const limits: LimitSettings = {
    maxBetBps: config.MAX_BET_BPS,
    maxPayoutBps: config.MAX_PAYOUT_BPS,
    maxExposureBps: config.MAX_EXPOSURE_BPS,
    maxWalletExposureBps: config.MAX_WALLET_EXPOSURE_BPS,
  };
  const links = explorerLinks({ baseUrl: config.EXPLORER_BASE_URL, cluster: config.cluster, rpcUrl: config.PUBLIC_RPC_URL ?? rpcUrl });

  const dice = new DiceGame({ bets: stores.bets, rng: stores.rng, ackOf });
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
  const agentKeys = new AgentKeys({ store: stores.agents, ledger: stores.ledger, sealingKey: agentSealingKey });
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
  const agentLimits = new AgentLimits({ store: stores.agents, settings: config.agentLimits, clock });
  const agents = new AgentArcade({ lifecycle, sweeper, tickets: stores.tickets, bets: stores.bets, keys: agentKeys, limits: agentLimits, clock });
  const tail: TailDeps = {
    rpc,
    ledger: stores.ledger,
    indexer: stores.indexer,
    ctx: { usdcMint: setup.usdcMint, vaultTokenAccount: setup.vaultTokenAccount, lpMint: setup.lpMint, keeperLpAccount },
    commitment: config.INDEXER_COMMITMENT,
    clock,
    aliasOf,
    onReveal: (reveal) => lifecycle.applyWalletReveal(reveal),
  };
  const workerLogger = logger.child({ role: 'worker' });
  const houseDeps: HouseDeps = {
    ledger: stores.ledger,
    lp: stores.lp,
    rpc: requestRpc,
    setup,
    vaultTokenAccount: setup.vaultTokenAccount,
    lpMint: setup.lpMint,
    limits,
    clock,
    startedAtMs,
  };
  const analytics: AnalyticsReader =
    overrides.analyticsReader ??
    new EngineReader({
      engine: async () => {
        if (!analyticsEngine) throw new PfwsError('SERVICE_UNAVAILABLE', 'Analytics are not served by this process');
        return analyticsEngine.get();
      },
      clock,
      cacheMs: config.ANALYTICS_CACHE_MS,
      bankroll: async () => {
        try {
          return { totalValue: microToNumber((await houseState(houseDeps)).nav) };
        } catch (err) {
          throw new PfwsError('SERVICE_UNAVAILABLE', 'The house value cannot be read from the chain right now; retry shortly', undefined, { cause: err });
        }
      },
    });
  const worker: WorkerDeps = {
    logger,
    heartbeats: stores.heartbeats,
    ...(analyticsEngine
      ? {
          analytics: {
            engine: analyticsEngine,
            stream: JournalStream.of(redis, keys, replication),
            lease: stores.shipper.lease,
            archive: { anchors: stores.anchors, manifests: stores.manifests, progress: stores.shipper },
            heartbeats: stores.heartbeats,
            clock,
            logger: workerLogger,
          },
        }
      : {}),
    rngHeads: {
      rng: stores.rng,
      chains: rngChains,
      rpc,
      anchorKey: operator.anchor,
      logger: workerLogger,
      chainLength: config.RNG_CHAIN_LENGTH,
      rolloverMargin: config.RNG_ROLLOVER_MARGIN,
    },
    deadlines: { bets: stores.bets, tickets: stores.tickets, lifecycle, tail, clock, logger: workerLogger, ticketIdleMs: config.TICKET_IDLE_MS },
    anchoring: {
      anchorer: {
        store: stores.anchors,
        rpc,
        anchorKey: operator.anchor,
        rngValue,
        saltSecret,
        links,
        clock,
        logger: workerLogger,
        maxEntries: config.ANCHOR_MAX_ENTRIES,
        commitment: config.INDEXER_COMMITMENT,
        checkpoints: { store: stores.transparency, origin: checkpointOrigin(config.PUBLIC_BASE_URL), witnesses: config.witnesses },
        replication,
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
        setup,
        keeperKey: operator.keeper,
        limits,
        commitment: config.INDEXER_COMMITMENT,
        clock,
        logger: workerLogger,
        replication,
      },
      redis: config.redis,
      queuePrefix: keys.queuePrefix(),
      logger,
    },
  };

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
      rpcUrl,
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
    .add('clickhouse', clickhouseCheck(analytics))
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
    .add('journal', journalCheck(stores.heartbeats));

  return {
    config,
    logger,
    clock,
    redis,
    keys,
    stores,
    replication,
    rpc,
    requestRpc,
    rpcUrl,
    setup,
    operator,
    faucet,
    rngChains,
    aliases,
    saltSecret,
    challenges: challengeSecret ? new ChallengeMac(challengeSecret) : null,
    links,
    limits,
    dice,
    sweeper,
    lifecycle,
    tail,
    player: { ledger: stores.ledger, withdrawals: stores.withdrawals, links, rpc: requestRpc, setup, tail: { ...tail, rpc: requestRpc }, aliasOf },
    house: houseDeps,
    withdrawals: { withdrawals: stores.withdrawals, aliasOf, links, clock, rpc: requestRpc, setup, limits: config.withdrawalLimits },
    topUps,
    feePayer,
    worker,
    agentKeys,
    agents,
    metrics,
    readiness,
    queueDepths,
    activitySnapshot: overrides.activitySnapshot ?? ((game) => analytics.activity({ game })),
    analyticsEngine,
    analytics,
    close,
  };
}

/** The activity stream of one API process: its own subscriber connection, made when the first client comes. */
export function activityStreamOf(w: Wiring): ActivityStream {
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
    },
  });
}

const requirePart = <T>(part: T | null, what: string): T => {
  if (part === null) throw new Error(`${what} is not loaded in this process, which does not run the api role`);
  return part;
};

/** The parts the API role takes. */
export function apiDepsOf(w: Wiring): ApiDeps {
  const { config, stores } = w;
  return {
    config,
    logger: w.logger,
    clock: w.clock,
    auth: stores.auth,
    challenges: requirePart(w.challenges, 'the challenge secret (KEYS_DIR/challenge.secret)'),
    bets: stores.bets,
    anchors: stores.anchors,
    manifests: stores.manifests,
    rng: stores.rng,
    lifecycle: w.lifecycle,
    dice: w.dice,
    sweeper: w.sweeper,
    player: w.player,
    house: w.house,
    withdrawals: w.withdrawals,
    topUps: w.topUps,
    chain: {
      cluster: config.cluster,
      rpcUrl: config.PUBLIC_RPC_URL ?? w.rpcUrl,
      setup: w.setup,
      ackPublicKey: w.operator.ack.publicKey,
      anchorPublicKey: w.operator.anchor.publicKey,
      explorerBaseUrl: config.EXPLORER_BASE_URL,
    },
    links: w.links,
    stateProofs: new StateProofs({ anchors: stores.anchors, saltSecret: w.saltSecret }),
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
    agents: w.agents,
    analytics: w.analytics,
    rateLimitStore: { redis: w.redis, nameSpace: w.keys.rateLimit() },
    replication: w.replication,
    ops: {
      readiness: w.readiness,
      metrics: w.metrics,
      scrape: processScrape(w.metrics.registry),
      service: createServiceMetrics({
        ledger: stores.ledger,
        anchors: stores.anchors,
        manifests: stores.manifests,
        heartbeats: stores.heartbeats,
        queues: w.queueDepths,
        rpc: w.requestRpc,
        commitment: config.INDEXER_COMMITMENT,
        clock: w.clock,
        feePayer: w.feePayer,
      }),
    },
  };
}
