/**
 * Merkle-sum tree over wallet liabilities: the state root, a proof of liabilities (design §4).
 *
 * Pinned byte format (`‖` is concatenation; integers are unsigned big-endian):
 *
 * | value     | definition                                                        | hash input |
 * |-----------|-------------------------------------------------------------------|------------|
 * | id        | `sha256(wallet(32) ‖ salt(32))`, wallet = 32 public-key bytes     | 64 bytes   |
 * | leaf hash | `sha256(0x00 ‖ id(32) ‖ u64be(liability))`                        | 41 bytes   |
 * | node hash | `sha256(0x01 ‖ u64be(sumL) ‖ u64be(sumR) ‖ hashL(32) ‖ hashR(32))` | 81 bytes   |
 *
 * - A leaf's sum is its liability; a node's sum is `sumL + sumR`. Every sum is in `[0, 2^64)`;
 *   building a tree whose total overflows u64 throws.
 * - Leaves are sorted by `id` ascending (bytewise, unsigned) and ids are unique.
 * - Shape is RFC 6962: the left subtree of `n > 1` leaves holds the largest power of two `k < n`
 *   leaves, the right one the remaining `n − k`.
 * - The root sum is `totalLiabilities`. The empty tree has root `sha256("")`, total 0, no proofs;
 *   a one-leaf tree has the leaf hash as root and the liability as total.
 * - A proof lists the siblings on the path from the leaf, bottom-up, each as `{ hash, sum }`, with the
 *   leaf `index` (in sorted order) and the leaf `count`. Whether a sibling is on the left or right
 *   follows from `(index, count)` exactly as in RFC 9162 §2.1.3.2; the proof carries no flags.
 * - JSON form ({@link StateProofJson}): `{ id, liability, index, count, proof: [{ hash, sum }] }` with
 *   hashes and id as 64 lowercase hex characters, liability and sums as decimal strings (no sign, no
 *   leading zeros), index and count as JSON integers.
 * @module
 */
import { sha256 } from './crypto.ts';
import { bytesEqual, fromHex, toHex } from './encoding.ts';
import { EMPTY_ROOT, HASH_LENGTH, MAX_PROOF_LENGTH, isHash, type VerifyResult } from './merkle.ts';
import { finish, sliceCounter } from './slices.ts';

const U64_MAX = (1n << 64n) - 1n;
const DECIMAL_U64_RE = /^(?:0|[1-9][0-9]{0,19})$/;

/** A leaf: a salted wallet id and the operator's liability to that wallet, in micro-USDC. */
export interface StateLeaf {
  readonly id: Uint8Array;
  readonly liability: bigint;
}

/** A tree node (or proof sibling): its hash and the sum of liabilities beneath it. */
export interface StateNode {
  readonly hash: Uint8Array;
  readonly sum: bigint;
}

/** Proof that `(id, liability)` is leaf `index` of a tree of `count` leaves; `proof` is bottom-up. */
export interface StateProof {
  readonly id: Uint8Array;
  readonly liability: bigint;
  readonly index: number;
  readonly count: number;
  readonly proof: readonly StateNode[];
}

/** JSON form of a {@link StateProof}. */
export interface StateProofJson {
  id: string;
  liability: string;
  index: number;
  count: number;
  proof: { hash: string; sum: string }[];
}

/** A built tree. */
export interface StateTree {
  readonly root: Uint8Array;
  /** Root sum: the total liabilities. */
  readonly total: bigint;
  /** The leaves in tree order (sorted by id). */
  readonly leaves: readonly StateLeaf[];
  /** Position of `id` in {@link leaves}, or -1. */
  indexOf(id: Uint8Array): number;
  /** @throws {RangeError} when `id` is not a leaf */
  proof(id: Uint8Array): StateProof;
}

// Every hash input is written into this one buffer: a commit hashes each wallet's id and leaf and every node of the
// tree, and with a fresh array for each input and each u64 its liability tree took 28-31 µs a wallet, not 19-22.
const input = new Uint8Array(81);
const inputView = new DataView(input.buffer);
const idInput = input.subarray(0, 64);
const leafInput = input.subarray(0, 41);

const isU64 = (value: unknown): value is bigint => typeof value === 'bigint' && value >= 0n && value <= U64_MAX;

/**
 * The salted leaf id, `sha256(wallet ‖ salt)`.
 * @throws {TypeError} when the wallet key or the salt is not 32 bytes
 * @example stateLeafId(fromBase58(address, 32), salt)
 */
