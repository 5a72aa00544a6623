// The service's reads for independent verifiers: C2SP tiles and entry bundles that rebuild the committed
// tree, the checkpoint as a signed note that an independent signed-note implementation accepts, the trust
// root, and the pointer to a session key's setup on-chain.
import { createHash, createPublicKey, verify as nodeVerify } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { base58 } from '@scure/base';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, http } from '../helpers/player.ts';
import { createRedis } from '../../store/redis.ts';
import { Keys } from '../../store/keys.ts';
import { BetLogTree } from '../../store/anchor-tree.ts';
import { TransparencyStore } from '../../store/transparency.ts';
import { canonicalize } from '../../protocol/jcs.ts';
import { toHex, utf8 } from '../../protocol/encoding.ts';
import { leafHash } from '../../protocol/merkle.ts';
import { decodeEntryBundle, decodeTileIndex, encodeTileIndex, parseTilePath, tilePath, tilesOfTree } from '../../protocol/tlog-tiles.ts';

/**
 * C2SP signed-note verification written from the spec alone (as golang.org/x/mod/sumdb/note does it),
 * with node:crypto, sharing no code with protocol/: the text is everything up to the last blank line;
 * each line after is `— <name> base64(keyID ‖ sig)`; keyID = SHA-256(name ‖ 0x0A ‖ 0x01 ‖ pubkey)[:4].
 */
function independentOpenNote(note: string, name: string, publicKey: Buffer): { text: string } {
  if (!note.endsWith('\n')) throw new Error('a note ends with a newline');
  const split = note.lastIndexOf('\n\n');
  const text = note.slice(0, split + 1);
  const keyId = createHash('sha256')
    .update(Buffer.concat([Buffer.from(name), Buffer.from([0x0a, 0x01]), publicKey]))
    .digest()
    .subarray(0, 4);
  const spki = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), publicKey]), format: 'der', type: 'spki' });
  let verified = false;
  for (const line of note.slice(split + 2, -1).split('\n')) {
    const m = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/.exec(line);
    if (!m) throw new Error(`malformed signature line ${JSON.stringify(line)}`);
    const blob = Buffer.from(m[2]!, 'base64');
    if (m[1] !== name || !blob.subarray(0, 4).equals(keyId)) continue;
    if (!nodeVerify(null, Buffer.from(text), spki, blob.subarray(4))) throw new Error('bad signature');
    verified = true;
  }
  if (!verified) throw new Error('no signature by the key');
  return { text };
}

const splitHashes = (b: Buffer): Buffer[] => Array.from({ length: b.length / 32 }, (_, i) => b.subarray(i * 32, (i + 1) * 32));

/** RFC 6962 root of a list of leaf hashes, written plainly for the test. */
function mth(leaves: Buffer[]): Buffer {
  if (leaves.length === 1) return leaves[0]!;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return createHash('sha256')
    .update(Buffer.concat([Buffer.from([1]), mth(leaves.slice(0, k)), mth(leaves.slice(k))]))
    .digest();
}

describe('tile paths', () => {
  it('encode indices as C2SP path elements and parse only canonical ones', () => {
    expect(encodeTileIndex(1234067)).toBe('x001/x234/067');
    expect(encodeTileIndex(5)).toBe('005');
    expect(decodeTileIndex(['x001', 'x234', '067'])).toBe(1234067);
    expect(tilePath({ level: 1, index: 2, width: 17 })).toBe('tile/1/002.p/17');
    expect(parseTilePath('0/x001/002.p/5')).toEqual({ level: 0, index: 1002, width: 5 });
    expect(parseTilePath('entries/007')).toEqual({ level: null, index: 7, width: 256 });
    for (const bad of ['0/7', '0/0007', '0/x000/007', '64/000', '01/000', '0/000.p/0', '0/000.p/256', '0/000.p/07', 'entries/x007', 'x/000'])
      expect(parseTilePath(bad), bad).toBeNull();
    // The spec's example: a tree of 70,000 leaves.
    const tiles = tilesOfTree(70_000);
    expect(tiles.filter((t) => t.level === 0 && t.width === 256)).toHaveLength(273);
    expect(tiles.filter((t) => t.width < 256).map((t) => [t.level, t.width])).toEqual([
      [0, 112],
      [1, 17],
      [2, 1],
    ]);
  });
});

