/**
 * A tile of a bulk audit whose receipts all passed their own checks, reduced to what the log-order part
 * of the audit needs: how many receipts had each list of checks and each anchor, per RNG chain the lowest
 * and highest reveal with every reveal between them hash-linked here, the RNG indices used as runs, and
 * the session-key uses. {@link LogAudit.addTile} checks it against the log's state as it would check
 * each entry; any tile this cannot describe (a failure, a gap in a reveal chain, an index used twice) is
 * left to the entry-by-entry path, so the verdict and every reason stay those of that path.
 * @module
 */
import { verifyRngLink } from '../rng-chain.ts';
import type { AnchorClaim } from './anchor.ts';
import type { CheckName } from './check-names.ts';
import type { Check } from './report.ts';
import type { ReceiptInspection } from './receipt.ts';

/** What a receipt's anchor claims, its index aside (shared by every receipt of a commit). */
export type SharedAnchor = Omit<AnchorClaim, 'betLogIndex'>;

/** The reveals of one RNG chain in a tile: `hiValue` hashes down to `loValue` through every reveal between. */
export interface RngRun {
  head: string;
  lo: number;
  loValue: string;
  hi: number;
  hiValue: string;
  /** How many reveals each check name links. */
  checks: [CheckName, number][];
}

/** The session-key uses of one key in a tile, in log order. */
export interface KeyUses {
  sessionPubkey: string;
  /** One bet the key committed (the service's pointer to its setup is asked by bet). */
  betPayloadHash: string;
  checks: CheckName[];
  receiptIds: string[];
  committedAt: string[];
}

export interface TileSummary {
  /** Entries summarized: every one the tile was asked for, from its first. */
  count: number;
  /** The RFC 6962 hash of the entries' leaves, hex, when they are a whole aligned tile (a perfect subtree). */
  subtreeRoot: string | null;
  /** Each distinct list of checks (all pass or skip) and how many receipts had it. */
  lists: { checks: Check[]; count: number }[];
  /** Each distinct anchor claimed (its index is each entry's own) and how many receipts claimed it. */
  anchors: { anchor: SharedAnchor; count: number }[];
  rng: RngRun[];
  /** Per chain head, the RNG indices used, as sorted disjoint runs `[lo0, hi0, lo1, hi1, …]`. */
  used: { head: string; runs: number[] }[];
  /** Per key, in order of first use. */
  keys: KeyUses[];
}

const sameChecks = (a: readonly Check[], b: readonly Check[]): boolean =>
  a.length === b.length && a.every((c, i) => c.name === b[i]!.name && c.status === b[i]!.status && c.reason === b[i]!.reason);

const sameAnchor = (a: SharedAnchor, b: SharedAnchor): boolean =>
  a.entryCount === b.entryCount &&
  a.betLogRoot === b.betLogRoot &&
  a.stateRoot === b.stateRoot &&
  a.commitAccount === b.commitAccount &&
  a.commitSignature === b.commitSignature;

/** Groups by a key, each group counted; consecutive items usually share one, so the last group is tried first. */
function counter<T>(same: (a: T, b: T) => boolean, keyOf: (v: T) => string) {
  const groups: { value: T; count: number }[] = [];
  const byKey = new Map<string, { value: T; count: number }>();
  let last: { value: T; count: number } | null = null;
  return {
    groups,
    add(value: T): void {
      if (last && same(last.value, value)) {
        last.count++;
        return;
      }
      const key = keyOf(value);
      let g = byKey.get(key);
      if (!g) {
        g = { value, count: 0 };
        byKey.set(key, g);
        groups.push(g);
      }
      g.count++;
      last = g;
    },
  };
}

const checksKey = (list: readonly Check[]): string => {
  let key = '';
  for (const c of list) key += `${c.name}\u0000${c.status}\u0000${c.reason ?? ''}\u0001`;
  return key;
};

