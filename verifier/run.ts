/**
 * One audit of everything the chain commits, from scratch (`all`) or from a monitor's saved state: only
 * what is new is read, and it is checked against what was verified before (the saved compact range, the
 * roots, the used RNG indices, the last manifest), so rewritten history shows without re-reading it.
 * @module
 */
import { CompactRange } from '../protocol/compact-range.ts';
import { verifyConsistencyHex } from '../protocol/verify/proofs.ts';
import { chainCommits, chainSize, type ChainCommit } from '../protocol/verify/log.ts';
import { checkCheckpoint } from '../protocol/verify/checkpoint.ts';
import type { ExpectedRoot } from '../protocol/verify/log-audit.ts';
import { Checks, Tally, type Report } from '../protocol/verify/report.ts';
import type { SignedMemo } from '../protocol/verify/chain.ts';
import type { Checkpoint } from '../protocol/checkpoint.ts';
import { anchorMemos, type VerifierContext } from './context.ts';
import { auditEntries } from './audit.ts';
import { checkWitnesses, commitLogReport, readCheckpoint } from './log.ts';
import { checkManifests } from './manifests.ts';
import { firstTileSince, rangeFromTiles } from './tiles.ts';
import { checkVault } from './trust.ts';
import { STATE_VERSION, exportRng, restoreRng, usedOf, type MonitorState } from './state.ts';

export interface RunResult {
  reports: Report[];
  /** The state to save; null when a violation was found (a monitor never moves onto a fork). */
  state: MonitorState | null;
  /** Entries checked by this run. */
  entries: number;
  size: number;
}

/** The run's footing as a report: the trust root, the RPC's cluster. */
export const setupReport = (ctx: VerifierContext): Report => ({
  subject: `trust root ${ctx.trust.fingerprint.slice(0, 16)}… (${ctx.trust.source}), chain via ${ctx.chain.rpc.url}`,
  ok: ctx.setup.ok,
  checks: ctx.setup.list,
});

/** New commit memos against what a monitor verified: none may rewrite a size at or below it. */
function newCommitChecks(ctx: VerifierContext, prior: MonitorState, commits: readonly ChainCommit[], vaultBalance: bigint | null, checks: Checks): void {
  const verified = new Map(prior.roots);
  const verifiedSize = prior.range.size;
  const history = new Tally('commit-order');
  const unique = new Tally('on-chain-unique');
  const seen = new Map<number, string>();
  for (const c of commits) {
    const { entryCount, betLogRoot } = c.memo;
    if (entryCount <= verifiedSize) {
      const before = verified.get(entryCount);
      history.item(
        before === betLogRoot
          ? null
          : `a commit of size ${entryCount} (${c.signature}) appeared after size ${verifiedSize} was verified${before ? ', with another root (a fork)' : ''}`,
      );
    } else history.item(null);
    const other = seen.get(entryCount);
    unique.item(other !== undefined && other !== betLogRoot ? `two different roots of size ${entryCount} are committed on-chain (a fork)` : null);
    seen.set(entryCount, betLogRoot);
  }
  history.record(checks, 'no new commits');
  unique.record(checks, 'no new commits');
  const rng = new Tally('commit-rng-reveals');
  for (const c of commits) {
    const link = ctx.rng.linkAny(c.memo.rngIndex, c.memo.rngRevealHex);
    rng.item(link.ok ? null : `commit of size ${c.memo.entryCount}: ${link.reason}`);
  }
  rng.record(checks, 'no new commits');
  const newest = commits.reduce<ChainCommit | null>((a, c) => (!a || c.memo.entryCount > a.memo.entryCount ? c : a), null);
  if (newest && vaultBalance !== null) {
    checks.add(
      'solvency',
      newest.memo.totalLiabilities <= vaultBalance,
      `totalLiabilities ${newest.memo.totalLiabilities} of the newest on-chain commit exceed the vault balance ${vaultBalance}`,
    );
  }
}

