// Receipt bundles stored once their anchors are filled: the stored bytes are the built ones, a bundle with an
// anchor still pending is never stored (its bytes will change), and a partial bundle is always built.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../store/redis.ts';
import { Keys } from '../../store/keys.ts';
import fc from 'fast-check';
import { TransparencyStore, bundleBytes, bundleJson } from '../../store/transparency.ts';

const SIZE = 3 * 256 + 7;

const body = (i: number) => `{"id":"r${i}","n":${i},"anchor":{"status":"pending_commit","betLogEntryHash":"${i}"},"createdAt":"2026-01-01T00:00:00.000Z"}`;
const anchor = (i: number) => `{"status":"committed","betLogIndex":${i},"betLogProof":["${'ab'.repeat(32)}"]}`;

describe('stored receipt bundles', () => {
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = new Keys(`test-receipt-bundles-${randomBytes(4).toString('hex')}`);
  const tilesDir = mkdtempSync(path.join(os.tmpdir(), 'pfws-receipt-bundles-'));
  const file = (index: number) => path.join(tilesDir, 'receipts', String(index).padStart(3, '0'));

  beforeAll(async () => {
    const pipeline = redis.pipeline();
    for (let i = 0; i < SIZE; i++) {
      pipeline.rpush(keys.betLog(), `${'00'.repeat(32)}:r${i}`);
      // Bundles 0 and 1 are filled; bundle 2 has one anchor pending; the partial bundle 3 is filled.
      pipeline.hset(keys.receipt(`r${i}`), 'body', body(i), ...(i === 600 ? [] : ['anchor', anchor(i)]));
    }
    await pipeline.exec();
    await redis.hset(keys.anchor(), 'committedSize', String(SIZE));
  });
  afterAll(async () => {
    const all = await redis.keys(`${keys.prefix}:*`);
    if (all.length) await redis.del(...all);
    await redis.quit();
    rmSync(tilesDir, { recursive: true, force: true });
  });

  it('writes the filled full bundles once, byte for byte the built ones, and stops at a pending anchor', async () => {
    const store = new TransparencyStore(redis, keys, tilesDir);
    const built = new TransparencyStore(redis, keys);
    expect(await store.writeReceiptBundles(SIZE)).toBe(2);
    expect(await store.writeReceiptBundles(SIZE)).toBe(0);
    for (const index of [0, 1]) {
      const json = (await built.receiptBundleJson(index, 256, SIZE))!;
      expect(readFileSync(file(index)).equals(Buffer.from(json))).toBe(true);
      expect(Buffer.from((await built.receiptBundleBytes(index, 256))!.bytes).equals(Buffer.from(json))).toBe(true);
      expect(Buffer.from((await store.receiptBundleBytes(index, 256))!.bytes).equals(Buffer.from(json))).toBe(true);
      expect((JSON.parse(json) as { receipts: { anchor: { status: string } }[] }).receipts.every((r) => r.anchor.status === 'committed')).toBe(true);
    }
    expect(existsSync(file(2))).toBe(false);
  });

  it('builds a bundle with a pending anchor on each read without storing it, and stores it once filled', async () => {
    const store = new TransparencyStore(redis, keys, tilesDir);
    const pending = String((await store.receiptBundleBytes(2, 256))?.bytes);
    expect(pending).toContain('"pending_commit"');
    expect(existsSync(file(2))).toBe(false);
    await redis.hset(keys.receipt('r600'), 'anchor', anchor(600));
    const filled = String((await store.receiptBundleBytes(2, 256))?.bytes);
    expect(filled).not.toContain('"pending_commit"');
    expect(readFileSync(file(2), 'utf8')).toBe(filled);
    // The worker's cursor, held at the pending anchor, now moves past it: the same bytes again.
    expect(await store.writeReceiptBundles(SIZE)).toBe(1);
    expect(readFileSync(file(2), 'utf8')).toBe(filled);
    expect(await store.writeReceiptBundles(SIZE)).toBe(0);
  });

  it('writes the fields the worker holds without reading them again, and reads the rest', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-receipt-bundles-kept-'));
    const store = new TransparencyStore(redis, keys, dir);
    const built = new TransparencyStore(redis, keys);
    const want = await Promise.all([0, 1, 2].map(async (index) => (await built.receiptBundleJson(index, 256, SIZE))!));
    // What the worker holds for bundle 1 is gone from Redis; every other receipt is read there.
    const held = new Map<string, { body: Buffer; anchor: string }>();
    for (let i = 256; i < 512; i++) held.set(`r${i}`, { body: Buffer.from(body(i)), anchor: anchor(i) });
    await redis.unlink(...[...held.keys()].map((id) => keys.receipt(id)));
    const asked: string[][] = [];
    const kept = (ids: readonly string[]) => {
      asked.push([...ids]);
      return ids.map((id) => held.get(id));
    };
    try {
      expect(await store.writeReceiptBundles(SIZE, kept)).toBe(3);
      for (const index of [0, 1, 2]) expect(readFileSync(path.join(dir, 'receipts', String(index).padStart(3, '0')), 'utf8')).toBe(want[index]);
      expect(asked.map((ids) => ids[0])).toEqual(['r0', 'r256', 'r512']);
    } finally {
      const pipeline = redis.pipeline();
      for (let i = 256; i < 512; i++) pipeline.hset(keys.receipt(`r${i}`), 'body', body(i), 'anchor', anchor(i));
      await pipeline.exec();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('always builds a partial bundle, and has none past the committed size', async () => {
    const store = new TransparencyStore(redis, keys, tilesDir);
    const partial = String((await store.receiptBundleBytes(3, 7))?.bytes);
    expect((JSON.parse(partial) as { receipts: unknown[] }).receipts).toHaveLength(7);
    expect(await store.receiptBundleBytes(3, 8)).toBeNull();
    expect(await store.receiptBundleBytes(4, 256)).toBeNull();
  });

  it('writes the bytes of the bundle text, whatever the receipts hold', () => {
    const text = fc.string({ unit: 'binary' });
    const pending = fc.record({ status: fc.constant('pending_commit'), betLogEntryHash: text });
    // Bodies as settlement writes them (the pending anchor, then createdAt), and of any other shape.
    const body = fc.oneof(
      fc.tuple(text, pending, text).map(([id, anchor, createdAt]) => JSON.stringify({ id, anchor, createdAt })),
      fc.dictionary(text, text).map((o) => JSON.stringify(o)),
    );
    const stored = fc.array(fc.record({ body, anchor: fc.option(text.map((t) => JSON.stringify({ status: 'committed', t }))), bytes: fc.boolean() }), {
      maxLength: 8,
    });
    fc.assert(
      fc.property(stored, (receipts) => {
        // A body the worker holds is the bytes Redis sent; one read for a request is text.
        const held = receipts.map((r) => ({ body: r.bytes ? Buffer.from(r.body) : r.body, anchor: r.anchor }));
        return bundleBytes(held).equals(Buffer.from(bundleJson(receipts)));
      }),
    );
  });
});
