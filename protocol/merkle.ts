/**
 * RFC 6962 / RFC 9162 Merkle tree hashing, proof generation and proof verification.
 *
 * - leaf hash: `sha256(0x00 ‖ data)`
 * - node hash: `sha256(0x01 ‖ left ‖ right)`
 * - empty tree: `sha256("")`
 * - shape: the left subtree of `n > 1` leaves holds the largest power of two `k < n` leaves.
 *
 * Proofs are lists of 32-byte hashes, bottom-up. Verification follows RFC 9162 §2.1.3.2 and
 * §2.1.4.2 and derives every left/right decision from (index, size); a proof never carries
 * direction flags.
 * @module
 */
import { sha256, sha256Hex, sha256Utf8, sha256Utf8Hex } from './crypto.ts';
import { bytesEqual, fromHex, toHex } from './encoding.ts';

/** Byte length of every hash in a tree or proof. */
export const HASH_LENGTH = 32;

/** Longest proof accepted from outside: a u64-sized tree needs at most 64 inclusion and 65 consistency hashes. */
export const MAX_PROOF_LENGTH = 66;

const LEAF_PREFIX = 0x00;
const NODE_PREFIX = 0x01;
const U64_MAX = (1n << 64n) - 1n;

/** Root of the empty tree, `sha256("")`. Treat as read-only. */
export const EMPTY_ROOT: Uint8Array = sha256(new Uint8Array(0));

/** Outcome of a proof verification; `reason` says which check failed. */
export type VerifyResult = { ok: true } | { ok: false; reason: string };

/** Returns the hash of the leaves `[start, end)` of some fixed tree, `0 <= start < end`. */
export type SubtreeHash = (start: number, end: number) => Uint8Array;

const fail = (reason: string): VerifyResult => ({ ok: false, reason });
const OK: VerifyResult = Object.freeze({ ok: true });

let leafInput = Uint8Array.of(LEAF_PREFIX);

// One reused input buffer, grown to the longest entry seen (an entry is under 64 KiB): hashing is synchronous and
// gives a fresh digest, and a bulk audit hashes two entries a receipt.
function leafInputOf(data: Uint8Array): Uint8Array {
  if (leafInput.length < 1 + data.length) {
    leafInput = new Uint8Array(1 + data.length);
    leafInput[0] = LEAF_PREFIX;
  }
  leafInput.set(data, 1);
  return leafInput.subarray(0, 1 + data.length);
}

/**
 * RFC 6962 leaf hash, `sha256(0x00 ‖ data)`.
 * @example leafHash(utf8('entry')) // 32 bytes
 */
export const leafHash = (data: Uint8Array): Uint8Array => sha256(leafInputOf(data));

/** {@link leafHash}, lowercase hex. */
export const leafHashHex = (data: Uint8Array): string => sha256Hex(leafInputOf(data));

/**
 * RFC 9162 leaf hash of a text's UTF-8 bytes (a bet-log entry): the 0x00 prefix is the UTF-8 of U+0000, so the
 * text is hashed as one string, with no encoded copy.
 * @example leafHashOfText('entry') // leafHash(utf8('entry'))
 */
export const leafHashOfText = (text: string): Uint8Array => sha256Utf8(`\u0000${text}`);

/** {@link leafHashOfText}, lowercase hex. */
export const leafHashHexOfText = (text: string): string => sha256Utf8Hex(`\u0000${text}`);

/**
 * RFC 6962 interior node hash, `sha256(0x01 ‖ left ‖ right)`.
 * @throws {TypeError} when either child is not 32 bytes
 * @example nodeHash(leafHash(a), leafHash(b))
 */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  if (!isHash(left) || !isHash(right)) throw new TypeError('child hashes must be 32 bytes');
  // One reused input buffer: sha256 is synchronous and returns a fresh array, and this is the hot path.
  nodeInput.set(left, 1);
  nodeInput.set(right, 1 + HASH_LENGTH);
  return sha256(nodeInput);
}

/**
 * {@link nodeHash}, lowercase hex.
 * @throws {TypeError} when either child is not 32 bytes
 */
export function nodeHashHex(left: Uint8Array, right: Uint8Array): string {
  if (!isHash(left) || !isHash(right)) throw new TypeError('child hashes must be 32 bytes');
  nodeInput.set(left, 1);
  nodeInput.set(right, 1 + HASH_LENGTH);
  return sha256Hex(nodeInput);
}

const nodeInput = new Uint8Array(1 + 2 * HASH_LENGTH);
nodeInput[0] = NODE_PREFIX;

