// Starting and stopping `main.ts` as an operator does: a start that cannot work stops at once with a message that
// names the fix (Redis unreachable, a port in use, a lost ledger, a bad variable); logs are readable on a terminal;
// SIGTERM lets a request in flight finish; and one scrape of /metrics sums every API process.
import { connect, type Socket } from 'node:net';
import { request as httpRequest } from 'node:http';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/env.ts';
import { forkedApiProcesses } from '../../main.ts';
import { createRedis } from '../../store/redis.ts';
import { Player } from '../helpers/player.ts';
import { verifyStateProofResponse } from '../../protocol/verify/state-proof.ts';
import type { RpcTransaction } from '../../protocol/verify/chain.ts';
import { exitOf, freePort, Processes, waitForLog } from '../helpers/process.ts';

const procs = new Processes();
const prefix = `test-${randomBytes(6).toString('hex')}`;
const servers: Server[] = [];

async function dropPrefix(): Promise<void> {
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.unlink(...keys);
  await redis.quit();
}

afterAll(async () => {
  procs.cleanup();
  for (const s of servers) s.close();
  await dropPrefix();
});

const occupy = (port: number) =>
  new Promise<void>((resolve) => {
    const s = createServer().listen(port, '127.0.0.1', () => resolve());
    servers.push(s);
  });

describe('a start that cannot work stops with the fix', () => {
  it('Redis unreachable: names REDIS_URL (password hidden) and exits 1', async () => {
    const dead = await freePort();
    const proc = procs.start({ REDIS_URL: `redis://app:s3cret@127.0.0.1:${dead}`, DATA_DIR: procs.tempDir(), PORT: String(await freePort()) });
    expect(await exitOf(proc)).toBe(1);
    expect(proc.output()).toMatch(
      new RegExp(
        `start-up error: Redis is unreachable at redis://app:\\*\\*\\*@127\\.0\\.0\\.1:${dead} \\(ECONNREFUSED\\).*set REDIS_URL to a reachable server`,
      ),
    );
    expect(proc.output()).not.toContain('s3cret');
    expect(proc.output()).not.toMatch(/\n\s+at /);
  });

  it('the API port in use: names PORT and exits 1, no stack', async () => {
    const port = await freePort();
    await occupy(port);
    const proc = procs.start({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: procs.tempDir() });
    expect(await exitOf(proc)).toBe(1);
    expect(proc.output()).toMatch(
      new RegExp(
        `start-up error: PORT=${port}: port ${port} on 127\\.0\\.0\\.1 is already in use by another process; stop that process, or set PORT to a free port`,
      ),
    );
    expect(proc.output()).not.toMatch(/EADDRINUSE|\n\s+at /);
  });

  it('the localnet port in use: names LOCALNET_PORT', async () => {
    const port = await freePort();
    await occupy(port);
    const proc = procs.start({ PORT: String(await freePort()), LOCALNET_PORT: String(port), DATA_DIR: procs.tempDir() });
    expect(await exitOf(proc)).toBe(1);
    expect(proc.output()).toMatch(new RegExp(`start-up error: LOCALNET_PORT=${port}: port ${port} on 127\\.0\\.0\\.1 is already in use`));
  });

  it('a bad variable: names it and the values it accepts', () => {
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow('LOG_LEVEL="loud": expected one of fatal, error, warn, info, debug, trace, silent');
    expect(() => loadConfig({ PORT: '-1' })).toThrow('PORT="-1": expected an integer from 0 to 65535 (API port)');
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow('LOG_FORMAT="xml": expected one of auto, pretty, json');
    expect(() => loadConfig({ REDIS_URL: 'localhost:6379' })).toThrow(/REDIS_URL="localhost:6379": expected a redis:\/\/ or rediss:\/\/ URL/);
    expect(() => loadConfig({ CLUSTER: 'moon' })).toThrow('CLUSTER="moon": expected one of localnet, devnet, testnet, mainnet-beta');
  });

  it('API_WORKERS forks that many API processes, one included; 0 keeps the API in the main process', () => {
    expect(forkedApiProcesses(loadConfig({}))).toBe(2);
    expect(forkedApiProcesses(loadConfig({ API_WORKERS: '1' }))).toBe(1);
    expect(forkedApiProcesses(loadConfig({ API_WORKERS: '3' }))).toBe(3);
    expect(forkedApiProcesses(loadConfig({ API_WORKERS: '0' }))).toBe(0);
    expect(forkedApiProcesses({ roles: ['indexer', 'worker'], API_WORKERS: 2 })).toBe(0);
  });
});

