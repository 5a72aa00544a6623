/**
 * RNG reveals checked against the operator's on-chain commitments (design §4).
 *
 * A value `s_i` counts when `sha256^(i-j)(s_i) == s_j` for a value `s_j`, `j ≤ i`, that is itself
 * anchored: a chain head committed on-chain by the anchor key, or a value already verified that way.
 * Verified values are remembered per chain, so a run over many bets hashes each step about once.
 * @module
 */
import { isHex } from '../encoding.ts';
import { verifyRngLink } from '../rng-chain.ts';
import type { VerifyResult } from '../merkle.ts';
import { MAX_RNG_WALK } from './bounds.ts';

interface Point {
  index: number;
  value: string;
}

/** Known anchored values, per committed chain head. */
export class RngAnchors {
  // Per head: anchored points sorted by index; index 0 is the head itself.
  readonly #chains = new Map<string, Point[]>();
  readonly #maxSteps: number;

  /** @param maxSteps longest hash walk attempted for one link (a bound against hostile indices) */
  constructor(maxSteps = MAX_RNG_WALK) {
    this.#maxSteps = maxSteps;
  }

  /** Registers a head committed on-chain by the anchor key. */
  addHead(headHex: string): void {
    if (!isHex(headHex, 32) || this.#chains.has(headHex)) return;
    this.#chains.set(headHex, [{ index: 0, value: headHex }]);
  }

  hasHead(headHex: string): boolean {
    return this.#chains.has(headHex);
  }

  /** Heads in the order they were added. */
  heads(): string[] {
    return [...this.#chains.keys()];
  }

  /** Registers a value already verified (a saved monitor state): it anchors later links like any other. */
  addPoint(headHex: string, index: number, valueHex: string): void {
    const points = this.#chains.get(headHex);
    if (!points || !Number.isSafeInteger(index) || index < 1 || !isHex(valueHex, 32)) return;
    const at = nearestAtOrBelow(points, index);
    if ((points[at] as Point).index !== index) points.splice(at + 1, 0, { index, value: valueHex });
  }

  /** The highest anchored points of each chain (at most `limit` per chain), for a saved state. */
  recentPoints(limit: number): { head: string; index: number; value: string }[] {
    return [...this.#chains].flatMap(([head, points]) =>
      points
        .slice(1)
        .slice(-limit)
        .map((p) => ({ head, ...p })),
    );
  }

  /**
   * Verifies that `valueHex` is `s_index` of the chain committed as `headHex`, and remembers it.
   * @example anchors.link(ack.rngChainHead, ack.rngIndex, receipt.proof.rngReveal)
   */
  link(headHex: string, index: number, valueHex: string): VerifyResult {
    const points = this.#chains.get(headHex);
    if (!points) return { ok: false, reason: `chain head ${short(headHex)} was never committed on-chain by the anchor key` };
    if (!Number.isSafeInteger(index) || index < 1) return { ok: false, reason: `rng index ${index} is not a positive integer` };
    if (!isHex(valueHex, 32)) return { ok: false, reason: 'rng reveal is not 32 bytes of lowercase hex' };
    const at = nearestAtOrBelow(points, index);
    const base = points[at] as Point;
    if (base.index === index) {
      return base.value === valueHex ? { ok: true } : { ok: false, reason: `rng reveal for index ${index} differs from the value already anchored` };
    }
    if (index - base.index > this.#maxSteps) return { ok: false, reason: `rng index ${index} is too far from any anchored value` };
    if (!verifyRngLink(valueHex, index, base.value, base.index, this.#maxSteps)) {
      return { ok: false, reason: `sha256^${index - base.index}(s_${index}) does not equal the anchored s_${base.index} of chain ${short(headHex)}` };
    }
    // A log's reveals come in index order: almost every new point goes last, where a push costs nothing.
    if (at === points.length - 1) points.push({ index, value: valueHex });
    else points.splice(at + 1, 0, { index, value: valueHex });
    return { ok: true };
  }

  /**
   * Finds the committed chain a value belongs to; commit memos reveal `s_i` without naming the chain.
   * Index 0 names a head itself.
   */
  linkAny(index: number, valueHex: string): { ok: true; head: string } | { ok: false; reason: string } {
    if (index === 0) {
      return this.#chains.has(valueHex) ? { ok: true, head: valueHex } : { ok: false, reason: 'index 0 value is not a committed chain head' };
    }
    // Newest chains first: a commit usually reveals a value of the current chain.
    for (const head of this.heads().reverse()) {
      if (this.link(head, index, valueHex).ok) return { ok: true, head };
    }
    return { ok: false, reason: `s_${index} does not chain to any chain head committed on-chain` };
  }
}

function nearestAtOrBelow(points: readonly Point[], index: number): number {
  let lo = 0;
  let hi = points.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if ((points[mid] as Point).index <= index) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const short = (hex: string): string => (typeof hex === 'string' ? `${hex.slice(0, 12)}…` : String(hex));
