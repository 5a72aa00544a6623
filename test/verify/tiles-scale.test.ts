// C2SP tlog-tiles past 65,536 entries, built in-process (no HTTP per entry): level-2 tiles, a partial tile on
// every level, index paths with `x` groups, and every full tile byte-identical whether the worker stored it as a
// file or it is computed from Redis. The served headers: full tiles immutable with an ETag, 304 on a match.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeKeys } from '../../chaos/redis-keys.ts';
import { createRedis } from '../../store/redis.ts';
import { Keys } from '../../store/keys.ts';
import { BetLogTree } from '../../store/anchor-tree.ts';
import { TransparencyStore } from '../../store/transparency.ts';
import { toHex } from '../../protocol/encoding.ts';
import { decodeEntryBundle, entryBundlePath, parseTilePath, tilePath, tilesOfTree, type TileRef } from '../../protocol/tlog-tiles.ts';
import transparencyRoutes from '../../api/routes/transparency.ts';
import errorsPlugin from '../../api/plugins/errors.ts';
import type { TrustRoots } from '../../transparency/trust-root.ts';

// 1,001 full level-0 tiles (the last at x001/000), a partial one x001/001.p/5; level 1: 3 full tiles and 000.p/233
// (003.p/233) of 1,001 hashes; level 2: 000.p/3.
const FULL_BUNDLES = 1001;
const SIZE = FULL_BUNDLES * 256 + 5;
const MIDWAY = 70_000;