describe('tiles from the stored tree', () => {
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = new Keys(`test-tiles-${randomBytes(4).toString('hex')}`);
  const SIZE = 717; // two full level-0 tiles and a partial one, and a partial level-1 tile of width 2
  const entries = Array.from({ length: SIZE }, (_, i) => ({ v: 1, receiptId: `r${i}`, n: i, settledAt: new Date(1_800_000_000_000 + i).toISOString() }));
  const leaves = entries.map((e) => Buffer.from(leafHash(utf8(canonicalize(e)))));

  beforeAll(async () => {
    const multi = redis.multi();
    entries.forEach((e, i) => {
      multi.rpush(keys.betLog(), `${toHex(leaves[i]!)}:${e.receiptId}`);
      multi.hset(
        keys.receipt(e.receiptId),
        'body',
        JSON.stringify({ id: e.receiptId, verifierPayload: { betLogEntry: e }, anchor: { status: 'pending_commit' } }),
      );
    });
    await multi.exec();
    await (await BetLogTree.load(redis, keys)).extendTo(SIZE);
    await redis.hset(keys.anchor(), 'committedSize', String(SIZE));
  });
  afterAll(async () => {
    const all = await redis.keys(`${keys.prefix}:*`);
    if (all.length) await redis.del(...all);
    await redis.quit();
  });

  it('serve every hash of the committed tree, and the tiles alone rebuild its root', async () => {
    const store = new TransparencyStore(redis, keys);
    const size = await store.committedSize();
    const level0 = Buffer.concat([
      (await store.hashTile(0, 0, 256, size))!,
      (await store.hashTile(0, 1, 256, size))!,
      (await store.hashTile(0, 2, SIZE - 512, size))!,
    ]);
    expect(level0.equals(Buffer.concat(leaves))).toBe(true);
    const level1 = (await store.hashTile(1, 0, 2, size))!;
    expect(Buffer.from(level1.subarray(0, 32)).equals(mth(leaves.slice(0, 256)))).toBe(true);
    expect(Buffer.from(level1.subarray(32)).equals(mth(leaves.slice(256, 512)))).toBe(true);
    // The root from tiles only: the two level-1 hashes make the left 512 leaves, the partial level-0 tile the rest.
    const left = mth([Buffer.from(level1.subarray(0, 32)), Buffer.from(level1.subarray(32))]);
    const fromTiles = createHash('sha256')
      .update(Buffer.concat([Buffer.from([1]), left, mth(splitHashes(level0.subarray(512 * 32)))]))
      .digest();
    expect(fromTiles.equals(mth(leaves))).toBe(true);
    expect(await store.hashTile(0, 2, 256, size)).toBeNull();
    expect(await store.hashTile(1, 0, 3, size)).toBeNull();
    expect(await store.hashTile(2, 0, 1, size)).toBeNull();
    // A narrower partial tile of an older checkpoint is a prefix of the current one.
    expect(Buffer.from((await store.hashTile(0, 2, 5, size))!).equals(Buffer.concat(leaves.slice(512, 517)))).toBe(true);
  });

  it('serve entry bundles whose entries hash to the level-0 tile', async () => {
    const store = new TransparencyStore(redis, keys);
    const bundle = (await store.entryBundle(1, 256, SIZE))!;
    const decoded = decodeEntryBundle(bundle, 256);
    expect(decoded.map((e) => toHex(leafHash(e)))).toEqual(leaves.slice(256, 512).map((l) => l.toString('hex')));
    expect(JSON.parse(Buffer.from(decoded[0]!).toString())).toEqual(entries[256]);
    expect(await store.entryBundle(2, 256, SIZE)).toBeNull();
  });

  it('serve the entry text stored beside a receipt, and rebuild it from the body only where none is stored', async () => {
    const store = new TransparencyStore(redis, keys);
    const before = Buffer.from((await store.entryBundle(0, 256, SIZE))!);
    // Settlement stores each entry's JCS text; a stored text is what the bundle serves (a marker shows it).
    const multi = redis.multi();
    for (let i = 0; i < 256; i += 2) multi.hset(keys.receipt(`r${i}`), 'entry', canonicalize(entries[i]));
    await multi.exec();
    expect(Buffer.from((await store.entryBundle(0, 256, SIZE))!).equals(before)).toBe(true);
    await redis.hset(keys.receipt('r2'), 'entry', canonicalize({ ...entries[2], marker: 1 }));
    const decoded = decodeEntryBundle((await store.entryBundle(0, 256, SIZE))!, 256);
    expect(JSON.parse(Buffer.from(decoded[2]!).toString())).toEqual({ ...entries[2], marker: 1 });
    expect(decoded.filter((_, i) => i !== 2).map((e) => toHex(leafHash(e)))).toEqual(
      leaves
        .slice(0, 256)
        .filter((_, i) => i !== 2)
        .map((l) => l.toString('hex')),
    );
    await redis.hset(keys.receipt('r2'), 'entry', canonicalize(entries[2]));
  });
});

