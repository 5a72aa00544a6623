// Starts the whole service (localnet, API, indexer, worker) on free ports with its own data dir and Redis prefix.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../../config/env.ts';
import { createLogger } from '../../config/logger.ts';
import { startService, type Running } from '../../main.ts';
import type { WiringOverrides } from '../../wiring.ts';
import { createRedis } from '../../store/redis.ts';

export interface TestService extends Running {
  config: Config;
  api: string;
  /** A settable clock shared with the service. */
  clock: { offsetMs: number };
  dataDir: string;
  env: Record<string, string>;
  restart(): Promise<TestService>;
  cleanup(): Promise<void>;
}

/** `overrides` injects parts the environment cannot name (the activity snapshot of the SSE stream). */
export async function startTestService(
  env: Record<string, string> = {},
  dataDir?: string,
  prefix?: string,
  overrides: Pick<WiringOverrides, 'activitySnapshot'> = {},
): Promise<TestService> {
  const dir = dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'pfws-test-'));
  const redisPrefix = prefix ?? `test-${randomBytes(6).toString('hex')}`;
  const fullEnv = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOCALNET_PORT: '0',
    DATA_DIR: dir,
    REDIS_PREFIX: redisPrefix,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    RNG_CHAIN_LENGTH: '5000',
    INDEXER_POLL_MS: '200',
    DEV_HOUSE_CAPITAL: '1000000',
    ...env,
  };
  const config = loadConfig(fullEnv);
  const clock = { offsetMs: 0 };
  let running: Running;
  try {
    running = await startService(config, createLogger(config.LOG_LEVEL), { ...overrides, clock: () => new Date(Date.now() + clock.offsetMs) });
  } catch (err) {
    if (!dataDir) rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const service: TestService = {
    ...running,
    config,
    api: `${running.apiUrl}/api`,
    clock,
    dataDir: dir,
    env: fullEnv,
    async restart() {
      await running.stop();
      return startTestService(env, dir, redisPrefix, overrides);
    },
    async cleanup() {
      await running.stop();
      const redis = createRedis(config.redis);
      const keys = await redis.keys(`${redisPrefix}:*`);
      for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
      await redis.quit();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return service;
}