export function stateLeafId(walletBytes: Uint8Array, salt: Uint8Array): Uint8Array {
  if (!isHash(walletBytes)) throw new TypeError('wallet public key must be 32 bytes');
  if (!isHash(salt)) throw new TypeError('salt must be 32 bytes');
  input.set(walletBytes, 0);
  input.set(salt, 32);
  return sha256(idInput);
}

/**
 * Leaf hash, `sha256(0x00 ‖ id ‖ u64be(liability))`.
 * @throws {TypeError} when `id` is not 32 bytes
 * @throws {RangeError} when `liability` is not a u64
 * @example stateLeafHash(id, 1_500_000n)
 */
export function stateLeafHash(id: Uint8Array, liability: bigint): Uint8Array {
  if (!isHash(id)) throw new TypeError('leaf id must be 32 bytes');
  if (!isU64(liability)) throw new RangeError('liability must be a u64 bigint');
  input[0] = 0x00;
  input.set(id, 1);
  inputView.setBigUint64(33, liability);
  return sha256(leafInput);
}

/**
 * Parent of two nodes: hash `sha256(0x01 ‖ u64be(sumL) ‖ u64be(sumR) ‖ hashL ‖ hashR)`, sum `sumL + sumR`.
 * @throws {TypeError} when a child hash is not 32 bytes
 * @throws {RangeError} when a child sum is not a u64 or their total overflows u64
 * @example stateNodeHash({ hash: a, sum: 1n }, { hash: b, sum: 2n }).sum // 3n
 */
