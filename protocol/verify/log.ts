/**
 * Verifies the bet-log commits as the chain shows them: the anchor key's commit memos decide the log's
 * size and roots, each must extend the one before (RFC 9162 consistency), sizes only grow, one size has
 * one root, each memo's RNG reveal links to a committed chain head, the published list hides and alters
 * nothing, and the newest liabilities fit in the vault.
 * @module
 */
import { verifyConsistencyHex } from './proofs.ts';
import { NO_MANIFEST_HASH } from '../manifest.ts';
import { commitMemo, type CommitMemo } from '../memo.ts';
import type { SignedMemo } from './chain.ts';
import { Checks, Tally, type Report } from './report.ts';
import type { RngAnchors } from './rng.ts';
import { MAX_LOG_SIZE } from './bounds.ts';

/** A commit as `GET /api/protocol/v1/bet-log/commits` lists it. */
export interface PublishedCommit {
  commitId: string;
  entryCount: number;
  betLogRoot: string;
  stateRoot: string;
  /** micro-USDC, decimal string */
  totalLiabilities: string;
  rngIndex: number;
  rngReveal: string;
  manifestHash: string;
  signature: string;
}

/** A commit memo the anchor key alone signed, as read from the chain. */
export type ChainCommit = SignedMemo & { memo: { kind: 'commit' } & CommitMemo };

/** The anchor key's commit memos in chain order (slot, then transaction order as scanned). */
export function chainCommits(onChain: readonly SignedMemo[]): ChainCommit[] {
  return onChain
    .filter((m): m is ChainCommit => m.memo.kind === 'commit' && m.memo.entryCount >= 1 && m.memo.entryCount <= MAX_LOG_SIZE)
    .map((m, i) => ({ m, i }))
    .sort((a, b) => a.m.slot - b.m.slot || a.i - b.i)
    .map(({ m }) => m);
}

/** The size of the log the chain commits: the largest entryCount of any commit memo. */
export const chainSize = (commits: readonly ChainCommit[]): number => commits.reduce((n, c) => Math.max(n, c.memo.entryCount), 0);

/** One root per committed size, for checks that rebuild the log; null when the chain holds two (a fork). */
export function rootsBySize(commits: readonly ChainCommit[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const c of commits) if (!out.has(c.memo.entryCount)) out.set(c.memo.entryCount, c.memo.betLogRoot);
  return out;
}

export interface LogInput {
  /** The published commits, oldest first. */
  commits: readonly PublishedCommit[];
  /** Every memo the anchor key alone signed, as read from the chain. */
  onChain: readonly SignedMemo[];
  /** The published consistency proof (hex, bottom-up) between two committed sizes. */
  consistency(from: number, to: number): readonly string[] | undefined;
  /** Set when the caller rebuilds every committed root from the entries, which proves consistency outright. */
  consistencyProvedElsewhere?: boolean;
  rng: RngAnchors;
  /** The vault's token balance on-chain, micro-USDC (the vault named by the pinned trust root). */
  vaultBalance?: bigint;
  /** Whether a manifest hash named by a memo is published; unchecked when absent. */
  manifestKnown?: (manifestHash: string) => boolean;
}

const memoOf = (c: PublishedCommit): CommitMemo | null => {
  try {
    return {
      entryCount: c.entryCount,
      betLogRoot: c.betLogRoot,
      stateRoot: c.stateRoot,
      totalLiabilities: BigInt(c.totalLiabilities),
      rngIndex: c.rngIndex,
      rngRevealHex: c.rngReveal,
      manifestHash: c.manifestHash,
    };
  } catch {
    return null;
  }
};

const short = (hex: string): string => `${hex.slice(0, 12)}…`;

/**
 * Runs the commit-log checks; registers the on-chain RNG heads in `input.rng` first.
 * @example verifyCommitLog({ commits, onChain, consistency, rng: new RngAnchors(), vaultBalance }).ok
 */
