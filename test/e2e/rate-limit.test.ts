// The rate limit is one budget in Redis (issue 16) that each API instance leases slots of and counts locally (issue 25),
// so two API instances on one ledger share it: of more requests than RATE_LIMIT_MAX spread over both, exactly
// RATE_LIMIT_MAX pass and the rest, and the next on either, are 429 RATE_LIMITED. The defaults are the documented ones.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/env.ts';
import { createLogger } from '../../config/logger.ts';
import { startService, type Running } from '../../main.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const MAX = 100;
let svc: TestService;
let second: Running;
const secondDir = mkdtempSync(path.join(os.tmpdir(), 'pfws-test-api-'));

beforeAll(async () => {
  svc = await startTestService({ RATE_LIMIT_MAX: String(MAX), RATE_LIMIT_WINDOW_MS: '600000' });
  const { setup } = svc.wiring;
  const config = loadConfig(
    {
      ...svc.env,
      DATA_DIR: secondDir,
      SOLANA_RPC_URL: svc.rpcUrl,
      CLUSTER: 'localnet',
      USDC_MINT: setup.usdcMint,
      LP_MINT: setup.lpMint,
      KEYS_DIR: svc.config.keysDir,
      // An API role alone needs a ClickHouse server; analytics are not under test here, so none answers there.
      CLICKHOUSE_URL: 'http://127.0.0.1:9/',
    },
    ['--role', 'api'],
  );
  second = await startService(config, createLogger(config.LOG_LEVEL));
});
afterAll(async () => {
  await second?.stop();
  await svc?.cleanup();
  rmSync(secondDir, { recursive: true, force: true });
});

describe('the rate limit', () => {
  it('has the documented defaults: 2000 requests per 10 s per wallet or IP', () => {
    const defaults = loadConfig({});
    expect(defaults.RATE_LIMIT_MAX).toBe(2_000);
    expect(defaults.RATE_LIMIT_WINDOW_MS).toBe(10_000);
  });

  it('is one budget across API instances: of 2 × RATE_LIMIT_MAX requests over both, RATE_LIMIT_MAX pass, then 429 on either', async () => {
    const bases = [`${svc.apiUrl}/api`, `${second.apiUrl}/api`];
    // Each instance gets at least the whole budget's worth, so none holds leased slots it never uses.
    const statuses = await Promise.all(
      Array.from({ length: 2 * MAX }, (_, i) =>
        fetch(`${bases[i % 2]}/protocol/v1/config`).then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        }),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(MAX);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    for (const base of bases) {
      const res = await fetch(`${base}/protocol/v1/config`);
      expect(res.status).toBe(429);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
    }
  });
});