const sha = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
/** RFC 6962 leaf hash and root, written plainly for the test (sharing no code with protocol/). */
const leafOf = (entry: Buffer) => sha(Buffer.from([0]), entry);
function mth(leaves: Buffer[]): Buffer {
  if (leaves.length === 1) return leaves[0]!;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha(Buffer.from([1]), mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

describe('tiles past 65,536 entries', () => {
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = new Keys(`test-tiles-scale-${randomBytes(4).toString('hex')}`);
  const tilesDir = mkdtempSync(path.join(os.tmpdir(), 'pfws-tiles-scale-'));
  const entries = Array.from({ length: SIZE }, (_, i) => Buffer.from(`{"n":${i},"receiptId":"r${i}","v":1}`));
  const leaves = entries.map(leafOf);
  let app: FastifyInstance;

  beforeAll(async () => {
    for (let start = 0; start < SIZE; start += 20_000) {
      const pipeline = redis.pipeline();
      for (let i = start; i < Math.min(SIZE, start + 20_000); i++) {
        pipeline.rpush(keys.betLog(), `${leaves[i]!.toString('hex')}:r${i}`);
        pipeline.hset(keys.receipt(`r${i}`), 'entry', entries[i]!.toString());
      }
      await pipeline.exec();
    }
    await (await BetLogTree.load(redis, keys)).extendTo(SIZE);
    await redis.hset(keys.anchor(), 'committedSize', String(SIZE));
    app = Fastify();
    await app.register(errorsPlugin);
    // The trust root is not read by tile routes; publishing one needs a chain.
    await app.register(transparencyRoutes, {
      transparency: new TransparencyStore(redis, keys, tilesDir),
      trustRoots: { current: async () => ({}) } as unknown as TrustRoots,
    });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await removeKeys(redis, keys.prefix);
    await redis.quit();
    rmSync(tilesDir, { recursive: true, force: true });
  });

  it('has level-2 tiles, a partial tile on every level and x groups in its paths', () => {
    const partial = tilesOfTree(SIZE)
      .filter((t) => t.width < 256)
      .map((t) => tilePath(t));
    expect(partial).toEqual(['tile/0/x001/001.p/5', 'tile/1/003.p/233', 'tile/2/000.p/3']);
    expect(tilePath({ level: 0, index: 1000, width: 256 })).toBe('tile/0/x001/000');
    expect(entryBundlePath(1000, 256)).toBe('tile/entries/x001/000');
    expect(parseTilePath('0/x001/001.p/5')).toEqual({ level: 0, index: 1001, width: 5 });
  });

  it('stores every full tile once, as the worker does commit by commit, byte-identical to the computed one', async () => {
    const store = new TransparencyStore(redis, keys, tilesDir);
    const computed = new TransparencyStore(redis, keys);
    // Two commits: the second writes only what the first did not complete.
    expect(await store.writeFullTiles(MIDWAY)).toBe(Math.floor(MIDWAY / 256) * 2 + 1);
    expect(await store.writeFullTiles(MIDWAY)).toBe(0);
    expect(await store.writeFullTiles(SIZE)).toBe(FULL_BUNDLES * 2 + 3 - (Math.floor(MIDWAY / 256) * 2 + 1));
    // Entry bundles encoded here from the entries (a 2-byte big-endian length, then the bytes), independently.
    const bundleOf = (index: number, width: number) =>
      Buffer.concat(entries.slice(index * 256, index * 256 + width).flatMap((e) => [Buffer.from([e.length >> 8, e.length & 0xff]), e]));
    for (const tile of tilesOfTree(SIZE)) {
      const hashPath = tilePath(tile);
      const hashes = Buffer.from((await computed.hashTile(tile.level, tile.index, tile.width, SIZE))!);
      const entryPath = tile.level === 0 ? entryBundlePath(tile.index, tile.width) : null;
      if (tile.width === 256) {
        expect(readFileSync(path.join(tilesDir, hashPath)).equals(hashes), hashPath).toBe(true);
        if (entryPath) expect(readFileSync(path.join(tilesDir, entryPath)).equals(bundleOf(tile.index, 256)), entryPath).toBe(true);
      } else {
        expect(existsSync(path.join(tilesDir, hashPath)), hashPath).toBe(false);
        if (entryPath) expect(existsSync(path.join(tilesDir, entryPath)), entryPath).toBe(false);
      }
    }
    for (const index of [0, 273, 1000])
      expect(Buffer.from((await computed.entryBundle(index, 256, SIZE))!).equals(bundleOf(index, 256)), `bundle ${index}`).toBe(true);
  }, 60_000);

  it('writes the entry texts the worker holds without reading them again, and reads the rest', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-tiles-kept-'));
    const store = new TransparencyStore(redis, keys, dir);
    // What the worker holds for tile 1 is gone from Redis; every other entry is read there.
    const held = new Map<string, Buffer>();
    for (let i = 256; i < 512; i++) held.set(`r${i}`, entries[i]!);
    const pipeline = redis.pipeline();
    for (const id of held.keys()) pipeline.hdel(keys.receipt(id), 'entry');
    await pipeline.exec();
    const bundleOf = (index: number) =>
      Buffer.concat(entries.slice(index * 256, index * 256 + 256).flatMap((e) => [Buffer.from([e.length >> 8, e.length & 0xff]), e]));
    try {
      expect(await store.writeFullTiles(1024, (ids) => ids.map((id) => held.get(id)))).toBeGreaterThan(4);
      for (const index of [0, 1, 2, 3]) expect(readFileSync(path.join(dir, entryBundlePath(index, 256))).equals(bundleOf(index)), `bundle ${index}`).toBe(true);
    } finally {
      const restore = redis.pipeline();
      for (const [id, entry] of held) restore.hset(keys.receipt(id), 'entry', entry.toString());
      await restore.exec();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serves tiles from which an independent RFC 6962 implementation rebuilds the root', async () => {
    const get = async (tile: TileRef) => {
      const res = await app.inject({ method: 'GET', url: `/protocol/v1/bet-log/${tilePath(tile)}` });
      expect(res.statusCode, tilePath(tile)).toBe(200);
      return res.rawPayload;
    };
    // Level 0 is the leaves; each hash of level L+1 is the root of a full tile of level L.
    const levels: Buffer[][] = [];
    for (let level = 0; level <= 2; level++) {
      const row: Buffer[] = [];
      for (const tile of tilesOfTree(SIZE).filter((t) => t.level === level)) {
        const bytes = await get(tile);
        for (let i = 0; i < tile.width; i++) row.push(bytes.subarray(i * 32, (i + 1) * 32));
      }
      levels.push(row);
    }
    expect(levels[0]!.map((h) => h.toString('hex'))).toEqual(leaves.map((l) => l.toString('hex')));
    for (let level = 1; level <= 2; level++)
      for (const [i, h] of levels[level]!.entries())
        expect(h.equals(mth(levels[level - 1]!.slice(i * 256, (i + 1) * 256))), `level ${level} hash ${i}`).toBe(true);
    // The root from tiles alone: an aligned block of 65,536 or 256 leaves is its level-2 or level-1 hash.
    const fromTiles = (lo: number, hi: number): Buffer => {
      if (hi - lo === 65_536 && lo % 65_536 === 0) return levels[2]![lo / 65_536]!;
      if (hi - lo === 256 && lo % 256 === 0) return levels[1]![lo / 256]!;
      if (hi - lo === 1) return levels[0]![lo]!;
      let k = 1;
      while (k * 2 < hi - lo) k *= 2;
      return sha(Buffer.from([1]), fromTiles(lo, lo + k), fromTiles(lo + k, hi));
    };
    const root = fromTiles(0, SIZE);
    // The tree's root as the worker keeps it.
    const tree = await BetLogTree.load(redis, keys);
    expect(toHex(tree.log.root(SIZE))).toBe(root.toString('hex'));
    const last = decodeEntryBundle((await app.inject({ method: 'GET', url: '/protocol/v1/bet-log/tile/entries/x001/001.p/5' })).rawPayload, 5);
    expect(last.map((e) => leafOf(Buffer.from(e)).toString('hex'))).toEqual(leaves.slice(-5).map((l) => l.toString('hex')));
  }, 60_000);

  it('serves a full tile immutable with an ETag, a partial one briefly, and 304 to a conditional GET', async () => {
    const full = await app.inject({ method: 'GET', url: '/protocol/v1/bet-log/tile/entries/x001/000' });
    expect(full.statusCode).toBe(200);
    expect(full.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(full.rawPayload.equals(readFileSync(path.join(tilesDir, 'tile/entries/x001/000')))).toBe(true);
    const etag = full.headers.etag as string;
    expect(etag).toBe(`"${createHash('sha256').update(full.rawPayload).digest('base64url')}"`);
    const again = await app.inject({ method: 'GET', url: '/protocol/v1/bet-log/tile/entries/x001/000', headers: { 'if-none-match': `"other", W/${etag}` } });
    expect([again.statusCode, again.rawPayload.length, again.headers.etag]).toEqual([304, 0, etag]);
    const stale = await app.inject({ method: 'GET', url: '/protocol/v1/bet-log/tile/entries/x001/000', headers: { 'if-none-match': '"other"' } });
    expect(stale.statusCode).toBe(200);
    const partial = await app.inject({ method: 'GET', url: '/protocol/v1/bet-log/tile/1/003.p/233' });
    expect([partial.statusCode, partial.headers['cache-control']]).toEqual([200, 'public, max-age=2']);
    expect(partial.headers.etag).toBeTruthy();
    for (const url of ['/protocol/v1/bet-log/tile/1/003.p/234', '/protocol/v1/bet-log/tile/1/003', '/protocol/v1/bet-log/tile/entries/x001/002']) {
      expect((await app.inject({ method: 'GET', url })).statusCode, url).toBe(404);
    }
  });

  it('computes and stores a full tile the worker has not written (a host without its TILES_DIR)', async () => {
    const other = mkdtempSync(path.join(os.tmpdir(), 'pfws-tiles-scale-other-'));
    try {
      const store = new TransparencyStore(redis, keys, other);
      const tile = await store.tile({ level: 1, index: 2, width: 256 });
      expect(tile?.full).toBe(true);
      expect(readFileSync(path.join(other, 'tile/1/002')).equals(readFileSync(path.join(tilesDir, 'tile/1/002')))).toBe(true);
      expect(Buffer.from(tile!.bytes).equals(readFileSync(path.join(tilesDir, 'tile/1/002')))).toBe(true);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
