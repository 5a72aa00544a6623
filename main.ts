// Entry point: `npm start` runs every role in one process on embedded defaults; `--role` runs one.
import cluster from 'node:cluster';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, loadConfig, type Config } from './config/env.ts';
import { createLogger, type Logger } from './config/logger.ts';
import { assertPortFree, listenError, StartupError } from './config/startup.ts';
import { assertRedisReachable } from './store/redis.ts';
import type { Localnet } from './localnet/index.ts';
import type { Wiring, WiringOverrides } from './wiring.ts';
import type { Indexer } from './indexer/indexer.ts';
import type { WorkerHandle } from './anchor-worker/worker.ts';

/**
 * The heavy parts (chain, stores, Fastify) load only after the cheap start-up checks, so that a start that
 * cannot work (Redis unreachable, a port in use) fails in the time it takes to load the checks alone. Each process
 * loads only the roles it runs: an API process never loads the embedded chain (litesvm), the indexer or the worker.
 */
const loadRoles = async (parts: { localnet: boolean; api: boolean; indexer: boolean; worker: boolean }) => {
  const [localnet, { apiDepsOf, createWiring }, api, indexer, worker] = await Promise.all([
    parts.localnet ? import('./localnet/index.ts') : null,
    import('./wiring.ts'),
    parts.api ? import('./api/server.ts') : null,
    parts.indexer ? import('./indexer/indexer.ts') : null,
    parts.worker ? import('./anchor-worker/worker.ts') : null,
  ]);
  return { localnet, apiDepsOf, createWiring, api, indexer, worker };
};

/** API processes the main process forks (node:cluster); 0 when it serves the API itself, or runs no API. */
export const forkedApiProcesses = (config: Pick<Config, 'roles' | 'API_WORKERS'>): number => (config.roles.includes('api') ? config.API_WORKERS : 0);

export interface Running {
  wiring: Wiring;
  apiUrl: string | null;
  rpcUrl: string;
  worker: WorkerHandle | null;
  indexer: Indexer | null;
  stop(): Promise<void>;
}

export interface StartOptions extends WiringOverrides {
  /** An API process of the all-in-one mode uses the main process's localnet instead of starting one. */
  localnetUrl?: string;
}

