// The bet-log tree persisted in Redis: idempotent extension, reload, and proofs read node by node.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, type Redis } from '../../store/redis.ts';
import { Keys } from '../../store/keys.ts';
import { BetLogTree, InvalidEntryError, readConsistencyProof } from '../../store/anchor-tree.ts';
import { MerkleLog } from '../../protocol/merkle-log.ts';
import { leafHash } from '../../protocol/merkle.ts';
import { toHex, utf8 } from '../../protocol/encoding.ts';

let redis: Redis;
let keys: Keys;
const reference = new MerkleLog();

const leafOf = (i: number) => leafHash(utf8(`entry ${i}`));

async function push(from: number, to: number): Promise<void> {
  const items = [];
  for (let i = from; i < to; i++) items.push(`${toHex(leafOf(i))}:dice_${i}`);
  await redis.rpush(keys.betLog(), ...items);
  reference.append(items.map((_, k) => leafOf(from + k)));
}

beforeAll(async () => {
  redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  keys = new Keys(`test-tree-${randomBytes(6).toString('hex')}`);
});
afterAll(async () => {
  const all = await redis.keys(`${keys.prefix}:*`);
  if (all.length) await redis.del(...all);
  await redis.quit();
});

describe('BetLogTree', () => {
  it('extends from the log, persists its nodes and reloads them at the same size', async () => {
    await push(0, 37);
    const tree = await BetLogTree.load(redis, keys);
    await tree.extendTo(20);
    await tree.extendTo(37);
    expect(toHex(tree.log.root())).toBe(toHex(reference.root()));
    const reloaded = await BetLogTree.load(redis, keys);
    expect(reloaded.size).toBe(37);
    for (const size of [1, 2, 5, 20, 37]) expect(toHex(reloaded.log.root(size))).toBe(toHex(reference.root(size)));
    expect(reloaded.log.inclusionProof(13, 37).map(toHex)).toEqual(reference.inclusionProof(13, 37).map(toHex));
  });

  it('writes identical bytes when two workers extend the same range', async () => {
    await push(37, 70);
    const [a, b] = await Promise.all([BetLogTree.load(redis, keys), BetLogTree.load(redis, keys)]);
    await Promise.all([a.extendTo(70), b.extendTo(55).then(() => b.extendTo(70))]);
    const reloaded = await BetLogTree.load(redis, keys);
    reloaded.log.verifyNodes();
    expect(toHex(reloaded.log.root())).toBe(toHex(reference.root()));
  });

  it('serves consistency proofs read from Redis equal to the in-memory ones', async () => {
    for (let size2 = 1; size2 <= 70; size2 += 3) {
      for (let size1 = 1; size1 <= size2; size1 += 2) {
        const proof = await readConsistencyProof(redis, keys, size1, size2);
        expect(proof.map(toHex), `${size1}→${size2}`).toEqual(reference.consistencyProof(size1, size2).map(toHex));
      }
    }
    await expect(readConsistencyProof(redis, keys, 1, 71)).rejects.toThrow(RangeError);
  });

  it('refuses a malformed entry without appending anything', async () => {
    await redis.rpush(keys.betLog(), `${toHex(leafOf(70))}:dice_70`, 'zz:not-an-entry');
    const tree = await BetLogTree.load(redis, keys);
    await expect(tree.extendTo(72)).rejects.toThrow(InvalidEntryError);
    expect(tree.size).toBe(70);
    expect((await BetLogTree.load(redis, keys)).size).toBe(70);
  });
});
