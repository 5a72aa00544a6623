// The activity stream as an operator runs it: `main.ts` with two API processes (node:cluster). Each process holds
// one subscription however many clients it serves, every client gets every play, and SIGTERM stops the service
// with streams still open.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { SERVICE_BUNDLE } from '../../bin/build-service.ts';
import { createRedis } from '../../store/redis.ts';
import { Keys } from '../../store/keys.ts';
import { playOfSettleEvent } from '../../protocol/plays.ts';
import { openSse, type SseClient } from '../helpers/sse.ts';
import { LedgerPlays } from '../helpers/ledger-plays.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-${randomBytes(6).toString('hex')}`;
const keys = new Keys(prefix);
const redis = createRedis(REDIS_URL);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pfws-sse-proc-'));
let child: ChildProcess | null = null;
const clients: SseClient[] = [];

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

afterAll(async () => {
  for (const c of clients) c.close();
  if (child && child.exitCode === null) child.kill('SIGKILL');
  const found = await redis.keys(`${prefix}:*`);
  if (found.length) await redis.unlink(...found);
  await redis.quit();
  rmSync(dataDir, { recursive: true, force: true });
});

it('two API processes: one subscription each, every client gets the play, SIGTERM with streams open', { timeout: 240_000 }, async () => {
  const [port, rpcPort] = [await freePort(), await freePort()];
  const proc = spawn(process.execPath, [SERVICE_BUNDLE], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      REDIS_URL,
      REDIS_PREFIX: prefix,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOCALNET_PORT: String(rpcPort),
      API_WORKERS: '2',
      RNG_CHAIN_LENGTH: '5000',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  let output = '';
  proc.stdout!.on('data', (d) => (output += d));
  proc.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
  for (const end = Date.now() + 120_000; !output.includes('"msg":"pfws started"'); ) {
    if (proc.exitCode !== null || Date.now() > end) throw new Error(`did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  // The processes have no analytics reader here: the streams start by resuming at the current seq.
  const seq = String(Number((await redis.get(keys.journalSeq())) ?? 0));
  const numsub = async () => Number(((await redis.call('PUBSUB', 'NUMSUB', keys.playsChannel())) as [string, number])[1]);
  // API processes accept their own connections (SCHED_NONE), so the kernel picks which one gets each: clients
  // arrive in concurrent bursts until both processes serve some, each process then holding one subscription.
  const open = () => openSse(`http://127.0.0.1:${port}/api/activity/stream`, { 'last-event-id': seq });
  for (let burst = 0; burst < 16 && (burst === 0 || (await numsub()) < 2); burst++) {
    clients.push(...(await Promise.all(Array.from({ length: 8 }, open))));
    for (const end = Date.now() + 2_000; (await numsub()) < 2 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
  }
  expect(clients.map((c) => c.status)).toEqual(Array(clients.length).fill(200));
  expect(await numsub()).toBe(2);

  const at = new Date().toISOString();
  const data = { game: 'dice', player: 'p_Proc1', receiptId: 'dice_proc1', wager: '1000000', payout: '0', status: 'lost' };
  const play = playOfSettleEvent('bet_settled', JSON.stringify(data), at)!;
  // settle_turn.lua's journal entry and publish for one play.
  const published = await new LedgerPlays(redis, keys).settle({ type: 'bet_settled', at, data }, JSON.stringify(play));
  await Promise.all(clients.map((c) => c.until('the play', (e) => e.length >= 1)));
  for (const c of clients) expect(c.events).toEqual([{ id: String(published), event: 'play', data: { type: 'play', play } }]);

  proc.kill('SIGTERM');
  expect(await Promise.race([exited, new Promise((_, reject) => setTimeout(() => reject(new Error(`no exit on SIGTERM: ${output}`)), 30_000))])).toBe(0);
  // The streams were ended by the server, so EventSource clients reconnect elsewhere.
  await Promise.all(clients.map((c) => c.until('the end', () => c.closed)));
});
