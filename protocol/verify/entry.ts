// Shared pieces of the per-game checks: the bet-log leaf and field-by-field agreement.
import { microToNumber } from '../money.ts';
import { canonicalize } from '../jcs.ts';
import { leafHash } from '../merkle.ts';
import { toHex, utf8 } from '../encoding.ts';
import type { Checks } from './report.ts';

/** The bet-log leaf of an entry, `sha256(0x00 ‖ JCS(entry))`, hex; null when it has no JSON form. */
export function entryLeafHex(entry: unknown): string | null {
  try {
    return toHex(leafHash(utf8(canonicalize(entry))));
  } catch {
    return null;
  }
}

/**
 * Compares recorded values with the verified ones and records one check listing every mismatch.
 * @param pairs `[field, recorded, expected]`; values compare by their canonical JSON form
 */
export function agree(checks: Checks, name: string, what: string, pairs: [string, unknown, unknown][]): boolean {
  const bad = pairs
    .filter(([, got, want]) => jsonKey(got) !== jsonKey(want))
    .map(([field, got, want]) => `${field} is ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  return checks.add(name, bad.length === 0, `${what}: ${bad.join('; ')}`);
}

// Canonical JSON, so key order never makes equal values differ.
function jsonKey(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    return canonicalize(value);
  } catch {
    return `unserializable:${String(value)}`;
  }
}

/** One RNG index a bet consumed: indices are unique per chain. */
export interface RngUse {
  head: string;
  index: number;
}

/** The receipt's amounts against the recomputed wager and payout, identical for every game. */
export function agreeAmounts(checks: Checks, receipt: Record<string, unknown>, result: Record<string, unknown>, wager: bigint, payout: bigint): boolean {
  return agree(checks, 'payout', 'the recorded amounts differ from the recomputed ones', [
    ['betAmount', receipt.betAmount, microToNumber(wager)],
    ['payout', receipt.payout, microToNumber(payout)],
    ['profit', receipt.profit, microToNumber(payout - wager)],
    ['result.payoutMicro', result.payoutMicro, payout.toString()],
  ]);
}