export function verifyCommitLog(input: LogInput): Report {
  const checks = new Checks();
  for (const m of input.onChain) if (m.memo.kind === 'rng-head') input.rng.addHead(m.memo.headHex);
  checks.add('rng-heads', input.rng.heads().length > 0, 'the anchor key committed no RNG chain head on-chain');

  const onChain = chainCommits(input.onChain);
  const bySize = new Map<number, ChainCommit[]>();
  for (const m of onChain) bySize.set(m.memo.entryCount, [...(bySize.get(m.memo.entryCount) ?? []), m]);
  const conflicts = new Tally('on-chain-unique');
  for (const [count, memos] of bySize) {
    const roots = new Set(memos.map((m) => m.memo.betLogRoot));
    conflicts.item(roots.size > 1 ? `${roots.size} different roots of size ${count} are committed on-chain (a fork)` : null);
  }
  conflicts.record(checks, 'no commit memos on-chain');

  // The chain's order: a commit that does not grow the log past an earlier one rewrites history.
  const order = new Tally('commit-order');
  let largest: ChainCommit | null = null;
  for (const m of onChain) {
    // The same memo landing twice (a re-signed commit) is no rewrite.
    const rewinds =
      largest &&
      m.slot > largest.slot &&
      (m.memo.entryCount < largest.memo.entryCount || (m.memo.entryCount === largest.memo.entryCount && m.text !== largest.text));
    order.item(rewinds ? `the commit of size ${m.memo.entryCount} in ${m.signature} comes after one of size ${largest!.memo.entryCount}` : null);
    if (!largest || m.memo.entryCount > largest.memo.entryCount) largest = m;
  }
  order.record(checks, 'no commit memos on-chain');

  // Consistency between the chain's own commits, in size order: the newest is checked like any other.
  const sizes = [...bySize.keys()].sort((a, b) => a - b);
  const consistency = new Tally('consistency');
  for (let i = 1; i < sizes.length && !input.consistencyProvedElsewhere; i++) {
    const a = bySize.get(sizes[i - 1]!)![0]!.memo;
    const b = bySize.get(sizes[i]!)![0]!.memo;
    const proofHex = input.consistency(a.entryCount, b.entryCount);
    if (!proofHex) consistency.item(`no consistency proof is published from ${a.entryCount} to ${b.entryCount}`);
    else {
      const r = verifyConsistencyHex(a.entryCount, b.entryCount, proofHex, a.betLogRoot, b.betLogRoot);
      consistency.item(r.ok ? null : `the log of size ${b.entryCount} does not extend the log of size ${a.entryCount} (a fork): ${r.reason}`);
    }
  }
  consistency.record(
    checks,
    input.consistencyProvedElsewhere ? 'every committed root is rebuilt from the entries (commit-roots)' : 'fewer than two commits on-chain',
  );

  const rng = new Tally('commit-rng-reveals');
  const manifests = new Tally('commit-manifests');
  for (const m of onChain) {
    const link = input.rng.linkAny(m.memo.rngIndex, m.memo.rngRevealHex);
    rng.item(link.ok ? null : `commit of size ${m.memo.entryCount}: ${link.reason}`);
    if (input.manifestKnown) {
      const h = m.memo.manifestHash;
      manifests.item(
        h === NO_MANIFEST_HASH || input.manifestKnown(h)
          ? null
          : `the commit of size ${m.memo.entryCount} names manifest ${short(h)}, which is not on the published chain`,
      );
    }
  }
  rng.record(checks, 'no commit memos on-chain');
  if (input.manifestKnown) manifests.record(checks, 'no commit memos on-chain');

  // The published list: nothing in it that the chain does not hold, nothing on-chain left out of it.
  const matched = new Tally('published-on-chain');
  for (const c of input.commits) {
    const memo = memoOf(c);
    const text = memo ? commitMemo(memo) : null;
    const found = bySize.get(c.entryCount)?.find((m) => m.signature === c.signature);
    matched.item(
      !found
        ? `commit ${c.commitId}: no memo by the anchor key in transaction ${c.signature}`
        : found.text !== text
          ? `commit ${c.commitId}: the on-chain memo differs from the published commit`
          : null,
    );
  }
  matched.record(checks, 'no commits were published');
  const published = new Set(input.commits.map((c) => `${c.entryCount}:${c.betLogRoot}`));
  const hidden = new Tally('on-chain-published');
  for (const m of onChain) {
    hidden.item(
      published.has(`${m.memo.entryCount}:${m.memo.betLogRoot}`)
        ? null
        : `the on-chain commit of size ${m.memo.entryCount} (${m.signature}) is not in the published list`,
    );
  }
  hidden.record(checks, 'no commit memos on-chain');

  if (largest && input.vaultBalance !== undefined) {
    const total = largest.memo.totalLiabilities;
    checks.add(
      'solvency',
      total <= input.vaultBalance,
      `totalLiabilities ${total} of the newest on-chain commit exceed the vault balance ${input.vaultBalance}`,
    );
  }
  return checks.report('bet-log commits');
}