export async function auditRun(ctx: VerifierContext, prior: MonitorState | null, options: { sinceMs?: number; apiUrl: string }): Promise<RunResult> {
  if (prior) restoreRng(prior, ctx.rng);
  // The chain decides: the anchor keys' memos, all of them or those newer than the saved state.
  let memos: SignedMemo[];
  let anchorNewest: Record<string, string | null>;
  if (!prior) ({ memos, newest: anchorNewest } = await anchorMemos(ctx));
  else {
    memos = [];
    anchorNewest = { ...prior.anchorNewest };
    for (const key of ctx.anchorKeys) {
      const scan = await ctx.chain.scan(key, prior.anchorNewest[key] ? { until: prior.anchorNewest[key] as string } : {});
      memos.push(...scan.memos);
      if (scan.newest) anchorNewest[key] = scan.newest;
    }
    memos.sort((a, b) => a.slot - b.slot);
    for (const m of memos) if (m.memo.kind === 'rng-head') ctx.rng.addHead(m.memo.headHex);
  }
  const commits = chainCommits(memos);
  const verifiedSize = prior?.range.size ?? 0;
  const size = Math.max(verifiedSize, chainSize(commits));
  const reports: Report[] = [setupReport(ctx)];

  let checkpoint: Checkpoint | null = null;
  const commitChecks = new Checks();
  if (!prior) {
    const log = await commitLogReport(ctx, { memos, consistency: false });
    reports.push(log.report);
    checkpoint = log.checkpoint;
  } else {
    newCommitChecks(ctx, prior, commits, await checkVault(ctx.chain, ctx.trust.root, commitChecks), commitChecks);
    const known = new Map(prior.roots);
    for (const c of commits) if (!known.has(c.memo.entryCount)) known.set(c.memo.entryCount, c.memo.betLogRoot);
    try {
      const note = await readCheckpoint(ctx);
      checkWitnesses(ctx, note, commitChecks);
      checkpoint = checkCheckpoint(note, ctx.trust.root.checkpointOrigin, ctx.anchorKeys, { rootAt: (n) => known.get(n), size }, commitChecks);
    } catch (err) {
      commitChecks.error('checkpoint-signature', `the checkpoint cannot be read: ${(err as Error).message}`);
    }
    // The service's own consistency proof from the verified size must agree with the chain's roots.
    const to = commits.filter((c) => c.memo.entryCount > verifiedSize).reduce((n, c) => Math.max(n, c.memo.entryCount), 0);
    const fromRoot = known.get(verifiedSize);
    if (to > verifiedSize && verifiedSize > 0 && fromRoot) {
      const body = await ctx.api.find<{ proof?: unknown }>(`/protocol/v1/bet-log/consistency?from=${verifiedSize}&to=${to}`, 64 * 1024).catch(() => null);
      if (!body) commitChecks.error('consistency', `no consistency proof from ${verifiedSize} to ${to} could be read`);
      else {
        const r = verifyConsistencyHex(verifiedSize, to, body.proof, fromRoot, known.get(to));
        commitChecks.add(
          'consistency',
          r.ok ? r : { ok: false, reason: `the log of size ${to} does not extend the verified log of size ${verifiedSize} (a fork): ${r.reason}` },
        );
      }
    }
    reports.push({ subject: `new commits (${commits.length} on-chain since the saved state)`, ok: commitChecks.ok, checks: commitChecks.list });
  }

  // Entries from the saved range (or the start, or a tile before --since) up to the chain's size.
  const roots = new Map<number, ExpectedRoot>();
  for (const c of commits)
    if (c.memo.entryCount > verifiedSize && !roots.has(c.memo.entryCount))
      roots.set(c.memo.entryCount, { rootHex: c.memo.betLogRoot, source: `the commit in ${c.signature}` });
  if (checkpoint && checkpoint.size > verifiedSize && checkpoint.size <= size && !roots.has(checkpoint.size))
    roots.set(checkpoint.size, { rootHex: checkpoint.rootHex, source: 'the signed checkpoint' });
  let from = prior ? CompactRange.fromJSON(prior.range) : CompactRange.empty();
  if (!prior && options.sinceMs) {
    const start = size > 0 ? await firstTileSince(ctx.api, options.sinceMs, size) : 0;
    if (start > 0) from = await rangeFromTiles(ctx.api, start, size);
  }
  const used = usedOf(prior);
  const {
    audit,
    reports: auditReports,
    resolver,
  } = await auditEntries(ctx, { from, to: size, roots, used, commitTx: (s) => ctx.chain.cached(s), wallets: prior?.wallets ?? {} });
  reports.push(...auditReports);

  const manifests = await checkManifests(ctx, {
    commits,
    ...(options.sinceMs ? { sinceMs: options.sinceMs } : {}),
    ...(prior?.manifest ? { mark: prior.manifest } : {}),
  });
  reports.push(manifests.report);

  const violation = reports.some((r) => r.checks.some((c) => c.status === 'fail'));
  const complete = audit.size === size;
  const rootsDone = [...(prior?.roots ?? []), ...[...audit.reproduced].sort((a, b) => a[0] - b[0])];
  const state: MonitorState | null =
    violation || !complete
      ? null
      : {
          version: STATE_VERSION,
          api: options.apiUrl,
          trustRootFingerprint: ctx.trust.fingerprint,
          range: audit.range.toJSON(),
          roots: rootsDone,
          anchorNewest,
          ...exportRng(ctx.rng),
          used: Object.fromEntries([...audit.used].map(([head, set]) => [head, set.toJSON()])),
          manifest: manifests.mark,
          wallets: Object.fromEntries(resolver.wallets),
          updatedAt: new Date().toISOString(),
        };
  return { reports, state, entries: audit.size - from.size, size };
}