export function stateNodeHash(left: StateNode, right: StateNode): StateNode {
  if (!isHash(left.hash) || !isHash(right.hash)) throw new TypeError('child hashes must be 32 bytes');
  if (!isU64(left.sum) || !isU64(right.sum)) throw new RangeError('child sums must be u64 bigints');
  const sum = left.sum + right.sum;
  if (sum > U64_MAX) throw new RangeError('sum overflows u64');
  input[0] = 0x01;
  inputView.setBigUint64(1, left.sum);
  inputView.setBigUint64(9, right.sum);
  input.set(left.hash, 17);
  input.set(right.hash, 49);
  return { hash: sha256(input), sum };
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/**
 * Builds the tree: sorts the leaves by id and hashes them in the RFC 6962 shape.
 * @throws {TypeError} when an id is not 32 bytes
 * @throws {RangeError} when a liability is negative or not a u64, two ids are equal, or the total overflows u64
 * @example
 * const tree = buildStateTree([{ id: stateLeafId(wallet, salt), liability: 5_000_000n }]);
 * verifyStateProof({ ...tree.proof(id), root: tree.root, total: tree.total }); // { ok: true }
 */
export function buildStateTree(leaves: readonly StateLeaf[]): StateTree {
  return finish(stateTreeSteps(leaves));
}

/** One level of a built tree, bottom-up: its nodes' hashes end to end, and their sums. */
interface Level {
  readonly hashes: Uint8Array;
  readonly sums: BigUint64Array;
}

const newLevel = (count: number): Level => ({ hashes: new Uint8Array(count * HASH_LENGTH), sums: new BigUint64Array(count) });

/**
 * {@link buildStateTree} in slices: it pauses (yields) after every `sliceHashes` hashes, so a caller building the
 * tree of many wallets can let other work run between slices (at 100,000 wallets a tree is a few hundred thousand
 * hashes). Same tree, same errors.
 * @throws {RangeError} on a bad slice
 */
export function* stateTreeSteps(leaves: readonly StateLeaf[], sliceHashes = Number.POSITIVE_INFINITY): Generator<void, StateTree> {
  const due = sliceCounter(sliceHashes);
  for (const { id, liability } of leaves) {
    if (!isHash(id)) throw new TypeError('leaf id must be 32 bytes');
    if (typeof liability !== 'bigint' || liability < 0n) throw new RangeError('liability must be a non-negative bigint');
    if (liability > U64_MAX) throw new RangeError('liability overflows u64');
  }
  const order = leaves.map((_, i) => i).sort((a, b) => compareBytes((leaves[a] as StateLeaf).id, (leaves[b] as StateLeaf).id));
  // The tree is kept as flat arrays, one pair a level: a tree of objects (a node, its hash array and its sum each) held
  // about 150 MB at 100,000 wallets, and the worker keeps its newest trees for the state proofs.
  const count = leaves.length;
  const ids = new Uint8Array(count * HASH_LENGTH);
  for (let i = 0; i < count; i++) ids.set((leaves[order[i] as number] as StateLeaf).id, i * HASH_LENGTH);
  const idAt = (i: number): Uint8Array => ids.subarray(i * HASH_LENGTH, (i + 1) * HASH_LENGTH);
  for (let i = 1; i < count; i++) if (bytesEqual(idAt(i - 1), idAt(i))) throw new RangeError('duplicate leaf id');

  // Pairing level by level and promoting a lonely last node unchanged yields exactly the RFC 6962 shape.
  const base = newLevel(count);
  for (let i = 0; i < count; i++) {
    const liability = (leaves[order[i] as number] as StateLeaf).liability;
    base.hashes.set(stateLeafHash(idAt(i), liability), i * HASH_LENGTH);
    base.sums[i] = liability;
    if (due()) yield;
  }
  const levels: Level[] = [base];
  for (let nodes = base, n = count; n > 1; n = Math.ceil(n / 2)) {
    const next = newLevel(Math.ceil(n / 2));
    for (let i = 0; i < n; i += 2) {
      const at = (i / 2) * HASH_LENGTH;
      if (i + 1 === n) {
        next.hashes.set(nodes.hashes.subarray(i * HASH_LENGTH, (i + 1) * HASH_LENGTH), at);
        next.sums[i / 2] = nodes.sums[i] as bigint;
      } else {
        const sum = (nodes.sums[i] as bigint) + (nodes.sums[i + 1] as bigint);
        if (sum > U64_MAX) throw new RangeError('sum overflows u64');
        input[0] = 0x01;
        inputView.setBigUint64(1, nodes.sums[i] as bigint);
        inputView.setBigUint64(9, nodes.sums[i + 1] as bigint);
        input.set(nodes.hashes.subarray(i * HASH_LENGTH, (i + 2) * HASH_LENGTH), 17);
        next.hashes.set(sha256(input), at);
        next.sums[i / 2] = sum;
      }
      if (due()) yield;
    }
    levels.push(next);
    nodes = next;
  }
  const top = levels[levels.length - 1] as Level;
  const root = count === 0 ? EMPTY_ROOT.slice() : top.hashes.slice(0, HASH_LENGTH);
  const total = count === 0 ? 0n : (top.sums[0] as bigint);

  const indexOf = (id: Uint8Array): number => {
    if (!isHash(id)) return -1;
    let lo = 0;
    let hi = count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = compareBytes(idAt(mid), id);
      if (c === 0) return mid;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  };

  const proof = (id: Uint8Array): StateProof => {
    const index = indexOf(id);
    if (index < 0) throw new RangeError('id is not a leaf of this tree');
    const siblings: StateNode[] = [];
    let i = index;
    for (let level = 0, n = count; level < levels.length - 1; level++, n = Math.ceil(n / 2)) {
      const { hashes, sums } = levels[level] as Level;
      const sibling = i % 2 === 1 ? i - 1 : i + 1;
      if (sibling < n) siblings.push({ hash: hashes.slice(sibling * HASH_LENGTH, (sibling + 1) * HASH_LENGTH), sum: sums[sibling] as bigint });
      i = Math.floor(i / 2);
    }
    return { id: idAt(index).slice(), liability: base.sums[index] as bigint, index, count, proof: siblings };
  };

  let sortedLeaves: readonly StateLeaf[] | null = null;
  return {
    root,
    total,
    get leaves() {
      sortedLeaves ??= Object.freeze(Array.from({ length: count }, (_, i) => Object.freeze({ id: idAt(i).slice(), liability: base.sums[i] as bigint })));
      return sortedLeaves;
    },
    indexOf,
    proof,
  };
}

/** Input of {@link verifyStateProof}: a proof and the published root and total. */
export interface StateProofCheck extends StateProof {
  readonly root: Uint8Array;
  readonly total: bigint;
}

/**
 * Verifies that `(id, liability)` is leaf `index` of the `count`-leaf tree with `root` and root sum `total`.
 * Sibling positions come from `(index, count)` as in RFC 9162 §2.1.3.2; every sibling sum must be a u64
 * and every partial sum must stay within u64. All inputs are checked; nothing throws.
 * @example verifyStateProof({ ...tree.proof(id), root: tree.root, total: tree.total }) // { ok: true }
 */
export function verifyStateProof(input: StateProofCheck): VerifyResult {
  const { id, liability, index, count, proof, root, total } = input;
  if (!isHash(id)) return { ok: false, reason: 'id is not 32 bytes' };
  if (!isU64(liability)) return { ok: false, reason: 'liability is not a u64' };
  if (!isU64(total)) return { ok: false, reason: 'total is not a u64' };
  if (!isHash(root)) return { ok: false, reason: 'root is not 32 bytes' };
  if (!Number.isSafeInteger(count) || count < 1) return { ok: false, reason: 'count is not a positive integer' };
  if (!Number.isSafeInteger(index) || index < 0) return { ok: false, reason: 'index is not a non-negative integer' };
  if (index >= count) return { ok: false, reason: `index ${index} is not below count ${count}` };
  if (!Array.isArray(proof)) return { ok: false, reason: 'proof is not an array' };
  if (proof.length > MAX_PROOF_LENGTH) return { ok: false, reason: 'proof is too long' };
  for (const s of proof as unknown[]) {
    if (typeof s !== 'object' || s === null) return { ok: false, reason: 'proof element is not a node' };
    const { hash, sum } = s as Partial<StateNode>;
    if (!isHash(hash)) return { ok: false, reason: 'sibling hash is not 32 bytes' };
    if (!isU64(sum)) return { ok: false, reason: 'sibling sum is not a non-negative u64' };
  }

  let fn = index;
  let sn = count - 1;
  let node: StateNode = { hash: stateLeafHash(id, liability), sum: liability };
  for (const sibling of proof) {
    if (sn === 0) return { ok: false, reason: 'proof is too long for (index, count)' };
    if (node.sum + sibling.sum > U64_MAX) return { ok: false, reason: 'sum overflows u64' };
    if (fn % 2 === 1 || fn === sn) {
      node = stateNodeHash(sibling, node);
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2;
        sn = Math.floor(sn / 2);
      }
    } else {
      node = stateNodeHash(node, sibling);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) return { ok: false, reason: 'proof is too short for (index, count)' };
  if (!bytesEqual(node.hash, root)) return { ok: false, reason: 'computed root does not match' };
  if (node.sum !== total) return { ok: false, reason: 'root sum does not equal total' };
  return { ok: true };
}

/**
 * Boolean form of {@link verifyStateProof}.
 * @example isStateProofValid({ ...proof, root, total }) // true
 */
export const isStateProofValid = (input: StateProofCheck): boolean => verifyStateProof(input).ok;

/**
 * Encodes a proof as JSON-safe values (hex hashes, decimal-string amounts).
 * @example JSON.stringify(encodeStateProof(tree.proof(id)))
 */
export function encodeStateProof(proof: StateProof): StateProofJson {
  return {
    id: toHex(proof.id),
    liability: proof.liability.toString(10),
    index: proof.index,
    count: proof.count,
    proof: proof.proof.map((s) => ({ hash: toHex(s.hash), sum: s.sum.toString(10) })),
  };
}

function parseU64(value: unknown, name: string): bigint {
  if (typeof value !== 'string' || !DECIMAL_U64_RE.test(value)) throw new TypeError(`${name} must be a decimal string`);
  const n = BigInt(value);
  if (n > U64_MAX) throw new TypeError(`${name} overflows u64`);
  return n;
}

function parseCount(value: unknown, name: string, min: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new TypeError(`${name} must be an integer >= ${min}`);
  }
  return value;
}

