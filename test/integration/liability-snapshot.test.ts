// A commit's liability snapshot holds every wallet the ledger knows, however many: at 100,000 wallets its claim (two
// script arguments a wallet) once overflowed the call stack, and anchoring stopped for good.
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { afterAll, describe, expect, it } from 'vitest';
import type { Address } from '@solana/kit';
import { createRedis } from '../../store/redis.ts';
import { Keys } from '../../store/keys.ts';
import { AnchorStore, type PendingCommit } from '../../store/anchor-store.ts';
import { defineScripts } from '../../store/scripts.ts';

const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const keys = new Keys(`test-${randomBytes(6).toString('hex')}`);
const store = new AnchorStore(redis, keys, defineScripts(redis));

afterAll(async () => {
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${keys.prefix}:*`, 'COUNT', 10_000);
    if (found.length) await redis.unlink(...found);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
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
    expect(await store.claim(pending, snap.liabilities)).toBe(true);
    expect(await store.snapshotOf(1)).toEqual(expected);
  }, 60_000);
});
