// A commit's liability snapshot holds every wallet the ledger knows, however many: at 100,000 wallets its claim (two
// script arguments a wallet) once overflowed the call stack, and anchoring stopped for good. Once built, a commit
// copies the liabilities the scripts keep instead of reading every player. On a redis-server of its own: a first
// snapshot of 100,000 players holds Redis about a second, which would time out other suites' requests.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { base58 } from '@scure/base';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from '@solana/kit';
import { RedisServer } from '../../chaos/redis-server.ts';
import { createRedis } from '../../store/redis.ts';
import { Keys } from '../../store/keys.ts';
import { AnchorStore, type PendingCommit } from '../../store/anchor-store.ts';
import { defineScripts } from '../../store/scripts.ts';

const keys = new Keys('liabilities');
let server: RedisServer;
let redis: Redis;
let store: AnchorStore;

beforeAll(async () => {
  server = new RedisServer({ dir: mkdtempSync(path.join(os.tmpdir(), 'pfws-liabilities-')), args: ['--appendonly', 'no'] });
  await server.start();
  redis = createRedis(server.url);
  store = new AnchorStore(redis, keys, defineScripts(redis));
});

afterAll(async () => {
  await redis.quit();
  await server.kill();
  rmSync(server.options.dir, { recursive: true, force: true });
});

const WALLETS = 100_000;

describe('the liability snapshot of a commit', () => {
  it(`takes and stores ${WALLETS.toLocaleString('en')} wallets`, async () => {
    const expected = new Map<string, bigint>();
    for (let i = 0; i < WALLETS; i += 5_000) {
      const pipeline = redis.pipeline();
      for (let j = i; j < i + 5_000; j++) {
        const wallet = base58.encode(randomBytes(32)) as Address;
        expected.set(wallet, BigInt(j) * 3n + 6n);
        pipeline.sadd(keys.wallets(), wallet);
        pipeline.hset(keys.player(wallet), 'balance', String(j + 1), 'staked', String(j + 2), 'pendingWithdrawals', String(j + 3));
      }
      await pipeline.exec();
    }
    await redis.rpush(keys.betLog(), 'entry');
    const snap = await store.snapshot(1_000);
    expect(snap.entryCount).toBe(1);
    expect(snap.liabilities).toEqual(expected);
    const pending = { from: 0, entryCount: 1 } as PendingCommit;
    expect(await store.claim(pending, snap)).toBe(true);
    expect(await store.snapshotOf(1)).toEqual(expected);
    expect(await redis.exists(snap.draft)).toBe(0);

    // From now on a commit copies the liabilities the scripts keep: a player changed behind their back is not read.
    const [wallet] = expected.keys();
    await redis.hset(keys.player(wallet as Address), 'balance', '1000000');
    await redis.hincrby(keys.liabilities(), wallet!, 5);
    await redis.rpush(keys.betLog(), 'entry');
    const next = await store.snapshot(1_000);
    expect(next.liabilities.get(wallet!)).toBe(expected.get(wallet!)! + 5n);
    expect(next.liabilities.size).toBe(WALLETS);
    // A claim that loses the slot keeps nothing.
    expect(await store.claim({ from: 0, entryCount: 2 } as PendingCommit, next)).toBe(false);
    expect(await redis.exists(next.draft)).toBe(0);
    // Without its kept liabilities (a hash that went away), a commit reads every player again.
    await redis.del(keys.liabilities());
    const rebuilt = await store.snapshot(1_000);
    // Wallet j held j + 1, j + 2 and j + 3: its balance is 1,000,000 now.
    const j = (expected.get(wallet!)! - 6n) / 3n;
    expect(rebuilt.liabilities.get(wallet!)).toBe(1_000_000n + (j + 2n) + (j + 3n));
    expect(rebuilt.liabilities.size).toBe(WALLETS);
    await store.discard(rebuilt);
  }, 60_000);
});