/**
 * Parses an attacker-supplied JSON proof. Only checks the form; {@link verifyStateProof} checks the content.
 * @throws {TypeError} when a field is missing, of the wrong type, not lowercase 32-byte hex, not a
 *   canonical u64 decimal string, or the proof has more than 66 siblings
 * @example decodeStateProof(JSON.parse(body))
 */
export function decodeStateProof(json: unknown): StateProof {
  if (typeof json !== 'object' || json === null) throw new TypeError('state proof must be an object');
  const o = json as Record<string, unknown>;
  if (typeof o.id !== 'string') throw new TypeError('id must be hex');
  const id = fromHex(o.id, HASH_LENGTH);
  const liability = parseU64(o.liability, 'liability');
  const index = parseCount(o.index, 'index', 0);
  const count = parseCount(o.count, 'count', 1);
  if (!Array.isArray(o.proof)) throw new TypeError('proof must be an array');
  if (o.proof.length > MAX_PROOF_LENGTH) throw new TypeError(`proof has more than ${MAX_PROOF_LENGTH} siblings`);
  const proof = (o.proof as unknown[]).map((s): StateNode => {
    if (typeof s !== 'object' || s === null) throw new TypeError('sibling must be an object');
    const { hash, sum } = s as Record<string, unknown>;
    if (typeof hash !== 'string') throw new TypeError('sibling hash must be hex');
    return { hash: fromHex(hash, HASH_LENGTH), sum: parseU64(sum, 'sibling sum') };
  });
  return { id, liability, index, count, proof };
}