/** Starts the configured roles; used by main and by the end-to-end tests. */
export async function startService(config: Config, logger: Logger, options: StartOptions = {}): Promise<Running> {
  const { localnetUrl, ...overrides } = options;
  const stoppers: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stoppers.reverse()) await s().catch((err) => logger.warn({ err }, 'shutdown step failed'));
  };
  try {
    // Before anything slow: an unreachable Redis fails the start within seconds, naming REDIS_URL (or the Sentinels).
    if (!overrides.redis) await assertRedisReachable(config.redis);
    const roles = await loadRoles({
      localnet: config.localnet && !localnetUrl,
      api: config.roles.includes('api'),
      indexer: config.roles.includes('indexer'),
      worker: config.roles.includes('worker'),
    });
    const { apiDepsOf, createWiring } = roles;
    let localnet: Localnet | null = null;
    if (roles.localnet) {
      localnet = await roles.localnet
        .startLocalnet({
          port: config.LOCALNET_PORT,
          dataDir: path.join(config.dataDir, 'localnet'),
          logger: logger.child({ role: 'localnet' }),
        })
        .catch((err: unknown) => {
          throw listenError(err, 'LOCALNET_PORT', '127.0.0.1', config.LOCALNET_PORT);
        });
      stoppers.push(() => localnet!.close());
    }
    const rpcUrl = config.SOLANA_RPC_URL ?? localnetUrl ?? localnet!.url;
    const wiring = await createWiring(config, logger, rpcUrl, overrides);
    stoppers.push(() => wiring.close());

    let worker: WorkerHandle | null = null;
    if (wiring.worker && roles.worker) {
      const started = await roles.worker.startWorker(wiring.worker);
      worker = started;
      stoppers.push(() => started.stop());
    }
    let indexer: Indexer | null = null;
    if (roles.indexer) {
      const { bets } = wiring.stores;
      indexer = new roles.indexer.Indexer(wiring.tail, {
        pollMs: config.INDEXER_POLL_MS,
        logger: logger.child({ role: 'indexer' }),
        waitingWallets: (committedBeforeMs) => bets.waitingWallets(committedBeforeMs, config.REVEAL_DEADLINE_MS, 100),
        heartbeats: wiring.stores.heartbeats,
      });
      const started = indexer;
      started.start();
      stoppers.push(() => started.stop());
    }
    let apiUrl: string | null = null;
    if (roles.api) {
      // chDB in this process loads libchdb (over 500 MB) and starts ClickHouse synchronously: seconds of a blocked
      // event loop, during which no connection is accepted and no request time limit can fire. It happens now,
      // before the API answers, rather than in the background once clients are connected (issue 22). A failure
      // stays the analytics worker's to retry; a ClickHouse server (CLICKHOUSE_URL) is never waited for.
      if (!config.CLICKHOUSE_URL) await wiring.analyticsEngine?.get().catch(() => undefined);
      const api = await roles.api.startApi(apiDepsOf(wiring)).catch((err: unknown) => {
        throw listenError(err, 'PORT', config.HOST, config.PORT);
      });
      apiUrl = api.url;
      stoppers.push(() => api.close());
    }
    return { wiring, apiUrl, rpcUrl, worker, indexer, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

function readConfig(argv: readonly string[]): Config {
  try {
    return loadConfig(process.env, argv);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`config error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
}

/** Exit code of an API process that could not start: its primary then stops instead of starting another. */
const STARTUP_FAILED = 3;

/** A refused start prints its cause and fix (never a stack) and exits non-zero. */
function failStart(err: unknown, code = 1): never {
  if (err instanceof StartupError) console.error(`start-up error: ${err.message}`);
  else console.error(err);
  process.exit(code);
}

function onShutdown(logger: Logger, stop: () => Promise<void>, timeoutMs: number): void {
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Requests and jobs in flight get SHUTDOWN_TIMEOUT_MS to finish; then the process leaves anyway.
    setTimeout(() => {
      logger.error({ timeoutMs }, 'shutdown took too long; exiting with work unfinished');
      process.exit(1);
    }, timeoutMs).unref();
    stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/**
 * Forks API processes that share PORT; the main process keeps localnet, the indexer and the worker. One that
 * cannot start fails the whole start; one that dies later is replaced.
 */
async function forkApiWorkers(count: number, localnetUrl: string, logger: Logger): Promise<() => Promise<void>> {
  let stopping = false;
  let started = false;
  // The API processes accept connections themselves. With the primary handing each connection over (round-robin),
  // one in flight to a process that dies is held open by the primary, unanswered, for good; and the primary, which
  // also runs the localnet, the indexer and the worker, would carry every connection.
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  const fork = () => cluster.fork({ PFWS_LOCALNET_URL: localnetUrl });
  cluster.on('exit', (worker, code) => {
    if (stopping || !started) return;
    logger.error({ pid: worker.process.pid, code }, 'api process exited; starting another');
    setTimeout(() => {
      if (!stopping) fork();
    }, 1_000).unref();
  });
  const stopAll = async () => {
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);
    await Promise.all(
      workers.map(
        (w) =>
          new Promise((resolve) => {
            if (w.isDead()) return resolve(null);
            w.once('exit', resolve);
            w.process.kill('SIGTERM');
          }),
      ),
    );
  };
  try {
    await Promise.all(
      Array.from(
        { length: count },
        () =>
          new Promise((resolve, reject) => {
            const w = fork();
            w.once('listening', resolve);
            w.once('exit', (code) => reject(new StartupError(`an API process exited with code ${code} before it listened (its error is above)`)));
          }),
      ),
    );
  } catch (err) {
    await stopAll();
    throw err;
  }
  started = true;
  return stopAll;
}

async function main(): Promise<void> {
  if (cluster.isWorker) {
    const config = { ...readConfig([]), roles: ['api' as const] };
    const logger = createLogger(config.LOG_LEVEL, config.LOG_FORMAT);
    // With chDB the main process owns the engine: this API process asks it over IPC.
    const { IpcReader } = await import('./analytics/cluster-ipc.ts');
    const analyticsReader = config.CLICKHOUSE_URL ? undefined : new IpcReader(process);
    // The worker, in the main process, holds each commit's state tree: a state proof is asked of it first.
    const { ipcStateTrees } = await import('./funding/state-proof.ts');
    const overrides = { localnetUrl: process.env.PFWS_LOCALNET_URL, heldStateProofs: ipcStateTrees(process), ...(analyticsReader ? { analyticsReader } : {}) };
    const running = await startService(config, logger, overrides).catch((err) => failStart(err, STARTUP_FAILED));
    onShutdown(logger, running.stop, config.SHUTDOWN_TIMEOUT_MS);
    return;
  }
  const config = readConfig(process.argv.slice(2));
  const logger = createLogger(config.LOG_LEVEL, config.LOG_FORMAT);
  const clustered = forkedApiProcesses(config) > 0;
  let running: Running;
  let stopWorkers = async () => {};
  try {
    // Ports first: a port in use fails the start at once, before the chain and the keys are loaded.
    if (config.roles.includes('api')) await assertPortFree('PORT', config.HOST, config.PORT);
    if (config.localnet) await assertPortFree('LOCALNET_PORT', '127.0.0.1', config.LOCALNET_PORT);
    running = await startService(clustered ? { ...config, roles: config.roles.filter((r) => r !== 'api') } : config, logger);
  } catch (err) {
    failStart(err);
  }
  if (clustered) {
    const { serveClusterMetrics } = await import('./config/metrics.ts');
    serveClusterMetrics(running.wiring.metrics.registry);
    // chDB lives here, with the worker; the API processes ask this process (a ClickHouse server they query themselves).
    if (!config.CLICKHOUSE_URL) {
      const { serveAnalytics } = await import('./analytics/cluster-ipc.ts');
      serveAnalytics(cluster, running.wiring.analytics);
    }
    const { serveStateTrees } = await import('./funding/state-proof.ts');
    serveStateTrees(cluster, running.wiring.stateTrees);
    try {
      stopWorkers = await forkApiWorkers(config.API_WORKERS, running.rpcUrl, logger);
    } catch (err) {
      await running.stop();
      failStart(err);
    }
  }
  const base = clustered ? `http://localhost:${config.PORT}` : running.apiUrl?.replace('0.0.0.0', 'localhost');
  logger.info(
    {
      roles: config.roles,
      apiProcesses: clustered ? config.API_WORKERS : 1,
      api: base ? `${base}/api` : null,
      dashboard: base ? `${base}/` : null,
      docs: base ? `${base}/api/docs` : null,
      rpc: running.rpcUrl,
      health: base ? `${base}/ready` : null,
      metrics: base ? `${base}/metrics` : null,
      dataDir: config.dataDir,
    },
    'pfws started',
  );
  onShutdown(
    logger,
    async () => {
      await stopWorkers();
      await running.stop();
    },
    config.SHUTDOWN_TIMEOUT_MS,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err) => failStart(err));
}
