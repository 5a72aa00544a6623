// The synthetic plays benches and tests write (test/helpers/ledger-plays.ts) must be plays the anchor accepts: it
// halts on an entry whose stored receipt names another leaf, and a bench that halted it would measure no anchoring.
import { randomBytes } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { anchorLeafHexOf } from '../../protocol/receipt.ts';
import { parseBetLogItem } from '../../store/anchor-tree.ts';
import { Keys } from '../../store/keys.ts';
import { createRedis } from '../../store/redis.ts';
import { LedgerPlays } from '../helpers/ledger-plays.ts';

const keys = new Keys(`test-${randomBytes(6).toString('hex')}`);
const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

afterAll(async () => {
  const found = await redis.keys(`${keys.prefix}:*`);
  if (found.length) await redis.unlink(...found);
  await redis.quit();
});

it("a synthetic play's bet-log entry matches its stored receipt, as the anchor checks before committing", async () => {
  const ledger = new LedgerPlays(redis, keys);
  for (const receiptId of ['sweeper_it1', 'dice_it2']) {
    const data = { game: 'sweeper', player: 'p_Test1', receiptId, wager: '0', payout: '0', status: 'lost' };
    await ledger.settle({ type: 'bet_settled', at: new Date().toISOString(), data }, '');
  }
  const items = await redis.lrange(keys.betLog(), 0, -1);
  expect(items).toHaveLength(2);
  for (const [i, item] of items.entries()) {
    const { leafHex, receiptId } = parseBetLogItem(item, i);
    const body = await redis.hget(keys.receipt(receiptId), 'body');
    expect(body).not.toBeNull();
    expect(anchorLeafHexOf(body as string)).toBe(leafHex);
  }
});
