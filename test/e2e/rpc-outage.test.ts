// The chain RPC out (issue 16, rpc-outage): an API instance whose RPC hangs or refuses answers the routes that need
// the chain with 503 SERVICE_UNAVAILABLE and Retry-After within CHAIN_RPC_TIMEOUT_MS and a little, and goes on
// serving what needs only the ledger.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/env.ts';
import { createLogger } from '../../config/logger.ts';
import { startService, type Running } from '../../main.ts';
import { Player } from '../helpers/player.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const RPC_TIMEOUT_MS = 1_000;
let svc: TestService;
let api: Running;
let player: Player;
/** An RPC that accepts connections and never answers. */
let silent: Server;
const sockets = new Set<Socket>();
const dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-test-rpc-'));

beforeAll(async () => {
  svc = await startTestService();
  player = await new Player(svc.api, svc.rpcUrl).onboard(10);
  silent = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { setup } = svc.wiring;
  const config = loadConfig(
    {
      ...svc.env,
      DATA_DIR: dir,
      SOLANA_RPC_URL: `http://127.0.0.1:${(silent.address() as { port: number }).port}`,
      CLUSTER: 'localnet',
      USDC_MINT: setup.usdcMint,
      LP_MINT: setup.lpMint,
      KEYS_DIR: svc.config.keysDir,
      CHAIN_RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
      // An API role alone needs a ClickHouse server; analytics are not under test here, so none answers there.
      CLICKHOUSE_URL: 'http://127.0.0.1:9/',
    },
    ['--role', 'api'],
  );
  api = await startService(config, createLogger(config.LOG_LEVEL));
}, 120_000);

afterAll(async () => {
  await api?.stop();
  await svc?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function ask(pathname: string, init: RequestInit = {}) {
  const res = await fetch(`${api.apiUrl}/api${pathname}`, {
    ...init,
    headers: { authorization: `Bearer ${player.token}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    signal: AbortSignal.timeout(RPC_TIMEOUT_MS + 5_000),
  });
  const body = (await res.json()) as { error?: { code?: string } };
  return { status: res.status, code: body.error?.code, retryAfter: res.headers.get('retry-after') };
}

const unavailable = { status: 503, code: 'SERVICE_UNAVAILABLE', retryAfter: expect.stringMatching(/^\d+$/) };
const probes: [string, string, RequestInit][] = [
  ['GET house', '/house', {}],
  ['POST player/sync', '/protocol/v1/player/sync', { method: 'POST' }],
  ['POST player/setup-transaction', '/protocol/v1/player/setup-transaction', { method: 'POST', body: '{"amount":1,"sessionPubkey":"SESSION"}' }],
];
const withSession = (init: RequestInit): RequestInit =>
  typeof init.body === 'string' ? { ...init, body: init.body.replace('SESSION', player.session.publicKey) } : init;

describe('the chain RPC hangs', () => {
  it.each(probes)('%s answers 503 SERVICE_UNAVAILABLE with Retry-After (CHAIN_RPC_TIMEOUT_MS)', async (_name, pathname, init) => {
    expect(await ask(pathname, withSession(init))).toEqual(unavailable);
  });

  it('the ledger is still served (GET dice/session)', async () => {
    expect((await ask('/protocol/v1/dice/session')).status).toBe(200);
  });
});

describe('the chain RPC refuses connections', () => {
  beforeAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it.each(probes)('%s answers 503 SERVICE_UNAVAILABLE with Retry-After', async (_name, pathname, init) => {
    expect(await ask(pathname, withSession(init))).toEqual(unavailable);
  });
});