describe('logs', () => {
  const logWith = (format: string) =>
    spawnSync(
      process.execPath,
      ['--import', 'tsx', '-e', `import { createLogger } from './config/logger.ts'; createLogger('info', '${format}').info({ port: 8080 }, 'hello operator');`],
      { cwd: path.resolve(import.meta.dirname, '../..'), encoding: 'utf8' },
    ).stdout;

  it('readable lines when asked (auto on a terminal), JSON lines otherwise', () => {
    const pretty = logWith('pretty');
    expect(pretty).toMatch(/INFO.*hello operator/);
    expect(pretty).toMatch(/port: 8080/);
    expect(() => JSON.parse(pretty)).toThrow();
    // stdout is a pipe here, so auto writes JSON.
    expect(JSON.parse(logWith('auto'))).toMatchObject({ msg: 'hello operator', port: 8080, level: 30 });
  });
});

/** One HTTP/1.1 request on its own connection (no keep-alive), so the cluster spreads them over its processes. */
const getOnce = (url: string) =>
  new Promise<number>((resolve, reject) => {
    const req = httpRequest(url, { agent: false, headers: { connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });

const scrapeCount = async (base: string, route: string) => {
  const text = await (await fetch(`${base}/metrics`, { headers: { connection: 'close' } })).text();
  const line = text.split('\n').find((l) => l.startsWith('pfws_http_request_duration_seconds_count{') && l.includes(`route="${route}"`));
  return line ? Number(line.split(' ').pop()) : 0;
};

const scrapeMetric = async (base: string, name: string) => {
  const text = await (await fetch(`${base}/metrics`, { headers: { connection: 'close' } })).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`no ${name} in the scrape`);
  return Number(line.split(' ').pop());
};

const rpcCall = async (port: number, method: string, params: unknown[]) => {
  const res = await fetch(`http://127.0.0.1:${port}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: RpcTransaction }).result;
};

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });

describe('the all-in-one service (two API processes)', () => {
  it('sums metrics over its processes, finishes a request in flight on SIGTERM, and refuses to restart on an emptied ledger', {
    timeout: 240_000,
  }, async () => {
    const dataDir = procs.tempDir();
    const [port, rpcPort] = [await freePort(), await freePort()];
    const env = {
      REDIS_PREFIX: prefix,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOCALNET_PORT: String(rpcPort),
      API_WORKERS: '2',
      RNG_CHAIN_LENGTH: '5000',
      ANCHOR_MAX_DELAY_MS: '200',
      LOG_LEVEL: 'info',
    };
    const base = `http://127.0.0.1:${port}`;
    const first = procs.start(env);
    await waitForLog(first, /"msg":"pfws started"/);
    expect(first.output()).toMatch(
      new RegExp(`"dashboard":"http://localhost:${port}/","docs":"http://localhost:${port}/api/docs","rpc":"http://127\\.0\\.0\\.1:${rpcPort}"`),
    );

    // Each request on its own connection: round-robin spreads them over both API processes; every scrape,
    // whichever process answers it, sees all of them.
    for (let i = 0; i < 10; i++) expect(await getOnce(`${base}/api/house`)).toBe(200);
    expect(await scrapeCount(base, '/api/house')).toBe(10);
    expect(await scrapeCount(base, '/api/house')).toBe(10);
    // It runs as the bundle `npm start` builds (dist/main.mjs), where each module still finds its own files: the
    // pages here, the Lua scripts in the bet below, the ClickHouse migrations at start.
    expect(readFileSync(`/proc/${first.child.pid}/cmdline`, 'utf8')).toContain('dist/main.mjs');
    expect(await getOnce(`${base}/`)).toBe(200);

    // Play one bet and wait until the bet log is committed on-chain.
    const player = await new Player(`${base}/api`, `http://127.0.0.1:${rpcPort}`).onboard(20);
    await player.playDice({ wager: 1 });
    for (let i = 0; ; i++) {
      const commits = (await (await fetch(`${base}/api/protocol/v1/bet-log/commits`)).json()) as { committedSize: number };
      if (commits.committedSize >= 1) break;
      if (i > 300) throw new Error('the bet log was never committed');
      await new Promise((r) => setTimeout(r, 100));
    }
    // The player's state proof, through an API process: the main process's worker holds the commit's tree and answers
    // it over IPC, so no API process builds one.
    const proof = await player.get('/protocol/v1/player/state-proof');
    expect(proof.status).toBe(200);
    const commitTx = await rpcCall(rpcPort, 'getTransaction', [proof.body.commitSignature, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
    const operator = ((await (await fetch(`${base}/api/protocol/v1/config`)).json()) as { operatorPublicKey: string }).operatorPublicKey;
    expect(verifyStateProofResponse(proof.body, player.address, commitTx, operator)).toMatchObject({ ok: true });
    expect(await scrapeMetric(base, 'pfws_state_trees_built_total')).toBe(0);

    // A request in flight: headers sent, body not yet. `Expect: 100-continue` tells us when a process holds it.
    const body = JSON.stringify({ walletAddress: player.address, message: 'not the challenge', signature: 'AAAA' });
    const socket: Socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.on('data', (d) => (reply += d));
    socket.write(
      `POST /api/wallet/session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
    );
    for (let i = 0; !reply.includes('100 Continue'); i++) {
      if (i > 200) throw new Error(`no 100 Continue: ${reply}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    first.child.kill('SIGTERM');
    await waitForLog(first, /"signal":"SIGTERM","msg":"shutting down"/);
    // New connections are refused while the one in flight is still served.
    for (let i = 0; !(await refused(port)); i++) {
      if (i > 200) throw new Error('still accepting connections after SIGTERM');
      await new Promise((r) => setTimeout(r, 25));
    }
    socket.write(body.slice(0, 10));
    socket.end(body.slice(10));
    for (let i = 0; !/\r\n\r\n\{"error":\{"code":"WALLET_SESSION_REJECTED"/.test(reply); i++) {
      if (i > 400) throw new Error(`no answer to the request in flight: ${reply}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(reply).toMatch(/HTTP\/1\.1 401 Unauthorized/);
    expect(await exitOf(first, 30_000)).toBe(0);

    // Redis loses the ledger; the chain still holds the operator's commits: the start is refused.
    await dropPrefix();
    const again = procs.start(env);
    expect(await exitOf(again)).toBe(1);
    expect(again.output()).toMatch(
      new RegExp(
        `start-up error: the Redis ledger under REDIS_PREFIX="${prefix}" at redis://127\\.0\\.0\\.1:6379/? is empty, but the chain already holds this operator's bet-log commits \\(newest: \\d+ entries, slot \\d+, transaction \\w+\\)`,
      ),
    );
    expect(again.output()).toMatch(/Restore Redis from its backup \(the AOF or RDB file\).*start over with an empty DATA_DIR/);
    // Nothing was written under the prefix by the refused start.
    const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    expect(await redis.keys(`${prefix}:*`)).toEqual([]);
    await redis.quit();
  });
});
