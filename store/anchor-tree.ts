// The bet-log Merkle tree in Redis: one binary string of 32-byte node hashes per level, and its size.
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';
import { MerkleLog, type MerkleNode, type MerkleNodeStore } from '../protocol/merkle-log.ts';
import { HASH_LENGTH, EMPTY_ROOT, consistencyProof, largestPowerOfTwoBelow, nodeHash } from '../protocol/merkle.ts';
import { fromHex } from '../protocol/encoding.ts';
import { pipelineReplies } from './redis.ts';

/** A bet-log item that can never be anchored (the job that meets it fails as unrecoverable). */
export class InvalidEntryError extends Error {
  override readonly name = 'InvalidEntryError';
}

const ITEM_RE = /^([0-9a-f]{64}):([A-Za-z0-9_-]{1,128})$/;

/**
 * Parses a `P:betlog` item, `<leafHashHex>:<receiptId>`.
 * @throws {InvalidEntryError} when it is not of that form
 */
export function parseBetLogItem(item: string, index: number): { leafHex: string; receiptId: string } {
  const m = ITEM_RE.exec(item);
  if (!m) throw new InvalidEntryError(`bet-log entry ${index} is malformed: ${JSON.stringify(item.slice(0, 200))}`);
  return { leafHex: m[1]!, receiptId: m[2]! };
}

/** Node storage over per-level byte buffers, loaded from and written back to Redis by {@link BetLogTree}. */
class LevelStore implements MerkleNodeStore {
  readonly levels: Uint8Array[] = [];
  readonly counts: number[] = [];

  count(level: number): number {
    return this.counts[level] ?? 0;
  }

  get(level: number, index: number): Uint8Array | undefined {
    if (index < 0 || index >= this.count(level)) return undefined;
    return (this.levels[level] as Uint8Array).subarray(index * HASH_LENGTH, (index + 1) * HASH_LENGTH);
  }

  put(level: number, index: number, hash: Uint8Array): void {
    if (index !== this.count(level)) throw new RangeError(`node (${level}, ${index}) is not the next slot`);
    while (this.levels.length <= level) {
      this.levels.push(new Uint8Array(64 * HASH_LENGTH));
      this.counts.push(0);
    }
    let buf = this.levels[level] as Uint8Array;
    const end = (index + 1) * HASH_LENGTH;
    if (end > buf.length) {
      const grown = new Uint8Array(Math.max(end, buf.length * 2));
      grown.set(buf);
      buf = grown;
      this.levels[level] = buf;
    }
    buf.set(hash, index * HASH_LENGTH);
    this.counts[level] = index + 1;
  }

  load(level: number, bytes: Uint8Array, count: number): void {
    while (this.levels.length <= level) {
      this.levels.push(new Uint8Array(64 * HASH_LENGTH));
      this.counts.push(0);
    }
    const buf = new Uint8Array(Math.max(64 * HASH_LENGTH, count * HASH_LENGTH * 2));
    buf.set(bytes.subarray(0, count * HASH_LENGTH));
    this.levels[level] = buf;
    this.counts[level] = count;
  }
}

/**
 * The worker's copy of the bet log's RFC 6962 tree. Every node is a pure function of the log's leaves,
 * so extending it from the append-only `P:betlog` list and writing the new nodes at fixed offsets is
 * idempotent: a crash mid-write, or two workers, write the same bytes.
 */
