// Entry point: `npm start` runs every role in one process on embedded defaults; `--role` runs one.
import cluster from 'node:cluster';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from './config/env.ts';
import { createLogger, type Logger } from './config/logger.ts';
import { startLocalnet, type Localnet } from './localnet/index.ts';
import { createServices, type Services } from './services.ts';
import { buildApp } from './api/app.ts';
import { Indexer } from './indexer/indexer.ts';
import { tailDeps } from './indexer/deps.ts';
import { startWorker } from './anchor-worker/worker.ts';

export interface Running {
  services: Services;
  apiUrl: string | null;
  rpcUrl: string;
  stop(): Promise<void>;
}

export interface StartOptions extends NonNullable<Parameters<typeof createServices>[3]> {
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
    let localnet: Localnet | null = null;
    if (config.localnet && !localnetUrl) {
      localnet = await startLocalnet({ port: config.LOCALNET_PORT, dataDir: path.join(config.dataDir, 'localnet'), logger: logger.child({ role: 'localnet' }) });
      stoppers.push(() => localnet!.close());
    }
    const rpcUrl = config.SOLANA_RPC_URL ?? localnetUrl ?? localnet!.url;
    const services = await createServices(config, logger, rpcUrl, overrides);
    stoppers.push(() => services.close());
    await services.redis.hsetnx(services.keys.meta(), 'startedAt', String(services.now().getTime()));

    if (config.roles.includes('worker')) {
      const worker = await startWorker(services);
      stoppers.push(() => worker.stop());
    }
    if (config.roles.includes('indexer')) {
      const indexer = new Indexer(tailDeps(services), { pollMs: config.INDEXER_POLL_MS, logger: logger.child({ role: 'indexer' }) });
      indexer.start();
      stoppers.push(() => indexer.stop());
    }
    let apiUrl: string | null = null;
    if (config.roles.includes('api')) {
      const app = await buildApp(services);
      apiUrl = await app.listen({ port: config.PORT, host: config.HOST });
      stoppers.push(() => app.close());
    }
    return { services, apiUrl, rpcUrl, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

function readConfig(argv: readonly string[]): Config {
  try {
    const config = loadConfig(process.env, argv);
    if (config.localnet && config.roles.length < 3) {
      throw new ConfigError('SOLANA_RPC_URL is required when roles run as separate processes (the embedded localnet runs only with every role)');
    }
    return config;
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`config error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
}

function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/** Forks API processes that share PORT; the main process keeps localnet, the indexer and the worker. */
async function forkApiWorkers(count: number, localnetUrl: string, logger: Logger): Promise<() => Promise<void>> {
  let stopping = false;
  const fork = () => cluster.fork({ PFWS_LOCALNET_URL: localnetUrl });
  cluster.on('exit', (worker, code) => {
    if (stopping) return;
    logger.error({ pid: worker.process.pid, code }, 'api process exited; starting another');
    fork();
  });
  await Promise.all(Array.from({ length: count }, () => new Promise((resolve) => fork().once('listening', resolve))));
  return async () => {
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);
    await Promise.all(workers.map((w) => new Promise((resolve) => {
      w.once('exit', resolve);
      w.process.kill('SIGTERM');
    })));
  };
}

async function main(): Promise<void> {
  if (cluster.isWorker) {
    const config = { ...readConfig([]), roles: ['api' as const] };
    const logger = createLogger(config.LOG_LEVEL);
    const running = await startService(config, logger, { localnetUrl: process.env.PFWS_LOCALNET_URL });
    onShutdown(logger, running.stop);
    return;
  }
  const config = readConfig(process.argv.slice(2));
  const logger = createLogger(config.LOG_LEVEL);
  const clustered = config.roles.includes('api') && config.API_WORKERS > 1;
  const running = await startService(clustered ? { ...config, roles: config.roles.filter((r) => r !== 'api') } : config, logger);
  let stopWorkers = async () => {};
  if (clustered) stopWorkers = await forkApiWorkers(config.API_WORKERS, running.rpcUrl, logger);
  const base = clustered ? `http://localhost:${config.PORT}` : running.apiUrl?.replace('0.0.0.0', 'localhost');
  logger.info(
    { roles: config.roles, apiProcesses: clustered ? config.API_WORKERS : 1, api: base ? `${base}/api` : null, docs: base ? `${base}/api/docs` : null, rpc: running.rpcUrl, dataDir: config.dataDir },
    'pfws started',
  );
  onShutdown(logger, async () => {
    await stopWorkers();
    await running.stop();
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
