// The service as an operator runs it: `main.ts` processes, config checked at start, roles alone or together,
// and a clean stop on SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVICE_BUNDLE } from '../../bin/build-service.ts';
import { childrenOf } from '../../chaos/service-process.ts';
import { ConfigError, loadConfig, parseRoles } from '../../config/env.ts';
import { createRedis } from '../../store/redis.ts';
import { startClickHouse, type ClickHouseServer } from '../helpers/clickhouse.ts';
import { Player } from '../helpers/player.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

interface Proc {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

const running: Proc[] = [];

function start(env: Record<string, string>, args: string[] = []): Proc {
  const child = spawn(process.execPath, [SERVICE_BUNDLE, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (d) => (text += d));
  child.stderr!.on('data', (d) => (text += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const proc = { child, output: () => text, exited };
  running.push(proc);
  return proc;
}

async function waitForLog(proc: Proc, pattern: RegExp, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(proc.output())) {
    if (proc.child.exitCode !== null) throw new Error(`exited ${proc.child.exitCode}: ${proc.output()}`);
    if (Date.now() > deadline) throw new Error(`no ${pattern} in: ${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The embedded chain's and chDB's native libraries among what a process has mapped. */
const heavyLibs = (pid: number): string[] => {
  const libs = readFileSync(`/proc/${pid}/maps`, 'utf8').match(/(litesvm[^/\s]*\.node|libchdb\.so)$/gm) ?? [];
  return [...new Set(libs.map((l) => (l.startsWith('litesvm') ? 'litesvm' : 'chdb')))].sort();
};

async function stopWithSigterm(proc: Proc): Promise<number | null> {
  proc.child.kill('SIGTERM');
  return Promise.race([proc.exited, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('did not stop within 20 s')), 20_000))]);
}

const json = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'pfws-proc-'));
  dirs.push(d);
  return d;
};
const prefix = `test-${randomBytes(6).toString('hex')}`;

let clickhouse: ClickHouseServer | null = null;

afterAll(async () => {
  await clickhouse?.cleanup();
  for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.unlink(...keys);
  await redis.quit();
});

describe('config', () => {
  it('names the bad variable, with what it should be', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ PORT: 'eighty' }, /PORT="eighty".*API port/],
      [{ PORT: '70000' }, /PORT="70000"/],
      [{ REDIS_URL: 'http://127.0.0.1:6379' }, /REDIS_URL/],
      [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL="loud"/],
      [{ REDIS_PREFIX: 'has space' }, /REDIS_PREFIX/],
      [{ ANCHOR_MAX_ENTRIES: '0' }, /ANCHOR_MAX_ENTRIES="0"/],
      [{ SOLANA_RPC_URL: 'https://rpc.example' }, /USDC_MINT is required/],
      [{ SOLANA_RPC_URL: 'https://rpc.example', USDC_MINT: 'not-base58!' }, /USDC_MINT/],
      [{ TRUST_PROXY: 'yes please' }, /TRUST_PROXY="yes please"/],
      [{ CLICKHOUSE_URL: 'clickhouse.internal:8123' }, /CLICKHOUSE_URL="clickhouse.internal:8123": expected an http\(s\) URL/],
    ];
    for (const [env, message] of cases) {
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(ConfigError);
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(message);
    }
  });

  it('embedded defaults with nothing set', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 8080,
      REDIS_URL: 'redis://127.0.0.1:6379',
      localnet: true,
      cluster: 'localnet',
      roles: ['api', 'indexer', 'worker'],
      INDEXER_COMMITMENT: 'confirmed',
      TRUST_PROXY: 'false',
    });
    // Against a real cluster, credits and anchors wait for finalized blocks unless told otherwise.
    const keys = { USDC_MINT: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin', LP_MINT: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin', KEYS_DIR: '/keys' };
    expect(loadConfig({ SOLANA_RPC_URL: 'https://rpc.example', ...keys }).INDEXER_COMMITMENT).toBe('finalized');
    expect(loadConfig({ SOLANA_RPC_URL: 'https://rpc.example', INDEXER_COMMITMENT: 'confirmed', ...keys }).INDEXER_COMMITMENT).toBe('confirmed');
  });

  it('roles in separate processes need a ClickHouse server: chDB belongs to one process', () => {
    const remote = {
      SOLANA_RPC_URL: 'https://rpc.example',
      USDC_MINT: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
      LP_MINT: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
      KEYS_DIR: '/keys',
    };
    for (const roles of [['--role', 'api'], ['--role=worker'], ['--role', 'api,worker']]) {
      expect(() => loadConfig(remote, roles), roles.join(' ')).toThrow(ConfigError);
      expect(() => loadConfig(remote, roles), roles.join(' ')).toThrow(/^CLICKHOUSE_URL is required when roles run as separate processes/);
      expect(loadConfig({ ...remote, CLICKHOUSE_URL: 'http://ch:8123/pfws' }, roles).CLICKHOUSE_URL).toBe('http://ch:8123/pfws');
    }
    // Every role in one process may keep chDB.
    expect(loadConfig(remote).CLICKHOUSE_URL).toBeUndefined();
  });

  it('reads --role in every spelling and refuses an unknown one', () => {
    expect(parseRoles(['--role', 'api'])).toEqual(['api']);
    expect(parseRoles(['--role=indexer,worker'])).toEqual(['indexer', 'worker']);
    expect(parseRoles(['--role', 'worker', '--role', 'api', '--role', 'api'])).toEqual(['worker', 'api']);
    expect(parseRoles([])).toEqual(['api', 'indexer', 'worker']);
    expect(() => parseRoles(['--role', 'miner'])).toThrow(/--role must be one of api, indexer, worker \(got "miner"\)/);
    expect(() => parseRoles(['--role'])).toThrow(ConfigError);
  });
});

describe('processes', () => {
  it('a bad variable stops the start, exit 1, with a message that names it', async () => {
    const proc = start({ PORT: 'eighty', DATA_DIR: tempDir() });
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toMatch(/config error: invalid environment variable PORT="eighty"/);
  });

  it('an API-only or indexer-only process needs a real RPC, not the embedded localnet', async () => {
    const proc = start({ DATA_DIR: tempDir() }, ['--role', 'api']);
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toMatch(/SOLANA_RPC_URL is required when roles run as separate processes/);
  });

  it('runs every role together, then each role alone on the same chain and ledger; SIGTERM stops each cleanly', { timeout: 240_000 }, async () => {
    const dataDir = tempDir();
    const [port, rpcPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    const common = { REDIS_PREFIX: prefix, LOG_LEVEL: 'info', RNG_CHAIN_LENGTH: '5000' };
    const all = start({ ...common, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOCALNET_PORT: String(rpcPort), API_WORKERS: '2' });
    await waitForLog(all, /"msg":"pfws started"/);
    expect(all.output()).toMatch(/"roles":\["api","indexer","worker"\],"apiProcesses":2/);
    // Each process loads only the roles it runs: the embedded chain and chDB stay in the main process.
    expect(heavyLibs(all.child.pid!)).toEqual(['chdb', 'litesvm']);
    const apiPids = childrenOf(all.child.pid!);
    expect(apiPids).toHaveLength(2);
    for (const pid of apiPids) expect(heavyLibs(pid)).toEqual([]);
    const config = (await json(`http://127.0.0.1:${port}/api/protocol/v1/config`)).body;
    expect(config.rngChainHead).toMatch(/^[0-9a-f]{64}$/);

    // Analytics in the all-in-one mode: chDB belongs to the main process (the worker ships into it), and the two API
    // processes ask it over cluster IPC.
    const player = await new Player(`http://127.0.0.1:${port}/api`, `http://127.0.0.1:${rpcPort}`).onboard(20);
    const receipts = [(await player.playDice({ wager: 1 })).reveal.receiptId, (await player.playDice({ wager: 2 })).reveal.receiptId];
    const alias = (await player.get('/protocol/v1/player/status')).body.alias;
    for (let i = 0; i < 60; i++) {
      const activity = await json(`http://127.0.0.1:${port}/api/activity?limit=5`);
      const plays = (activity.body.latestPlays ?? []) as { receiptId: string }[];
      if (activity.status === 200 && plays.length === 2) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    // Every API process answers alike (requests are spread over both).
    for (let i = 0; i < 6; i++) {
      const activity = await json(`http://127.0.0.1:${port}/api/activity?limit=5`);
      expect(activity.status, JSON.stringify(activity.body)).toBe(200);
      expect((activity.body.latestPlays as { receiptId: string }[]).map((p) => p.receiptId)).toEqual([...receipts].reverse());
      const rankings = await json(`http://127.0.0.1:${port}/api/rankings?metric=wagered`);
      expect((rankings.body.actors as { player: string; wagered: number }[])[0]).toMatchObject({ player: alias, wagered: 3 });
      const bad = await json(`http://127.0.0.1:${port}/api/stats?period=decade`);
      expect((bad.body.error as { code: string }).code).toBe('INVALID_REQUEST');
    }
    const ready = await json(`http://127.0.0.1:${port}/ready`);
    expect(ready.body.checks).toMatchObject({ clickhouse: { status: 'ok' } });
    expect((ready.body.checks as { clickhouse: { reason?: string } }).clickhouse.reason).toBeUndefined();

    // The roles alone, against the chain and Redis the first process serves, with its operator keys, and a
    // ClickHouse server (chDB belongs to one process).
    clickhouse = await startClickHouse();
    const roleEnv = {
      CLICKHOUSE_URL: `${clickhouse.url}/${prefix.replace(/-/g, '_')}`,
      ...common,
      SOLANA_RPC_URL: `http://127.0.0.1:${rpcPort}`,
      CLUSTER: 'localnet',
      USDC_MINT: String(config.usdcMint),
      LP_MINT: String(config.lpMint),
      KEYS_DIR: path.join(dataDir, 'keys'),
      API_WORKERS: '0',
    };
    const api = start({ ...roleEnv, DATA_DIR: tempDir(), PORT: String(apiPort), HOST: '127.0.0.1' }, ['--role', 'api']);
    const indexer = start({ ...roleEnv, DATA_DIR: tempDir() }, ['--role=indexer']);
    const worker = start({ ...roleEnv, DATA_DIR: tempDir() }, ['--role', 'worker']);
    await Promise.all([
      waitForLog(api, /"roles":\["api"\],"apiProcesses":1/),
      waitForLog(indexer, /"roles":\["indexer"\],"apiProcesses":1,"api":null/),
      waitForLog(worker, /"roles":\["worker"\],"apiProcesses":1,"api":null/),
    ]);
    for (const proc of [api, indexer, worker]) expect(heavyLibs(proc.child.pid!)).toEqual([]);
    const alone = (await json(`http://127.0.0.1:${apiPort}/api/protocol/v1/config`)).body;
    for (const field of ['usdcMint', 'vaultTokenAccount', 'vaultAuthority', 'operatorPublicKey', 'ackPublicKey', 'lpMint', 'rngChainHead']) {
      expect(alone[field], field).toBe(config[field]);
    }
    const [houseAll, houseAlone] = [await json(`http://127.0.0.1:${port}/api/house`), await json(`http://127.0.0.1:${apiPort}/api/house`)];
    // The APR annualizes the game result over the time elapsed, which moves between the two reads.
    const withoutApr = (h: { status: number; body: Record<string, unknown> }) => ({ ...h, body: { house: { ...(h.body.house as object), apr: 0 } } });
    expect(withoutApr(houseAlone)).toEqual(withoutApr(houseAll));
    // It scales with 1 / elapsed, so two reads a few ms apart early in the service's life differ by that ratio.
    const [aprAlone, aprAll] = [houseAlone, houseAll].map((h) => (h.body.house as { apr: number }).apr) as [number, number];
    expect(Math.abs(aprAlone - aprAll)).toBeLessThanOrEqual(Math.abs(aprAll) * 0.01 + 1e-9);
    // Without the embedded chain there is no faucet.
    expect((await fetch(`http://127.0.0.1:${apiPort}/api/dev/faucet`, { method: 'POST' })).status).toBe(404);

    for (const proc of [api, indexer, worker, all]) {
      expect(await stopWithSigterm(proc)).toBe(0);
      expect(proc.output()).toMatch(/"signal":"SIGTERM","msg":"shutting down"/);
    }
    // The all-in-one process took its API processes and its localnet down with it.
    await expect(fetch(`http://127.0.0.1:${port}/api/protocol/v1/config`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${rpcPort}`, { method: 'POST' })).rejects.toThrow();
  });
});
