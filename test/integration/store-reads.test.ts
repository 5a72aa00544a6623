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
    expect(await store.receiptBodies(['dice_stored', 'dice_missing'])).toEqual([Buffer.from('{"a":1}'), null]);
    expect(await store.receiptFieldBytes(['dice_stored', 'dice_missing'], 'anchor')).toEqual([Buffer.from('{"b":2}'), null]);
    await expect(store.receiptBodies(['dice_stored', 'dice_broken'])).rejects.toThrow(/WRONGTYPE/);
    await expect(store.receiptFieldBytes(['dice_broken', 'dice_stored'], 'body')).rejects.toThrow(/WRONGTYPE/);
    await expect(store.receiptFieldBytes(['dice_broken'], 'anchor')).rejects.toThrow(/WRONGTYPE/);
  });

  it("hands each of the anchor's check and the archiver the bodies the other just read, once each, the newest 4,096", async () => {
    const bodyOf = (id: string) => `{"id":"${id}","é":"✓"}`;
    const store = new AnchorStore(redis, keys, defineScripts(redis));
    const ids = Array.from({ length: 4100 }, (_, i) => `dice_kept_${i}`);
    const pipeline = redis.pipeline();
    for (const id of ids) pipeline.hset(keys.receipt(id), 'body', bodyOf(id));
    await pipeline.exec();
    expect(await store.receiptBodies(ids)).toEqual(ids.map((id) => Buffer.from(bodyOf(id))));
    // Gone from Redis: what comes back now was kept from the check's read.
    await redis.unlink(...ids.map((id) => keys.receipt(id)));
    const archived = await store.receiptFieldBytes(ids, 'body');
    expect(archived.slice(0, 4)).toEqual([null, null, null, null]);
    expect(archived.slice(4)).toEqual(ids.slice(4).map((id) => Buffer.from(bodyOf(id))));
    // Each is handed over once.
    expect(await store.receiptFieldBytes(ids.slice(-2), 'body')).toEqual([null, null]);

    // The other way: the archiver read first, and the check takes what it kept.
    const later = ['dice_kept_a', 'dice_kept_b'];
    for (const id of later) await redis.hset(keys.receipt(id), 'body', bodyOf(id), 'anchor', '{"b":2}');
    expect(await store.receiptFieldBytes(later, 'body')).toEqual(later.map((id) => Buffer.from(bodyOf(id))));
    await redis.unlink(...later.map((id) => keys.receipt(id)));
    expect(await store.receiptBodies([...later, 'dice_kept_missing'])).toEqual([...later.map((id) => Buffer.from(bodyOf(id))), null]);
    expect(await store.receiptBodies(later)).toEqual([null, null]);
    // An anchor is read from Redis unless the fill just wrote it.
    expect(await store.receiptFieldBytes(['dice_stored'], 'anchor')).toEqual([Buffer.from('{"b":2}')]);
  });

  it('hands the receipt bundles each body the check read and each anchor the fill wrote, once, and only the two together', async () => {
    const store = new AnchorStore(redis, keys, defineScripts(redis));
    const ids = ['dice_bundle_a', 'dice_bundle_b', 'dice_bundle_c'];
    const bodyOf = (id: string) => `{"id":"${id}","é":"✓"}`;
    for (const id of ids) await redis.hset(keys.receipt(id), 'body', bodyOf(id));
    // The archiver read a's body first: the check takes it from there, and keeps it for the bundles all the same.
    await store.receiptFieldBytes(['dice_bundle_a'], 'body');
    expect(await store.receiptBodies(ids.slice(0, 2))).toEqual(ids.slice(0, 2).map((id) => Buffer.from(bodyOf(id))));
    await store.fillBatch(
      ['dice_bundle_a', 'dice_bundle_c'].map((receiptId) => ({ receiptId, anchorJson: `{"of":"${receiptId}"}` })),
      2,
    );
    // b has no anchor kept, c no body: both read from Redis instead.
    expect(store.takeBundleFields(ids)).toEqual([{ body: Buffer.from(bodyOf('dice_bundle_a')), anchor: '{"of":"dice_bundle_a"}' }, undefined, undefined]);
    expect(store.takeBundleFields(ids)).toEqual([undefined, undefined, undefined]);
  });

  it('hands the full tiles the entry text read with each body, whoever read it first, once each', async () => {
    const store = new AnchorStore(redis, keys, defineScripts(redis));
    const ids = ['dice_entry_a', 'dice_entry_b', 'dice_entry_c'];
    for (const id of ids) await redis.hset(keys.receipt(id), 'body', `{"id":"${id}"}`, 'entry', `{"entry":"${id}","é":"✓"}`);
    // c's entry is empty: none is kept, and the tiles rebuild it from the body.
    await redis.hset(keys.receipt('dice_entry_c'), 'entry', '');
    // The archiver reads a's body first; the check reads b's and c's (and takes a's).
    await store.receiptFieldBytes(['dice_entry_a'], 'body');
    await store.receiptBodies(ids);
    expect(store.takeTileEntries(ids)).toEqual([Buffer.from('{"entry":"dice_entry_a","é":"✓"}'), Buffer.from('{"entry":"dice_entry_b","é":"✓"}'), undefined]);
    expect(store.takeTileEntries(ids)).toEqual([undefined, undefined, undefined]);
  });

  it('hands the archiver the anchors the fill just wrote, once each', async () => {
    const store = new AnchorStore(redis, keys, defineScripts(redis));
    const anchors = ['dice_filled_a', 'dice_filled_b'].map((receiptId) => ({ receiptId, anchorJson: `{"status":"anchored","of":"${receiptId}","é":"✓"}` }));
    await store.fillBatch(anchors, 2);
    expect(await redis.hget(keys.receipt('dice_filled_a'), 'anchor')).toBe(anchors[0]?.anchorJson);
    await redis.unlink(...anchors.map((a) => keys.receipt(a.receiptId)));
    const ids = [...anchors.map((a) => a.receiptId), 'dice_filled_missing'];
    expect(await store.receiptFieldBytes(ids, 'anchor')).toEqual([...anchors.map((a) => Buffer.from(a.anchorJson)), null]);
    expect(await store.receiptFieldBytes(ids, 'anchor')).toEqual([null, null, null]);
    // The body side keeps nothing from a fill.
    expect(
      await store.receiptFieldBytes(
        anchors.map((a) => a.receiptId),
        'body',
      ),
    ).toEqual([null, null]);
  });
});
