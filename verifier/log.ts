// The `log` command and the commit-log part of `all` and `monitor`: the anchor keys' commit memos decide,
// the published list and proofs must agree with them, the checkpoint must be one of them, and the
// newest liabilities must fit in the pinned vault.
import { verifyCommitLog, chainCommits, type PublishedCommit, type ChainCommit } from '../protocol/verify/log.ts';
import { checkCheckpoint, committedRootsOf } from '../protocol/verify/checkpoint.ts';
import { Checks, type Report } from '../protocol/verify/report.ts';
import type { SignedMemo } from '../protocol/verify/chain.ts';
import type { Checkpoint } from '../protocol/checkpoint.ts';
import { anchorMemos, type VerifierContext } from './context.ts';
import { FetchError } from './http.ts';
import { checkVault } from './trust.ts';
import { cosigningWitnesses } from '../protocol/witness.ts';

interface CommitsPage {
  commits: PublishedCommit[];
  nextAfterEntryCount: number | null;
}

export async function publishedCommits(ctx: VerifierContext): Promise<PublishedCommit[]> {
  const commits: PublishedCommit[] = [];
  let after = 0;
  for (;;) {
    const page = await ctx.api.get<CommitsPage>(`/protocol/v1/bet-log/commits?afterEntryCount=${after}&limit=1000`);
    if (!Array.isArray(page.commits)) throw new FetchError('the commit list is malformed');
    commits.push(...page.commits);
    if (page.nextAfterEntryCount === null || !page.commits.length) return commits;
    // A page must move forward: a service that pages forever is refused, not followed.
    if (!Number.isSafeInteger(page.nextAfterEntryCount) || page.nextAfterEntryCount <= after || commits.length > 10_000_000)
      throw new FetchError('the commit list does not page forward');
    after = page.nextAfterEntryCount;
  }
}

/**
 * The witnesses' cosignatures on the served checkpoint: at least the quorum of the `--witness` keys must have
 * cosigned it (c2sp.org/tlog-cosignature). Nothing is checked when no witness is given.
 */
export function checkWitnesses(ctx: VerifierContext, note: string | null, checks: Checks): void {
  const { keys, quorum } = ctx.witnesses;
  if (!keys.length) return;
  const cosigners = note === null ? [] : cosigningWitnesses(note, keys);
  checks.add(
    'checkpoint-witnesses',
    cosigners.length >= quorum,
    `the checkpoint carries valid cosignatures by ${cosigners.length} of the ${keys.length} given witnesses (${cosigners.join(', ') || 'none'}), fewer than the quorum of ${quorum}`,
  );
}

/** The served checkpoint note; null when none is served. */
export async function readCheckpoint(ctx: VerifierContext): Promise<string | null> {
  try {
    return await ctx.api.text('/protocol/v1/bet-log/checkpoint', 64 * 1024);
  } catch (err) {
    if (err instanceof FetchError && err.notFound) return null;
    throw err;
  }
}

export interface CommitLogOptions {
  memos: SignedMemo[];
  /** Fetch and check the published consistency proofs (an entry audit proves more, and needs none). */
  consistency: boolean;
  manifestKnown?: (hash: string) => boolean;
}

/** The commit log and the checkpoint; returns the report and the verified checkpoint, if any. */
export async function commitLogReport(
  ctx: VerifierContext,
  options: CommitLogOptions,
): Promise<{ report: Report; checkpoint: Checkpoint | null; commits: ChainCommit[] }> {
  const commits = chainCommits(options.memos);
  const extra = new Checks();
  let published: PublishedCommit[] = [];
  try {
    published = await publishedCommits(ctx);
  } catch (err) {
    extra.error('published-commits', `the published commit list cannot be read: ${(err as Error).message}`);
  }
  const proofs = new Map<string, readonly string[]>();
  if (options.consistency) {
    const sizes = [...new Set(commits.map((c) => c.memo.entryCount))].sort((a, b) => a - b);
    ctx.progress.start('consistency proofs', Math.max(0, sizes.length - 1));
    for (let i = 1; i < sizes.length; i++) {
      const body = await ctx.api.find<{ proof?: unknown }>(`/protocol/v1/bet-log/consistency?from=${sizes[i - 1]}&to=${sizes[i]}`, 64 * 1024);
      if (body && Array.isArray(body.proof)) proofs.set(`${sizes[i - 1]}:${sizes[i]}`, body.proof as string[]);
      ctx.progress.update(i);
    }
    ctx.progress.finish();
  }
  const vaultBalance = await checkVault(ctx.chain, ctx.trust.root, extra);
  const report = verifyCommitLog({
    commits: published,
    onChain: options.memos,
    consistency: (a, b) => proofs.get(`${a}:${b}`),
    rng: ctx.rng,
    ...(options.consistency ? {} : { consistencyProvedElsewhere: true }),
    ...(vaultBalance !== null ? { vaultBalance } : {}),
    ...(options.manifestKnown ? { manifestKnown: options.manifestKnown } : {}),
  });
  if (vaultBalance === null) extra.error('solvency', 'the vault balance is not known, so solvency is not checked');
  let checkpoint: Checkpoint | null = null;
  try {
    const note = await readCheckpoint(ctx);
    checkpoint = checkCheckpoint(note, ctx.trust.root.checkpointOrigin, ctx.anchorKeys, committedRootsOf(commits), extra);
    checkWitnesses(ctx, note, extra);
  } catch (err) {
    extra.error('checkpoint-signature', `the checkpoint cannot be read: ${(err as Error).message}`);
  }
  const checks = [...report.checks, ...extra.list];
  return {
    report: { subject: `bet-log commits (${commits.length} on-chain, ${published.length} published)`, ok: checks.every((c) => c.status !== 'fail'), checks },
    checkpoint,
    commits,
  };
}

export async function logCommand(ctx: VerifierContext): Promise<Report[]> {
  const { memos } = await anchorMemos(ctx);
  return [(await commitLogReport(ctx, { memos, consistency: true })).report];
}
