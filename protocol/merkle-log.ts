/**
 * Append-only RFC 6962 log that keeps the hash of every complete, aligned subtree.
 *
 * Node `(level, index)` is the hash of leaves `[index·2^level, (index+1)·2^level)`; level 0 holds the
 * leaf hashes. A log of `n` leaves stores `floor(n / 2^level)` nodes at each level (under 2n in all), so
 * the root, inclusion proofs and consistency proofs of every historical size `≤ n` take O(log n) node
 * lookups: a range that is not a complete subtree is only ever a right edge, hashed from stored nodes.
 * @module
 */
import {
  EMPTY_ROOT,
  HASH_LENGTH,
  consistencyProof as consistencyPath,
  inclusionProof as inclusionPath,
  isHash,
  largestPowerOfTwoBelow,
  nodeHash,
} from './merkle.ts';
import { bytesEqual } from './encoding.ts';

/** One stored hash: the complete subtree of `2^level` leaves starting at leaf `index·2^level`. */
export interface MerkleNode {
  readonly level: number;
  readonly index: number;
  readonly hash: Uint8Array;
}

/**
 * Synchronous node storage behind a {@link MerkleLog}. Nodes are immutable once written and, per level,
 * written in index order without gaps. The log never mutates a hash it passes to `put` or gets back.
 * One log writes to a store; a log whose `put` threw must be reopened from the store.
 */
export interface MerkleNodeStore {
  /** Number of nodes stored at `level`; `count(0)` is the log size. */
  count(level: number): number;
  /** The stored hash, or undefined when `index >= count(level)`. */
  get(level: number, index: number): Uint8Array | undefined;
  /** Stores node `(level, index)`; `index` always equals `count(level)`. */
  put(level: number, index: number, hash: Uint8Array): void;
}

const INITIAL_SLOTS = 64;

/** In-memory {@link MerkleNodeStore}: one growing `Uint8Array` of 32-byte slots per level. */
export class MemoryNodeStore implements MerkleNodeStore {
  #levels: Uint8Array[] = [];
  #counts: number[] = [];

  count(level: number): number {
    return this.#counts[level] ?? 0;
  }

  get(level: number, index: number): Uint8Array | undefined {
    const buf = this.#levels[level];
    if (buf === undefined || !Number.isInteger(index) || index < 0 || index >= this.count(level)) return undefined;
    return buf.slice(index * HASH_LENGTH, (index + 1) * HASH_LENGTH);
  }

  /** @throws {RangeError} when `index` is not the next slot of `level` or `hash` is not 32 bytes */
  put(level: number, index: number, hash: Uint8Array): void {
    if (index !== this.count(level)) throw new RangeError(`node (${level}, ${index}) is not the next slot`);
    this.#write(level, index, hash);
    this.#counts[level] = index + 1;
  }

  /** Bytes held by the level buffers, including unused capacity. */
  get byteLength(): number {
    let total = 0;
    for (const buf of this.#levels) total += buf.length;
    return total;
  }

  #write(level: number, index: number, hash: Uint8Array): void {
    if (!isHash(hash)) throw new RangeError('node hash must be 32 bytes');
    if (!Number.isSafeInteger(level) || level < 0 || level > 63) throw new RangeError('level out of range');
    while (this.#levels.length <= level) {
      this.#levels.push(new Uint8Array(INITIAL_SLOTS * HASH_LENGTH));
      this.#counts.push(0);
    }
    let buf = this.#levels[level] as Uint8Array;
    const end = (index + 1) * HASH_LENGTH;
    if (end > buf.length) {
      let capacity = buf.length;
      while (capacity < end) capacity *= 2;
      const grown = new Uint8Array(capacity);
      grown.set(buf);
      buf = grown;
      this.#levels[level] = buf;
    }
    buf.set(hash, index * HASH_LENGTH);
  }

