/**
 * Verifies the bet-log commits: the published list against the anchor key's on-chain memos (nothing
 * hidden, nothing conflicting), RFC 6962 consistency between consecutive commits, each memo's RNG
 * reveal against a committed chain head, and the liabilities against the vault balance.
 * @module
 */
import { verifyConsistencyHex } from './proofs.ts';
import { NO_MANIFEST_HASH } from '../manifest.ts';
import { commitMemo, type CommitMemo } from '../memo.ts';
import type { SignedMemo } from './chain.ts';
import { Checks, Tally, type Report } from './report.ts';
import type { RngAnchors } from './rng.ts';

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

export interface LogInput {
  /** The published commits, oldest first. */
  commits: readonly PublishedCommit[];
  /** Every memo the anchor key alone signed, as read from the chain. */
  onChain: readonly SignedMemo[];
  /** The published consistency proof (hex, bottom-up) between two committed sizes. */
  consistency(from: number, to: number): readonly string[] | undefined;
  rng: RngAnchors;
  /** The vault's token balance on-chain, micro-USDC. */
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

/**
 * Runs the commit-log checks; registers the on-chain RNG heads in `input.rng` first.
 * @example verifyCommitLog({ commits, onChain, consistency, rng: new RngAnchors(), vaultBalance }).ok
 */
export function verifyCommitLog(input: LogInput): Report {
  const checks = new Checks();
  for (const m of input.onChain) if (m.memo.kind === 'rng-head') input.rng.addHead(m.memo.headHex);
  checks.add('rng-heads', input.rng.heads().length > 0, 'the anchor key committed no RNG chain head on-chain');

  const onChainByCount = new Map<number, SignedMemo[]>();
  for (const m of input.onChain) {
    if (m.memo.kind !== 'commit') continue;
    const list = onChainByCount.get(m.memo.entryCount) ?? [];
    list.push(m);
    onChainByCount.set(m.memo.entryCount, list);
  }
  const conflicts = new Tally('on-chain-unique');
  for (const [count, memos] of onChainByCount) {
    const texts = new Set(memos.map((m) => m.text));
    conflicts.item(texts.size > 1 ? `${texts.size} different commits of size ${count} are on-chain` : null);
  }
  conflicts.record(checks, 'no commit memos on-chain');

  const matched = new Tally('published-on-chain');
  const order = new Tally('commit-order');
  const consistency = new Tally('consistency');
  const rng = new Tally('commit-rng-reveals');
  const manifests = new Tally('commit-manifests');
  let previous: PublishedCommit | null = null;
  for (const c of input.commits) {
    const memo = memoOf(c);
    const text = memo ? commitMemo(memo) : null;
    const onChain = onChainByCount.get(c.entryCount)?.find((m) => m.signature === c.signature);
    matched.item(
      !onChain
        ? `commit ${c.commitId}: no memo by the anchor key in transaction ${c.signature}`
        : onChain.text !== text
          ? `commit ${c.commitId}: the on-chain memo differs from the published commit`
          : null,
    );
    if (previous) {
      order.item(c.entryCount > previous.entryCount ? null : `commit ${c.commitId} does not grow the log past ${previous.entryCount}`);
      if (c.entryCount > previous.entryCount) consistency.item(consistencyProblem(input, previous, c));
    }
    const link = input.rng.linkAny(c.rngIndex, c.rngReveal);
    rng.item(link.ok ? null : `commit ${c.commitId}: ${link.reason}`);
    if (input.manifestKnown) {
      manifests.item(
        c.manifestHash === NO_MANIFEST_HASH || input.manifestKnown(c.manifestHash)
          ? null
          : `commit ${c.commitId} names manifest ${c.manifestHash.slice(0, 12)}…, which is not published`,
      );
    }
    previous = c;
  }
  matched.record(checks, 'no commits were published');
  order.record(checks, 'fewer than two commits');
  consistency.record(checks, 'fewer than two commits');
  rng.record(checks, 'no commits were published');
  if (input.manifestKnown) manifests.record(checks, 'no commits were published');

  const published = new Set(input.commits.map((c) => `${c.entryCount}:${c.betLogRoot}`));
  const hidden = new Tally('on-chain-published');
  for (const memos of onChainByCount.values()) {
    for (const m of memos) {
      if (m.memo.kind !== 'commit') continue;
      hidden.item(
        published.has(`${m.memo.entryCount}:${m.memo.betLogRoot}`)
          ? null
          : `the on-chain commit of size ${m.memo.entryCount} (${m.signature}) is not in the published list`,
      );
    }
  }
  hidden.record(checks, 'no commit memos on-chain');

  const latest = input.commits[input.commits.length - 1];
  if (latest && input.vaultBalance !== undefined) {
    let total: bigint | null = null;
    try {
      total = BigInt(latest.totalLiabilities);
    } catch {
      total = null;
    }
    checks.add(
      'solvency',
      total !== null && total <= input.vaultBalance,
      `totalLiabilities ${latest.totalLiabilities} of the latest commit exceed the vault balance ${input.vaultBalance}`,
    );
  }
  return checks.report('bet-log commits');
}

function consistencyProblem(input: LogInput, a: PublishedCommit, b: PublishedCommit): string | null {
  const proofHex = input.consistency(a.entryCount, b.entryCount);
  if (!proofHex) return `no consistency proof is published from ${a.entryCount} to ${b.entryCount}`;
  const result = verifyConsistencyHex(a.entryCount, b.entryCount, proofHex, a.betLogRoot, b.betLogRoot);
  return result.ok ? null : `the log of size ${b.entryCount} does not extend the log of size ${a.entryCount}: ${result.reason}`;
}
