// The verifier's entry points for bet-log proofs in their wire form (hex), as receipts and the API give them.
import { fromHex, isHex } from '../encoding.ts';

// Roots of any length go through as bytes: the Merkle verifier owns the size rules (equal sizes need equal roots, nothing more).
const isAnyHex = (v: unknown): v is string => typeof v === 'string' && v.length % 2 === 0 && /^[0-9a-f]*$/.test(v);
import { MAX_PROOF_LENGTH, inclusionWalk, nodeHashHex, proofFromHex, verifyConsistency, verifyInclusion, type VerifyResult } from '../merkle.ts';

type Size = number | bigint;

/**
 * Interior nodes already hashed, by their children (hex): the proofs of neighbouring leaves of one tree
 * share all but their lowest nodes, so a bulk check of a tile's receipts hashes each node about once.
 * A memoized hash is the same hash; bounded, it forgets everything when full. Children are only ever
 * stored once they have been decoded as 32-byte hashes, so a hit needs no decoding.
 */
export class NodeMemo {
  // By left child, then right child: a proof's strings are hashed for lookup once, never concatenated.
  readonly #nodes = new Map<string, Map<string, string>>();
  #size = 0;
  // The node each proof step last gave, by step: receipts come in log order, and from the step where two
  // neighbours' paths meet they hash the same children, which an equality test finds without hashing the
  // proof's fresh strings for a map lookup.
  readonly #lastLeft: string[] = [];
  readonly #lastRight: string[] = [];
  readonly #lastNode: string[] = [];
  constructor(readonly limit = 1 << 16) {}

  /** @throws {TypeError} when a child is not 32 bytes of lowercase hex */
  readonly node = (left: string, right: string, step = -1): string => {
    if (step >= 0 && this.#lastLeft[step] === left && this.#lastRight[step] === right) return this.#lastNode[step] as string;
    const hash = this.#memoized(left, right);
    if (step >= 0 && step < MAX_PROOF_LENGTH) {
      this.#lastLeft[step] = left;
      this.#lastRight[step] = right;
      this.#lastNode[step] = hash;
    }
    return hash;
  };

  #memoized(left: string, right: string): string {
    let byRight = this.#nodes.get(left);
    let hash = byRight?.get(right);
    if (hash === undefined) {
      hash = nodeHashHex(fromHex(left, 32), fromHex(right, 32));
      if (this.#size >= this.limit) {
        this.#nodes.clear();
        this.#size = 0;
        byRight = undefined;
      }
      if (!byRight) {
        byRight = new Map();
        this.#nodes.set(left, byRight);
      }
      byRight.set(right, hash);
      this.#size++;
    }
    return hash;
  }
}

const isU64 = (v: Size): boolean => (typeof v === 'bigint' ? v >= 0n && v < 1n << 64n : Number.isSafeInteger(v) && v >= 0);

/**
 * RFC 9162 inclusion of the leaf `leafHex` at `index` in the tree of `size` with root `rootHex`; the
 * left/right path follows from (index, size) only. Nothing throws.
 * @example verifyInclusionHex(anchor.betLogEntryHash, anchor.betLogIndex, anchor.entryCount, anchor.betLogProof, anchor.betLogRoot)
 */
export function verifyInclusionHex(leafHex: unknown, index: Size, size: Size, proofHex: unknown, rootHex: unknown, memo?: NodeMemo): VerifyResult {
  if (!isHex(leafHex, 32)) return { ok: false, reason: 'the leaf hash is not 32 bytes of lowercase hex' };
  if (!isAnyHex(rootHex)) return { ok: false, reason: 'the root is not lowercase hex' };
  // The memoized walk decodes (so checks) every child it has not seen; whatever it cannot take, and every
  // failure, goes the byte way below, so the verdict and the reason are the byte walk's.
  if (memo && isU64(index) && isU64(size) && BigInt(index) < BigInt(size) && Array.isArray(proofHex) && proofHex.length <= MAX_PROOF_LENGTH) {
    try {
      const walk = inclusionWalk(BigInt(index), BigInt(size), leafHex, proofHex as string[], memo.node);
      if (walk.ok && walk.root === rootHex) return { ok: true };
    } catch {
      // a malformed proof element: reported below
    }
  }
  let proof: Uint8Array[];
  try {
    proof = proofFromHex(proofHex);
  } catch (err) {
    return { ok: false, reason: `the proof is malformed: ${(err as Error).message}` };
  }
  return verifyInclusion(fromHex(leafHex), index, size, proof, fromHex(rootHex));
}

/**
 * RFC 9162 consistency: the tree of `size2` with `root2Hex` extends the tree of `size1` with `root1Hex`.
 * Nothing throws.
 * @example verifyConsistencyHex(a.entryCount, b.entryCount, body.proof, a.betLogRoot, b.betLogRoot)
 */
export function verifyConsistencyHex(size1: Size, size2: Size, proofHex: unknown, root1Hex: unknown, root2Hex: unknown): VerifyResult {
  if (!isAnyHex(root1Hex) || !isAnyHex(root2Hex)) return { ok: false, reason: 'a root is not lowercase hex' };
  let proof: Uint8Array[];
  try {
    proof = proofFromHex(proofHex);
  } catch (err) {
    return { ok: false, reason: `the proof is malformed: ${(err as Error).message}` };
  }
  return verifyConsistency(size1, size2, proof, fromHex(root1Hex), fromHex(root2Hex));
}
