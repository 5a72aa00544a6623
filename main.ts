// Entry point: `npm start` runs every role in one process on embedded defaults; `--role` runs one.
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from './config/env.ts';
import { createLogger, type Logger } from './config/logger.ts';
import { startLocalnet, type Localnet } from './localnet/index.ts';
import { createServices, type Services } from './services.ts';
import { buildApp } from './api/app.ts';
import { Indexer } from './indexer/indexer.ts';
import { tailDeps } from './indexer/deps.ts';
import { startWorker } from './anchor-worker/worker.ts';
import { applyWalletReveal } from './games/wallet-reveal.ts';

export interface Running {
  services: Services;
  apiUrl: string | null;
  rpcUrl: string;
  stop(): Promise<void>;
}

/** Starts the configured roles; used by main and by the end-to-end tests. */
export async function startService(config: Config, logger: Logger, overrides: Parameters<typeof createServices>[3] = {}): Promise<Running> {
  const stoppers: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stoppers.reverse()) await s().catch((err) => logger.warn({ err }, 'shutdown step failed'));
  };
  try {
    let localnet: Localnet | null = null;
    if (config.localnet) {
      localnet = await startLocalnet({ port: config.LOCALNET_PORT, dataDir: path.join(config.dataDir, 'localnet'), logger: logger.child({ role: 'localnet' }) });
      stoppers.push(() => localnet!.close());
    }
    const rpcUrl = config.SOLANA_RPC_URL ?? localnet!.url;
    const services = await createServices(config, logger, rpcUrl, overrides);
    stoppers.push(() => services.close());
    await services.redis.hsetnx(services.keys.meta(), 'startedAt', String(services.now().getTime()));

    if (config.roles.includes('worker')) {
      const worker = await startWorker(services);
      stoppers.push(() => worker.stop());
    }
    if (config.roles.includes('indexer')) {
      const indexer = new Indexer(tailDeps(services, (reveal) => applyWalletReveal(services, reveal)), { pollMs: config.INDEXER_POLL_MS, logger: logger.child({ role: 'indexer' }) });
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

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env, process.argv.slice(2));
    if (config.localnet && config.roles.length < 3) {
      throw new ConfigError('SOLANA_RPC_URL is required when roles run as separate processes (the embedded localnet runs only with every role)');
    }
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`config error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config.LOG_LEVEL);
  const running = await startService(config, logger);
  const base = running.apiUrl?.replace('0.0.0.0', 'localhost');
  logger.info(
    { roles: config.roles, api: base ? `${base}/api` : null, docs: base ? `${base}/api/docs` : null, rpc: running.rpcUrl, dataDir: config.dataDir },
    'pfws started',
  );
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    running.stop().then(
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

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