export class BetLogTree {
  private constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    readonly log: MerkleLog,
  ) {}

  /**
   * Loads the persisted nodes of the persisted size.
   * @throws when the stored levels are shorter than the stored size needs
   */
  static async load(redis: Redis, keys: Keys): Promise<BetLogTree> {
    const size = Number((await redis.hget(keys.betLogTree(), 'size')) ?? 0);
    const store = new LevelStore();
    for (let level = 0; Math.floor(size / 2 ** level) > 0; level++) {
      const count = Math.floor(size / 2 ** level);
      const bytes = (await redis.getrangeBuffer(keys.betLogNodes(level), 0, count * HASH_LENGTH - 1)) ?? Buffer.alloc(0);
      if (bytes.length < count * HASH_LENGTH) throw new Error(`bet-log tree level ${level} holds ${bytes.length / HASH_LENGTH} nodes, expected ${count}`);
      store.load(level, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), count);
    }
    return new BetLogTree(redis, keys, new MerkleLog(store));
  }

  get size(): number {
    return this.log.size;
  }

  /**
   * Appends the log's items up to `size` and persists the new nodes with the new size.
   * @throws {InvalidEntryError} when an item is malformed (nothing is appended)
   */
  async extendTo(size: number): Promise<void> {
    const CHUNK = 10_000;
    while (this.log.size < size) {
      const start = this.log.size;
      const end = Math.min(size, start + CHUNK);
      const items = await this.redis.lrange(this.keys.betLog(), start, end - 1);
      if (items.length !== end - start) throw new Error(`bet log holds fewer than ${end} entries`);
      const leaves = items.map((item, i) => fromHex(parseBetLogItem(item, start + i).leafHex, HASH_LENGTH));
      await this.#persist(this.log.append(leaves));
    }
  }

  async #persist(created: MerkleNode[]): Promise<void> {
    // Nodes a batch creates are contiguous within each level, so each level is one SETRANGE.
    const byLevel = new Map<number, MerkleNode[]>();
    for (const node of created) {
      const list = byLevel.get(node.level) ?? [];
      list.push(node);
      byLevel.set(node.level, list);
    }
    const multi = this.redis.multi();
    for (const [level, nodes] of byLevel) {
      const bytes = Buffer.alloc(nodes.length * HASH_LENGTH);
      for (const [i, n] of nodes.entries()) bytes.set(n.hash, i * HASH_LENGTH);
      multi.setrange(this.keys.betLogNodes(level), (nodes[0] as MerkleNode).index * HASH_LENGTH, bytes);
    }
    multi.hset(this.keys.betLogTree(), 'size', String(this.log.size));
    await pipelineReplies(multi);
  }
}

/** Size of the persisted tree, for readers that are not the worker. */
export async function persistedTreeSize(redis: Redis, keys: Keys): Promise<number> {
  return Number((await redis.hget(keys.betLogTree(), 'size')) ?? 0);
}

/**
 * RFC 9162 consistency proof between two sizes of the persisted tree, read node by node from Redis
 * (O(log² n) reads), so the API needs no copy of the tree.
 * @throws {RangeError} unless `0 < size1 <= size2 <=` the persisted size
 */
export async function readConsistencyProof(redis: Redis, keys: Keys, size1: number, size2: number): Promise<Uint8Array[]> {
  const size = await persistedTreeSize(redis, keys);
  if (size2 > size) throw new RangeError(`size ${size2} exceeds the persisted tree (${size})`);
  // The proof's shape depends only on (size1, size2): record the ranges it needs, then fetch them.
  const ranges: [number, number][] = [];
  const placeholders = consistencyProof(size1, size2, (start, end) => {
    ranges.push([start, end]);
    const marker = new Uint8Array(HASH_LENGTH);
    new DataView(marker.buffer).setUint32(0, ranges.length - 1);
    return marker;
  });
  const hashes = await Promise.all(ranges.map(([s, e]) => rangeHash(redis, keys, s, e)));
  return placeholders.map((p) => hashes[new DataView(p.buffer, p.byteOffset).getUint32(0)] as Uint8Array);
}

/**
 * The RFC 6962 root of the first `size` entries, read from the persisted tree's nodes (O(log n) reads).
 * @throws {RangeError} unless `0 <= size <=` the persisted size
 */
export async function readTreeRoot(redis: Redis, keys: Keys, size: number): Promise<Uint8Array> {
  const persisted = await persistedTreeSize(redis, keys);
  if (size < 0 || size > persisted) throw new RangeError(`size ${size} exceeds the persisted tree (${persisted})`);
  return size === 0 ? EMPTY_ROOT : rangeHash(redis, keys, 0, size);
}

async function rangeHash(redis: Redis, keys: Keys, start: number, end: number): Promise<Uint8Array> {
  const width = end - start;
  if ((width & (width - 1)) === 0 && start % width === 0) {
    const level = Math.log2(width);
    const index = start / width;
    const bytes = await redis.getrangeBuffer(keys.betLogNodes(level), index * HASH_LENGTH, (index + 1) * HASH_LENGTH - 1);
    if (!bytes || bytes.length !== HASH_LENGTH) throw new Error(`bet-log tree has no node (${level}, ${index})`);
    return new Uint8Array(bytes);
  }
  const k = largestPowerOfTwoBelow(width);
  const [left, right] = await Promise.all([rangeHash(redis, keys, start, start + k), rangeHash(redis, keys, start + k, end)]);
  return nodeHash(left, right);
}
