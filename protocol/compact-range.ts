/**
 * The compact range `[0, size)` of an RFC 6962 log: the roots of its perfect subtrees, largest first
 * (at most 64 hashes). Appending leaves and taking the root cost O(log n), so a verifier that keeps it
 * extends a verified log by what is new and checks every later root against it: any tree whose root
 * it reproduces is consistent with the one it verified (no consistency proof to trust).
 * @module
 */
import { EMPTY_ROOT, HASH_LENGTH, isHash, nodeHash } from './merkle.ts';
import { fromHex, toHex } from './encoding.ts';
import { frontierOf } from './tlog-tiles.ts';

/** The saved form: the size and the subtree roots, hex, largest first. */
export interface CompactRangeJson {
  size: number;
  hashes: string[];
}

export class CompactRange {
  #size: number;
  // Perfect subtree roots with their heights, heights strictly decreasing.
  readonly #hashes: Uint8Array[];
  readonly #heights: number[];

  private constructor(size: number, hashes: Uint8Array[]) {
    this.#size = size;
    this.#hashes = hashes;
    this.#heights = frontierOf(size).map((s) => s.height);
  }

  static empty(): CompactRange {
    return new CompactRange(0, []);
  }

  /**
   * A range from its subtree roots (largest first), e.g. read from tiles or a saved state.
   * @throws {RangeError} when the number of roots does not match `size`
   */
  static fromRoots(size: number, roots: readonly Uint8Array[]): CompactRange {
    const expected = frontierOf(size).length;
    if (roots.length !== expected || !roots.every(isHash)) throw new RangeError(`a range of ${size} leaves has ${expected} subtree roots, got ${roots.length}`);
    return new CompactRange(
      size,
      roots.map((r) => r.slice()),
    );
  }

  /** @throws {TypeError|RangeError} when the JSON is malformed */
  static fromJSON(json: unknown): CompactRange {
    const o = json as CompactRangeJson;
    if (typeof o !== 'object' || o === null || !Number.isSafeInteger(o.size) || o.size < 0 || !Array.isArray(o.hashes)) {
      throw new TypeError('a compact range is { size, hashes }');
    }
    return CompactRange.fromRoots(
      o.size,
      o.hashes.map((h) => fromHex(h, HASH_LENGTH)),
    );
  }

  toJSON(): CompactRangeJson {
    return { size: this.#size, hashes: this.#hashes.map(toHex) };
  }

  get size(): number {
    return this.#size;
  }

  /** Appends one leaf hash. */
  append(leaf: Uint8Array): void {
    if (!isHash(leaf)) throw new TypeError('leaf hashes must be 32 bytes');
    let hash = leaf;
    let height = 0;
    while (this.#heights.length > 0 && this.#heights[this.#heights.length - 1] === height) {
      this.#heights.pop();
      hash = nodeHash(this.#hashes.pop() as Uint8Array, hash);
      height++;
    }
    this.#hashes.push(hash === leaf ? leaf.slice() : hash);
    this.#heights.push(height);
    this.#size++;
  }

  /** RFC 6962 root of the range (the empty root for size 0). */
  root(): Uint8Array {
    if (this.#hashes.length === 0) return EMPTY_ROOT.slice();
    let root = this.#hashes[this.#hashes.length - 1] as Uint8Array;
    for (let i = this.#hashes.length - 2; i >= 0; i--) root = nodeHash(this.#hashes[i] as Uint8Array, root);
    return root.slice();
  }

  clone(): CompactRange {
    return new CompactRange(
      this.#size,
      this.#hashes.map((h) => h.slice()),
    );
  }
}