/** True for a `Uint8Array` of exactly 32 bytes. */
export const isHash = (value: unknown): value is Uint8Array => value instanceof Uint8Array && value.length === HASH_LENGTH;

/**
 * Largest power of two strictly below `n` (the RFC 6962 split point `k`).
 * @throws {RangeError} when `n < 2` or not a safe integer
 * @example largestPowerOfTwoBelow(5) // 4
 */
export function largestPowerOfTwoBelow(n: number): number {
  if (!Number.isSafeInteger(n) || n < 2) throw new RangeError('n must be a safe integer >= 2');
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * RFC 6962 Merkle tree hash (MTH) of a list of leaf hashes, in O(n) time and O(log n) memory.
 * @throws {TypeError} when a leaf hash is not 32 bytes
 * @example rootFromLeafHashes([]) // EMPTY_ROOT
 */
export function rootFromLeafHashes(leafHashes: readonly Uint8Array[]): Uint8Array {
  if (leafHashes.length === 0) return EMPTY_ROOT.slice();
  // A stack of perfect subtrees, heights strictly decreasing; folding it right-to-left gives the
  // RFC shape because each left subtree is the largest power of two.
  const hashes: Uint8Array[] = [];
  const heights: number[] = [];
  for (const leaf of leafHashes) {
    if (!isHash(leaf)) throw new TypeError('leaf hashes must be 32 bytes');
    let hash = leaf;
    let height = 0;
    while (heights.length > 0 && heights[heights.length - 1] === height) {
      heights.pop();
      hash = nodeHash(hashes.pop() as Uint8Array, hash);
      height++;
    }
    hashes.push(hash);
    heights.push(height);
  }
  let root = hashes.pop() as Uint8Array;
  while (hashes.length > 0) root = nodeHash(hashes.pop() as Uint8Array, root);
  return root.slice();
}

/**
 * A {@link SubtreeHash} over an in-memory list of leaf hashes (recomputes each range; for small trees).
 * @throws {TypeError} when a leaf hash is not 32 bytes (on use)
 * @example inclusionProof(2, 5, subtreeFromLeafHashes(leaves))
 */
export function subtreeFromLeafHashes(leafHashes: readonly Uint8Array[]): SubtreeHash {
  return (start, end) => {
    assertRange(start, end, leafHashes.length);
    return rootFromLeafHashes(leafHashes.slice(start, end));
  };
}

function assertSafeIndex(value: number, name: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative safe integer`);
}

function assertRange(start: number, end: number, size: number): void {
  assertSafeIndex(start, 'start');
  assertSafeIndex(end, 'end');
  if (start >= end || end > size) throw new RangeError(`range [${start}, ${end}) is not within [0, ${size})`);
}

/**
 * RFC 9162 §2.1.3.1 inclusion proof PATH(index, D[0:size]), bottom-up.
 * @param subtree returns MTH(D[start:end]) of the tree the proof is for
 * @throws {RangeError} when `index >= size` or either is not a non-negative safe integer
 * @example inclusionProof(0, 1, subtree) // []
 */
export function inclusionProof(index: number, size: number, subtree: SubtreeHash): Uint8Array[] {
  assertSafeIndex(index, 'index');
  assertSafeIndex(size, 'size');
  if (index >= size) throw new RangeError(`index ${index} is not below size ${size}`);
  const topDown: Uint8Array[] = [];
  let lo = 0;
  let n = size;
  let m = index;
  while (n > 1) {
    const k = largestPowerOfTwoBelow(n);
    if (m < k) {
      topDown.push(subtree(lo + k, lo + n));
      n = k;
    } else {
      topDown.push(subtree(lo, lo + k));
      m -= k;
      lo += k;
      n -= k;
    }
  }
  return topDown.reverse();
}

/**
 * RFC 9162 §2.1.4.1 consistency proof PROOF(size1, D[0:size2]) = SUBPROOF(size1, D[0:size2], true), bottom-up.
 * Equal sizes give the empty proof.
 * @param subtree returns MTH(D[start:end]) of the tree of size `size2`
 * @throws {RangeError} when `size1` is 0, `size1 > size2`, or either is not a non-negative safe integer
 * @example consistencyProof(3, 7, subtree)
 */
export function consistencyProof(size1: number, size2: number, subtree: SubtreeHash): Uint8Array[] {
  assertSafeIndex(size1, 'size1');
  assertSafeIndex(size2, 'size2');
  if (size1 === 0) throw new RangeError('a consistency proof from the empty tree is meaningless');
  if (size1 > size2) throw new RangeError(`size1 ${size1} exceeds size2 ${size2}`);
  const topDown: Uint8Array[] = [];
  let lo = 0;
  let n = size2;
  let m = size1;
  let complete = true;
  while (m !== n) {
    const k = largestPowerOfTwoBelow(n);
    if (m <= k) {
      topDown.push(subtree(lo + k, lo + n));
      n = k;
    } else {
      topDown.push(subtree(lo, lo + k));
      m -= k;
      lo += k;
      n -= k;
      complete = false;
    }
  }
  if (!complete) topDown.push(subtree(lo, lo + n));
  return topDown.reverse();
}

/** Parses an attacker-supplied tree index or size as a u64, or returns why it is not one. */
function toU64(value: unknown, name: string): bigint | string {
  if (typeof value === 'bigint') {
    return value >= 0n && value <= U64_MAX ? value : `${name} is not a u64`;
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  return `${name} is not a non-negative integer`;
}

function checkProofShape(proof: unknown): readonly Uint8Array[] | string {
  if (!Array.isArray(proof)) return 'proof is not an array';
  if (proof.length > MAX_PROOF_LENGTH) return 'proof is too long';
  for (const p of proof as unknown[]) if (!isHash(p)) return 'proof element is not 32 bytes';
  return proof as Uint8Array[];
}

/**
 * RFC 9162 §2.1.3.2: recomputes the root that `proof` yields for `leafHash` at `index` in a tree of `size`.
 * @throws {RangeError} when the inputs are malformed or the proof has the wrong length for (index, size)
 * @example bytesEqual(rootFromInclusionProof(h, 0n, 1n, []), h) // true
 */
export function rootFromInclusionProof(leafHash: Uint8Array, index: number | bigint, size: number | bigint, proof: readonly Uint8Array[]): Uint8Array {
  const r = computeInclusionRoot(leafHash, index, size, proof);
  if (typeof r === 'string') throw new RangeError(r);
  return r;
}

function computeInclusionRoot(leaf: unknown, index: unknown, size: unknown, proof: unknown): Uint8Array | string {
  const fnStart = toU64(index, 'index');
  if (typeof fnStart === 'string') return fnStart;
  const treeSize = toU64(size, 'size');
  if (typeof treeSize === 'string') return treeSize;
  if (fnStart >= treeSize) return `index ${fnStart} is not below size ${treeSize}`;
  if (!isHash(leaf)) return 'leaf hash is not 32 bytes';
  const path = checkProofShape(proof);
  if (typeof path === 'string') return path;
  const walk = inclusionWalk(fnStart, treeSize, leaf, path, nodeHash);
  return walk.ok ? walk.root : walk.reason;
}

/**
 * The RFC 9162 §2.1.3.2 walk from a leaf to the root, over any form of hash (bytes, or hex for a verifier
 * that memoizes nodes shared by many proofs); `index < size` and the proof's shape are checked by the caller.
 * @returns the root, or why the proof has the wrong length for (index, size)
 */
export function inclusionWalk<T>(
  index: bigint,
  size: bigint,
  leaf: T,
  proof: readonly T[],
  node: (left: T, right: T, level: number) => T,
): { ok: true; root: T } | { ok: false; reason: string } {
  let fn = index;
  let sn = size - 1n;
  let r = leaf;
  for (let level = 0; level < proof.length; level++) {
    const p = proof[level] as T;
    if (sn === 0n) return { ok: false, reason: 'proof is too long for (index, size)' };
    if ((fn & 1n) === 1n || fn === sn) {
      r = node(p, r, level);
      while ((fn & 1n) === 0n && fn !== 0n) {
        fn >>= 1n;
        sn >>= 1n;
      }
    } else {
      r = node(r, p, level);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  if (sn !== 0n) return { ok: false, reason: 'proof is too short for (index, size)' };
  return { ok: true, root: r };
}

/**
 * Verifies an RFC 9162 §2.1.3.2 inclusion proof of `leafHash` at `index` in the tree of `size` with `root`.
 * Indices and sizes may be bigints up to 2^64 − 1; all inputs are checked, nothing throws.
 * @example verifyInclusion(leafHash(d), 0, 1, [], leafHash(d)) // { ok: true }
 */
export function verifyInclusion(
  leafHash: Uint8Array,
  index: number | bigint,
  size: number | bigint,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): VerifyResult {
  const computed = computeInclusionRoot(leafHash, index, size, proof);
  if (typeof computed === 'string') return fail(computed);
  if (!isHash(root)) return fail('root is not 32 bytes');
  return bytesEqual(computed, root) ? OK : fail('computed root does not match');
}

/**
 * Boolean form of {@link verifyInclusion}.
 * @example isInclusionValid(leafHash(d), 0, 1, [], leafHash(d)) // true
 */
export const isInclusionValid = (
  leafHash: Uint8Array,
  index: number | bigint,
  size: number | bigint,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean => verifyInclusion(leafHash, index, size, proof, root).ok;

/**
 * Verifies an RFC 9162 §2.1.4.2 consistency proof that the tree of `size2` with `root2` extends the tree
 * of `size1` with `root1`. Equal sizes need an empty proof and equal roots (the empty root for size 0);
 * a proof from size 0 to a larger size is rejected as meaningless. Nothing throws.
 * @example verifyConsistency(1, 1, [], r, r) // { ok: true }
 */
export function verifyConsistency(
  size1: number | bigint,
  size2: number | bigint,
  proof: readonly Uint8Array[],
  root1: Uint8Array,
  root2: Uint8Array,
): VerifyResult {
  const first = toU64(size1, 'size1');
  if (typeof first === 'string') return fail(first);
  const second = toU64(size2, 'size2');
  if (typeof second === 'string') return fail(second);
  const path = checkProofShape(proof);
  if (typeof path === 'string') return fail(path);
  if (!(root1 instanceof Uint8Array) || !(root2 instanceof Uint8Array)) return fail('roots must be byte arrays');
  if (first > second) return fail(`size1 ${first} exceeds size2 ${second}`);
  if (first === second) {
    if (path.length !== 0) return fail('proof must be empty when the sizes are equal');
    // The root of size 0 is known, so a claimed one that differs is not the empty tree.
    if (first === 0n && !bytesEqual(root1, EMPTY_ROOT)) return fail('root of the empty tree is not sha256("")');
    return bytesEqual(root1, root2) ? OK : fail('roots differ for equal sizes');
  }
  if (first === 0n) return fail('a consistency proof from the empty tree is meaningless');
  if (path.length === 0) return fail('proof is empty');
  if (!isHash(root1) || !isHash(root2)) return fail('roots must be 32 bytes');

  const chain = isPowerOfTwo(first) ? [root1, ...path] : path;
  let fn = first - 1n;
  let sn = second - 1n;
  while ((fn & 1n) === 1n) {
    fn >>= 1n;
    sn >>= 1n;
  }
  let fr = chain[0] as Uint8Array;
  let sr = fr;
  for (let i = 1; i < chain.length; i++) {
    const c = chain[i] as Uint8Array;
    if (sn === 0n) return fail('proof is too long for (size1, size2)');
    if ((fn & 1n) === 1n || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while ((fn & 1n) === 0n && fn !== 0n) {
        fn >>= 1n;
        sn >>= 1n;
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  if (sn !== 0n) return fail('proof is too short for (size1, size2)');
  if (!bytesEqual(fr, root1)) return fail('computed root1 does not match');
  if (!bytesEqual(sr, root2)) return fail('computed root2 does not match');
  return OK;
}

/**
 * Boolean form of {@link verifyConsistency}.
 * @example isConsistencyValid(1, 1, [], r, r) // true
 */
export const isConsistencyValid = (
  size1: number | bigint,
  size2: number | bigint,
  proof: readonly Uint8Array[],
  root1: Uint8Array,
  root2: Uint8Array,
): boolean => verifyConsistency(size1, size2, proof, root1, root2).ok;

const isPowerOfTwo = (n: bigint): boolean => n > 0n && (n & (n - 1n)) === 0n;

/**
 * Encodes a proof as lowercase hex strings, bottom-up (the wire form of `betLogProof`).
 * @example proofToHex([leafHash(d)]) // ['…64 hex chars…']
 */
export const proofToHex = (proof: readonly Uint8Array[]): string[] => proof.map((p) => toHex(p));

/**
 * Parses an attacker-supplied hex proof.
 * @throws {TypeError} when it is not an array of at most `maxLength` 32-byte lowercase hex strings
 * @example proofFromHex(proofToHex(proof))
 */
export function proofFromHex(value: unknown, maxLength: number = MAX_PROOF_LENGTH): Uint8Array[] {
  if (!Array.isArray(value)) throw new TypeError('proof must be an array');
  if (value.length > maxLength) throw new TypeError(`proof has more than ${maxLength} hashes`);
  return (value as unknown[]).map((h) => {
    if (typeof h !== 'string') throw new TypeError('proof hashes must be hex strings');
    return fromHex(h, HASH_LENGTH);
  });
}