/**
 * The summary of a tile's inspections, or null when an entry needs the entry-by-entry path.
 * @param first log index of the first inspection
 * @param leaves each entry's leaf from the entry bundle, hex
 * @param subtreeRoot the leaves' subtree root (hex) when they are a whole aligned tile, else null
 * @param maxSteps hashes the reveal chains may cost here (beyond it, the entry-by-entry path links them)
 */
export function summarizeTile(
  first: number,
  leaves: readonly string[],
  inspections: readonly ReceiptInspection[],
  subtreeRoot: string | null,
  maxSteps = 64 * inspections.length,
): TileSummary | null {
  if (leaves.length !== inspections.length) return null;
  const lists = counter<Check[]>(sameChecks, checksKey);
  const anchors = counter<SharedAnchor>(sameAnchor, (a) => JSON.stringify(a));
  const links = new Map<string, { index: number; value: string; check: CheckName }[]>();
  const uses = new Map<string, number[]>();
  const keys = new Map<string, KeyUses>();
  for (let i = 0; i < inspections.length; i++) {
    const x = inspections[i] as ReceiptInspection;
    if (x.receiptId === null || x.leafHex === null || x.leafHex !== leaves[i]) return null;
    for (const c of x.checks) if (c.status !== 'pass' && c.status !== 'skip') return null;
    lists.add(x.checks);
    if (x.anchor) {
      const { betLogIndex, ...shared } = x.anchor;
      if (betLogIndex !== first + i) return null;
      anchors.add(shared);
    }
    for (const l of x.rngLinks) {
      let list = links.get(l.head);
      if (!list) {
        list = [];
        links.set(l.head, list);
      }
      list.push({ index: l.index, value: l.value, check: l.check });
    }
    for (const u of x.rngUses) {
      let list = uses.get(u.head);
      if (!list) {
        list = [];
        uses.set(u.head, list);
      }
      list.push(u.index);
    }
    for (const k of x.sessionKeys) {
      let group = keys.get(k.sessionPubkey);
      if (!group) {
        group = { sessionPubkey: k.sessionPubkey, betPayloadHash: k.betPayloadHash, checks: [], receiptIds: [], committedAt: [] };
        keys.set(k.sessionPubkey, group);
      }
      group.checks.push(k.check);
      group.receiptIds.push(x.receiptId);
      group.committedAt.push(k.committedAt);
    }
  }
  const rng: RngRun[] = [];
  let steps = 0;
  for (const [head, list] of links) {
    list.sort((a, b) => a.index - b.index);
    const counts = new Map<CheckName, number>();
    for (let k = 0; k < list.length; k++) {
      const p = list[k]!;
      counts.set(p.check, (counts.get(p.check) ?? 0) + 1);
      if (k === 0) continue;
      const below = list[k - 1]!;
      // An index revealed twice is for the entry-by-entry path to report.
      if (p.index === below.index) return null;
      steps += p.index - below.index;
      if (steps > maxSteps || !verifyRngLink(p.value, p.index, below.value, below.index, p.index - below.index)) return null;
    }
    const lo = list[0]!;
    const hi = list[list.length - 1]!;
    rng.push({ head, lo: lo.index, loValue: lo.value, hi: hi.index, hiValue: hi.value, checks: [...counts] });
  }
  const used: TileSummary['used'] = [];
  for (const [head, list] of uses) {
    list.sort((a, b) => a - b);
    const runs: number[] = [];
    for (let k = 0; k < list.length; k++) {
      const n = list[k]!;
      if (k > 0 && n === list[k - 1]) return null;
      if (k > 0 && n === list[k - 1]! + 1) runs[runs.length - 1] = n;
      else runs.push(n, n);
    }
    used.push({ head, runs });
  }
  return {
    count: inspections.length,
    subtreeRoot,
    lists: lists.groups.map((g) => ({ checks: g.value, count: g.count })),
    anchors: anchors.groups.map((g) => ({ anchor: g.value, count: g.count })),
    rng,
    used,
    keys: [...keys.values()],
  };
}
