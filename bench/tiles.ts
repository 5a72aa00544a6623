/**
 * Tile serving benchmark, in-process (no chain; HTTP on loopback): the API's route over a log of 64 full tiles.
 * - `tiles.cpuUsPerServedEntry`: the server's CPU per entry served as a stored full entry bundle (and
 *   `.hashes`: as a stored full level-0 hash tile) over HTTP, ETag included; the client is another process.
 * - `tiles.cpuUsPerComputedEntry`: the same bundles computed from Redis on each request (no TILES_DIR),
 *   as before tiles were files.
 * - `tiles.cpuUsPerServedReceipt`: the server's CPU per receipt served in a stored full receipt bundle (anchors
 *   filled), and `tiles.cpuUsPerBuiltReceipt`: built from Redis on each request, as before they were stored
 *   (Redis's own CPU for those reads comes on top).
 * - `tiles.bundleWriteUsPerReceipt`: the worker's CPU per receipt writing the full receipt bundles as files, each
 *   receipt read from Redis; `.kept`: from the bodies its check read and the anchors its fill wrote, as it runs.
 * - `tiles.fullTilesWriteUsPerEntry`: the same for every full tile (entry bundles and hash tiles), each entry text read
 *   from Redis; `.kept`: from the entry texts read with the bodies, as it runs.
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { Keys } from '../store/keys.ts';
import { removeKeys } from '../chaos/redis-keys.ts';
import { BetLogTree } from '../store/anchor-tree.ts';
import { TransparencyStore, type ReceiptFields } from '../store/transparency.ts';
import transparencyRoutes from '../api/routes/transparency.ts';
import errorsPlugin from '../api/plugins/errors.ts';
import type { TrustRoots } from '../transparency/trust-root.ts';

const TILES = 64;
const SIZE = TILES * 256;
const ROUNDS = 10;
const run = promisify(execFile);

// The client runs in a child process, so this process's CPU is the server's alone.
const CLIENT = `
const [base, rounds, ...paths] = process.argv.slice(1);
for (let r = 0; r < Number(rounds); r++)
  for (const p of paths) {
    const res = await fetch(base + p);
    if (res.status !== 200) throw new Error(p + ' answered ' + res.status);
    await res.arrayBuffer();
  }
`;

/** CPU per entry of writing into a fresh directory what `write` writes (this process only; the first round warms up). */
async function writeUsPerEntry(write: (store: TransparencyStore) => Promise<number>, redis: Redis, keys: Keys): Promise<number> {
  let used = 0;
  for (let r = 0; r < 3; r++) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-bench-tile-writes-'));
    try {
      const before = process.cpuUsage();
      await write(new TransparencyStore(redis, keys, dir));
      const cpu = process.cpuUsage(before);
      if (r > 0) used += cpu.user + cpu.system;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return used / (2 * SIZE);
}

async function cpuUsPerEntry(store: TransparencyStore, urls: string[]): Promise<number> {
  const app = Fastify();
  await app.register(errorsPlugin);
  await app.register(transparencyRoutes, { transparency: store, trustRoots: { current: async () => ({}) } as unknown as TrustRoots });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const client = (rounds: number) => run(process.execPath, ['--input-type=module', '-e', CLIENT, base, String(rounds), ...urls]);
  try {
    await client(1);
    const before = process.cpuUsage();
    await client(ROUNDS);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / (ROUNDS * urls.length * 256);
  } finally {
    await app.close();
  }
}

export async function benchTiles(): Promise<Record<string, number>> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = new Keys(`bench-tiles-${randomBytes(4).toString('hex')}`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-bench-tiles-'));
  try {
    // Entries about as long as a Dice entry's canonical JSON (700 bytes).
    const pipeline = redis.pipeline();
    const held = new Map<string, ReceiptFields>();
    const heldEntries = new Map<string, Buffer>();
    for (let i = 0; i < SIZE; i++) {
      const entry = JSON.stringify({ n: i, pad: 'x'.repeat(680), receiptId: `r${i}`, v: 1 });
      const leaf = createHash('sha256')
        .update(Buffer.from([0]))
        .update(entry)
        .digest('hex');
      pipeline.rpush(keys.betLog(), `${leaf}:r${i}`);
      // A body and a filled anchor about as long as a Dice receipt's (4.1 kB and 1.2 kB).
      const body = `{"id":"r${i}","pad":"${'y'.repeat(4000)}","anchor":{"status":"pending_commit","betLogEntryHash":"${leaf}"},"createdAt":"2026-01-01T00:00:00.000Z"}`;
      const anchor = JSON.stringify({ status: 'committed', betLogIndex: i, betLogProof: Array.from({ length: 16 }, () => leaf) });
      pipeline.hset(keys.receipt(`r${i}`), 'entry', entry, 'body', body, 'anchor', anchor);
      held.set(`r${i}`, { body: Buffer.from(body), anchor });
      heldEntries.set(`r${i}`, Buffer.from(entry));
    }
    await pipeline.exec();
    await (await BetLogTree.load(redis, keys)).extendTo(SIZE);
    await redis.hset(keys.anchor(), 'committedSize', String(SIZE));
    const stored = new TransparencyStore(redis, keys, dir);
    await stored.writeFullTiles(SIZE);
    await stored.writeReceiptBundles(SIZE);
    const index = (i: number) => String(i).padStart(3, '0');
    const bundles = Array.from({ length: TILES }, (_, i) => `/protocol/v1/bet-log/tile/entries/${index(i)}`);
    const hashes = Array.from({ length: TILES }, (_, i) => `/protocol/v1/bet-log/tile/0/${index(i)}`);
    const receipts = Array.from({ length: TILES }, (_, i) => `/protocol/v1/bet-log/receipts/${index(i)}`);
    const round = (x: number) => Math.round(x * 100) / 100;
    return {
      'tiles.cpuUsPerServedEntry': round(await cpuUsPerEntry(stored, bundles)),
      'tiles.cpuUsPerServedEntry.hashes': round(await cpuUsPerEntry(stored, hashes)),
      'tiles.cpuUsPerComputedEntry': round(await cpuUsPerEntry(new TransparencyStore(redis, keys), bundles)),
      'tiles.cpuUsPerServedReceipt': round(await cpuUsPerEntry(stored, receipts)),
      'tiles.cpuUsPerBuiltReceipt': round(await cpuUsPerEntry(new TransparencyStore(redis, keys), receipts)),
      'tiles.bundleWriteUsPerReceipt': round(await writeUsPerEntry((s) => s.writeReceiptBundles(SIZE), redis, keys)),
      'tiles.bundleWriteUsPerReceipt.kept': round(
        await writeUsPerEntry((s) => s.writeReceiptBundles(SIZE, (ids) => ids.map((id) => held.get(id))), redis, keys),
      ),
      'tiles.fullTilesWriteUsPerEntry': round(await writeUsPerEntry((s) => s.writeFullTiles(SIZE), redis, keys)),
      'tiles.fullTilesWriteUsPerEntry.kept': round(
        await writeUsPerEntry((s) => s.writeFullTiles(SIZE, (ids) => ids.map((id) => heldEntries.get(id))), redis, keys),
      ),
    };
  } finally {
    await removeKeys(redis, keys.prefix);
    await redis.quit();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [name, value] of Object.entries(await benchTiles())) console.log(`${name.padEnd(36)} ${value}`);
}
