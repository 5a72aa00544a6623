// A read that fails is an error, never a value that is not there: a receipt read that failed would otherwise halt
// anchoring as "a receipt that does not exist", or move the archive past a receipt it never copied.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../store/redis.ts';
import { Keys } from '../../store/keys.ts';
import { AnchorStore } from '../../store/anchor-store.ts';
import { defineScripts } from '../../store/scripts.ts';

const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const keys = new Keys(`test-${randomBytes(6).toString('hex')}`);
const store = new AnchorStore(redis, keys, defineScripts(redis));

afterAll(async () => {
  const found = await redis.keys(`${keys.prefix}:*`);
  if (found.length) await redis.unlink(...found);
  await redis.quit();
});

describe('receipt reads', () => {
  it('answer null only where no receipt is stored, and throw where the read failed', async () => {
    await redis.hset(keys.receipt('dice_stored'), 'body', '{"a":1}', 'anchor', '{"b":2}');
    // A key that is not a hash makes Redis answer the read with an error (WRONGTYPE), as a timeout would fail it.
    await redis.set(keys.receipt('dice_broken'), 'x');
    expect(await store.receiptBodies(['dice_stored', 'dice_missing'])).toEqual(['{"a":1}', null]);
    expect(await store.receiptFieldBytes(['dice_stored', 'dice_missing'], 'anchor')).toEqual([Buffer.from('{"b":2}'), null]);
    await expect(store.receiptBodies(['dice_stored', 'dice_broken'])).rejects.toThrow(/WRONGTYPE/);
    await expect(store.receiptFieldBytes(['dice_broken', 'dice_stored'], 'body')).rejects.toThrow(/WRONGTYPE/);
    await expect(store.receiptFieldBytes(['dice_broken'], 'anchor')).rejects.toThrow(/WRONGTYPE/);
  });
});