  /**
   * Builds a store from persisted nodes in any order. Identical duplicates are tolerated.
   * @throws {RangeError} when a node is malformed, two nodes conflict, or the set is not exactly the
   *   complete subtrees of one log size
   * @example MemoryNodeStore.fromNodes(log.nodes())
   */
  static fromNodes(nodes: Iterable<MerkleNode>): MemoryNodeStore {
    const store = new MemoryNodeStore();
    const present: Uint8Array[] = [];
    const highest: number[] = [];
    for (const node of nodes) {
      const { level, index, hash } = node;
      if (!Number.isSafeInteger(level) || level < 0 || level > 63) throw new RangeError('node level out of range');
      if (!Number.isSafeInteger(index) || index < 0) throw new RangeError('node index out of range');
      while (present.length <= level) {
        present.push(new Uint8Array(INITIAL_SLOTS));
        highest.push(-1);
      }
      let seen = present[level] as Uint8Array;
      if (index >= seen.length) {
        let capacity = seen.length;
        while (capacity <= index) capacity *= 2;
        const grown = new Uint8Array(capacity);
        grown.set(seen);
        seen = grown;
        present[level] = seen;
      }
      if (seen[index] === 1) {
        const existing = store.#peek(level, index);
        if (!isHash(hash) || !bytesEqual(existing, hash)) throw new RangeError(`conflicting node (${level}, ${index})`);
        continue;
      }
      // Counts stay 0 until the whole set is checked, so a failed restore exposes nothing.
      store.#write(level, index, hash);
      seen[index] = 1;
      if (index > (highest[level] as number)) highest[level] = index;
    }
    const size = (highest[0] ?? -1) + 1;
    for (let level = 0; level < present.length; level++) {
      const expected = Math.floor(size / 2 ** level);
      if ((highest[level] as number) + 1 !== expected) {
        throw new RangeError(`level ${level} holds ${(highest[level] as number) + 1} nodes, expected ${expected}`);
      }
      const seen = present[level] as Uint8Array;
      for (let i = 0; i < expected; i++) if (seen[i] !== 1) throw new RangeError(`missing node (${level}, ${i})`);
      store.#counts[level] = expected;
    }
    if (Math.floor(size / 2 ** present.length) > 0) throw new RangeError(`missing node (${present.length}, 0)`);
    return store;
  }

  #peek(level: number, index: number): Uint8Array {
    return (this.#levels[level] as Uint8Array).subarray(index * HASH_LENGTH, (index + 1) * HASH_LENGTH);
  }
}

/** Options for {@link MerkleLog.fromNodes}. */
export interface RestoreOptions {
  /** Rehash every parent from its children (O(n) hashes). Default true. */
  readonly verify?: boolean;
}

/**
 * Append-only RFC 6962 log over leaf hashes, answering for every historical size.
 * @example
 * const log = new MerkleLog();
 * const created = log.append([leafHash(utf8('a')), leafHash(utf8('b'))]); // persist these
 * const proof = log.inclusionProof(0, 2);
 * verifyInclusion(leafHash(utf8('a')), 0, 2, proof, log.root(2)); // { ok: true }
 */
export class MerkleLog {
  readonly #store: MerkleNodeStore;
  #size: number;
  // Newest even-index node per level: the only left siblings an append pairs with, kept to spare store reads.
  readonly #pending: (Uint8Array | undefined)[] = [];

  /**
   * Opens a log over `store`, whose size is `store.count(0)`.
   * @throws {RangeError} when the per-level node counts do not match that size
   */
  constructor(store: MerkleNodeStore = new MemoryNodeStore()) {
    const size = store.count(0);
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError('store has an invalid leaf count');
    for (let level = 1; level <= 64; level++) {
      const expected = Math.floor(size / 2 ** level);
      if (store.count(level) !== expected) {
        throw new RangeError(`store level ${level} holds ${store.count(level)} nodes, expected ${expected}`);
      }
      if (expected === 0) break;
    }
    this.#store = store;
    this.#size = size;
  }

  /**
   * Rebuilds a log from nodes that earlier `append` calls returned (any order).
   * @throws {RangeError} when the nodes are not exactly one log's complete subtrees, or (with `verify`)
   *   a parent is not the hash of its children
   * @example MerkleLog.fromNodes(persistedNodes)
   */
  static fromNodes(nodes: Iterable<MerkleNode>, options: RestoreOptions = {}): MerkleLog {
    const log = new MerkleLog(MemoryNodeStore.fromNodes(nodes));
    if (options.verify ?? true) log.verifyNodes();
    return log;
  }

  /** Number of leaves. */
  get size(): number {
    return this.#size;
  }