let svc: TestService;
let player: Player;
let config: Record<string, string>;

describe('the service', () => {
  beforeAll(async () => {
    svc = await startTestService({ ANCHOR_MAX_DELAY_MS: '100', ANCHOR_MAX_ENTRIES: '3', MANIFEST_MAX_DELAY_MS: '100' });
    config = (await http('GET', `${svc.api}/protocol/v1/config`)).body;
    player = await new Player(svc.api, svc.rpcUrl).onboard(50);
    for (let i = 0; i < 5; i++) await player.playDice({ wager: 1, target: 50 });
    const { redis, keys } = svc.wiring;
    for (let i = 0; i < 300; i++) {
      const [size, committed] = await Promise.all([redis.llen(keys.betLog()), redis.hget(keys.anchor(), 'committedSize')]);
      const checkpoint = await new TransparencyStore(redis, keys).latestCheckpoint();
      if (Number(committed) === size && checkpoint?.size === size) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 120_000);
  afterAll(async () => svc?.cleanup());

  it('serves a checkpoint of the newest commit, signed by the anchor key, that an independent signed-note verifier accepts', async () => {
    const res = await fetch(`${svc.api}/protocol/v1/bet-log/checkpoint`);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const note = await res.text();
    const trustRoot = (await http('GET', `${svc.api}/protocol/v1/trust-root`)).body;
    const { text } = independentOpenNote(note, trustRoot.checkpointOrigin, Buffer.from(base58.decode(config.operatorPublicKey!)));
    const [origin, size, root, ...rest] = text.slice(0, -1).split('\n');
    expect(origin).toBe('localhost/api/protocol/v1/bet-log');
    expect(rest).toEqual([]);
    const commits = (await http('GET', `${svc.api}/protocol/v1/bet-log/commits?limit=1000`)).body;
    expect(Number(size)).toBe(commits.committedSize);
    expect(Buffer.from(root!, 'base64').toString('hex')).toBe(commits.commits.at(-1).betLogRoot);
    // Another key, or a changed byte, is refused.
    expect(() => independentOpenNote(note, trustRoot.checkpointOrigin, Buffer.from(base58.decode(config.ackPublicKey!)))).toThrow();
    expect(() =>
      independentOpenNote(
        note.replace(`\n${size}\n`, `\n${Number(size) + 1}\n`),
        trustRoot.checkpointOrigin,
        Buffer.from(base58.decode(config.operatorPublicKey!)),
      ),
    ).toThrow('bad signature');
  });

  it('serves tiles and entry bundles of the committed log, partial ones briefly cached, and 404 beyond it', async () => {
    const size = (await http('GET', `${svc.api}/protocol/v1/bet-log/commits?limit=1000`)).body.committedSize as number;
    const tile = await fetch(`${svc.api}/protocol/v1/bet-log/tile/0/000.p/${size}`);
    expect(tile.status).toBe(200);
    expect(tile.headers.get('content-type')).toBe('application/octet-stream');
    expect(tile.headers.get('cache-control')).toBe('public, max-age=2');
    const hashes = Buffer.from(await tile.arrayBuffer());
    // The worker recorded, beside the tiles it writes, that every full tile of the committed size is written.
    await vi.waitFor(() => expect(readFileSync(path.join(svc.config.tilesDir, 'written-size'), 'utf8')).toBe(String(size)), { timeout: 10_000 });
    const bundle = new Uint8Array(await (await fetch(`${svc.api}/protocol/v1/bet-log/tile/entries/000.p/${size}`)).arrayBuffer());
    const entries = decodeEntryBundle(bundle, size);
    expect(Buffer.concat(entries.map((e) => Buffer.from(leafHash(e)))).equals(hashes)).toBe(true);
    const receipts = (await http('GET', `${svc.api}/protocol/v1/bet-log/receipts/000.p/${size}`)).body.receipts;
    expect(receipts.map((r: { verifierPayload: { betLogEntry: unknown } }) => canonicalize(r.verifierPayload.betLogEntry))).toEqual(
      entries.map((e) => Buffer.from(e).toString()),
    );
    // Settlement stored each entry's text beside its receipt, so the bundle is served without rebuilding one.
    const { redis, keys } = svc.wiring;
    const stored = await Promise.all(receipts.map((r: { id: string }) => redis.hget(keys.receipt(r.id), 'entry')));
    expect(stored).toEqual(entries.map((e) => Buffer.from(e).toString()));
    for (const path of [`tile/0/000.p/${size + 1}`, 'tile/0/000', 'tile/entries/001', 'tile/0/x000/000', 'tile/1/000.p/1', `receipts/000.p/${size + 1}`]) {
      const res = await http('GET', `${svc.api}/protocol/v1/bet-log/${path}`);
      expect([res.status, res.body.error.code], path).toEqual([404, 'NOT_FOUND']);
    }
  });

  it("serves the trust root: the chain objects and keys of /config, with the cluster's genesis hash", async () => {
    const root = (await http('GET', `${svc.api}/protocol/v1/trust-root`)).body;
    const genesis = await (
      await fetch(svc.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getGenesisHash', params: [] }),
      })
    ).json();
    expect(root).toMatchObject({
      version: 1,
      protocol: 'pfws/v1',
      cluster: 'localnet',
      genesisHash: (genesis as { result: string }).result,
      usdcMint: config.usdcMint,
      vaultTokenAccount: config.vaultTokenAccount,
      lpMint: config.lpMint,
      memoProgram: config.memoProgram,
      keys: { ack: [{ publicKey: config.ackPublicKey }], anchor: [{ publicKey: config.operatorPublicKey }], keeper: [{ publicKey: config.vaultAuthority }] },
    });
    // Stable across reads: a verifier pins it.
    expect((await http('GET', `${svc.api}/protocol/v1/trust-root`)).body).toEqual(root);
  });

  it('points at the on-chain setup of the key that committed a bet', async () => {
    const receipt = (await http('GET', `${svc.api}/receipts/${(await player.playDice({ wager: 1 })).reveal.receiptId}`)).body.receipt;
    const pointer = (await http('GET', `${svc.api}/protocol/v1/session-keys/by-bet/${receipt.verifierPayload.betPayloadHash}`)).body;
    expect(pointer).toMatchObject({
      betPayloadHash: receipt.verifierPayload.betPayloadHash,
      sessionPubkey: player.session.publicKey,
      signature: expect.any(String),
    });
    const tx = (await (
      await fetch(svc.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'getTransaction',
          params: [pointer.signature, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }],
        }),
      })
    ).json()) as { result: unknown };
    expect(JSON.stringify(tx.result)).toContain(`pfws:v1:setup:${player.address}:${player.session.publicKey}`);
    expect((await http('GET', `${svc.api}/protocol/v1/session-keys/by-bet/${'ab'.repeat(32)}`)).status).toBe(404);
  });
});