  /**
   * Appends leaf hashes; returns every node this created (leaves included), for persistence. The
   * returned hashes are shared with the store: do not mutate them.
   * @throws {TypeError} when a leaf hash is not 32 bytes (then nothing is appended)
   * @example log.append([leafHash(entryBytes)]) // [{ level: 0, index: n, hash }, ...]
   */
  append(leafHashes: readonly Uint8Array[]): MerkleNode[] {
    for (const h of leafHashes) if (!isHash(h)) throw new TypeError('leaf hashes must be 32 bytes');
    if (this.#size + leafHashes.length > Number.MAX_SAFE_INTEGER) throw new RangeError('log is full');
    const created: MerkleNode[] = [];
    for (const leaf of leafHashes) {
      let index = this.#size;
      let level = 0;
      let hash: Uint8Array = leaf.slice();
      for (;;) {
        this.#store.put(level, index, hash);
        created.push({ level, index, hash });
        if (index % 2 === 0) {
          this.#pending[level] = hash;
          break;
        }
        hash = nodeHash(this.#pending[level] ?? this.#node(level, index - 1), hash);
        level++;
        index = (index - 1) / 2;
      }
      this.#size++;
    }
    return created;
  }

  /**
   * The leaf hash at `index`.
   * @throws {RangeError} when `index >= size`
   */
  leafHash(index: number): Uint8Array {
    this.#checkRange(index, index + 1);
    return this.#node(0, index);
  }

  /**
   * Root of the log as it was at `size` leaves (the empty root for 0).
   * @throws {RangeError} when `size` exceeds the current size
   * @example log.root(0) // EMPTY_ROOT
   */
  root(size: number = this.#size): Uint8Array {
    this.#checkSize(size);
    return size === 0 ? EMPTY_ROOT.slice() : this.#hashRange(0, size);
  }

  /**
   * RFC 6962 MTH of leaves `[start, end)`. O(log n) lookups for ranges of the RFC shape (start aligned
   * to the largest power of two below the width); correct, but slower, for any other range.
   * @throws {RangeError} unless `0 <= start < end <= size`
   */
  subtreeHash(start: number, end: number): Uint8Array {
    this.#checkRange(start, end);
    return this.#hashRange(start, end);
  }

  /**
   * RFC 9162 inclusion proof of leaf `index` in the tree of `size` leaves, bottom-up.
   * @throws {RangeError} unless `index < size <= this.size`
   * @example log.inclusionProof(3, 7)
   */
  inclusionProof(index: number, size: number = this.#size): Uint8Array[] {
    this.#checkSize(size);
    return inclusionPath(index, size, (s, e) => this.#hashRange(s, e));
  }

  /**
   * RFC 9162 consistency proof from `size1` to `size2` leaves, bottom-up (empty when equal).
   * @throws {RangeError} unless `0 < size1 <= size2 <= this.size`
   * @example log.consistencyProof(3, 7)
   */
  consistencyProof(size1: number, size2: number = this.#size): Uint8Array[] {
    this.#checkSize(size2);
    return consistencyPath(size1, size2, (s, e) => this.#hashRange(s, e));
  }

  /** Every stored node, level by level. */
  *nodes(): Generator<MerkleNode> {
    for (let level = 0; Math.floor(this.#size / 2 ** level) > 0; level++) {
      const count = Math.floor(this.#size / 2 ** level);
      for (let index = 0; index < count; index++) yield { level, index, hash: this.#node(level, index) };
    }
  }

  /**
   * Rehashes every stored parent from its children.
   * @throws {Error} naming the first node that does not match
   */
  verifyNodes(): void {
    for (let level = 1; Math.floor(this.#size / 2 ** level) > 0; level++) {
      const count = Math.floor(this.#size / 2 ** level);
      for (let index = 0; index < count; index++) {
        const expected = nodeHash(this.#node(level - 1, 2 * index), this.#node(level - 1, 2 * index + 1));
        if (!bytesEqual(expected, this.#node(level, index))) throw new Error(`node (${level}, ${index}) does not match its children`);
      }
    }
  }

  #node(level: number, index: number): Uint8Array {
    const hash = this.#store.get(level, index);
    if (!isHash(hash)) throw new Error(`merkle store has no node (${level}, ${index})`);
    return hash;
  }

  #hashRange(start: number, end: number): Uint8Array {
    const width = end - start;
    const level = exactLog2(width);
    if (level >= 0 && start % width === 0) return this.#node(level, start / width);
    if (width === 1) return this.#node(0, start);
    const k = largestPowerOfTwoBelow(width);
    return nodeHash(this.#hashRange(start, start + k), this.#hashRange(start + k, end));
  }

  #checkSize(size: number): void {
    if (!Number.isSafeInteger(size) || size < 0 || size > this.#size) {
      throw new RangeError(`size ${size} is not within [0, ${this.#size}]`);
    }
  }

  #checkRange(start: number, end: number): void {
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || start >= end || end > this.#size) {
      throw new RangeError(`range [${start}, ${end}) is not within [0, ${this.#size})`);
    }
  }
}

/** log2(n) when n is a power of two, else -1. */
function exactLog2(n: number): number {
  let level = 0;
  let p = 1;
  while (p < n) {
    p *= 2;
    level++;
  }
  return p === n ? level : -1;
}
