// The `log` command: the published commits against the anchor key's on-chain memos, with consistency proofs.
import { verifyCommitLog, type PublishedCommit } from '../protocol/verify/log.ts';
import type { Report } from '../protocol/verify/report.ts';
import type { SignedMemo } from '../protocol/verify/chain.ts';
import type { VerifierContext } from './context.ts';

interface CommitsPage {
  commits: PublishedCommit[];
  nextAfterEntryCount: number | null;
}

export async function publishedCommits(ctx: VerifierContext): Promise<PublishedCommit[]> {
  const commits: PublishedCommit[] = [];
  let after = 0;
  for (;;) {
    const page = await ctx.api.get<CommitsPage>(`/protocol/v1/bet-log/commits?afterEntryCount=${after}&limit=1000`);
    commits.push(...page.commits);
    if (page.nextAfterEntryCount === null) return commits;
    after = page.nextAfterEntryCount;
  }
}

/** Every memo the anchor key alone signed, oldest first; registers the chain heads. */
export async function anchorMemos(ctx: VerifierContext): Promise<SignedMemo[]> {
  ctx.progress.start('chain history', 0);
  const memos = await ctx.chain.scan({ onProgress: (n) => ctx.progress.update(n) });
  ctx.progress.finish();
  for (const m of memos) if (m.memo.kind === 'rng-head') ctx.rng.addHead(m.memo.headHex);
  return memos.reverse();
}

export async function logCommand(ctx: VerifierContext, options: { memos?: SignedMemo[]; manifestKnown?: (hash: string) => boolean } = {}): Promise<Report> {
  const [commits, memos, vaultBalance] = await Promise.all([
    publishedCommits(ctx),
    options.memos ? Promise.resolve(options.memos) : anchorMemos(ctx),
    ctx.chain.tokenBalance(ctx.config.vaultTokenAccount),
  ]);
  const proofs = new Map<string, string[]>();
  ctx.progress.start('consistency proofs', Math.max(0, commits.length - 1));
  for (let i = 1; i < commits.length; i++) {
    const a = commits[i - 1]!.entryCount;
    const b = commits[i]!.entryCount;
    if (b <= a) continue;
    const body = await ctx.api.find<{ proof: string[] }>(`/protocol/v1/bet-log/consistency?from=${a}&to=${b}`);
    if (body) proofs.set(`${a}:${b}`, body.proof);
    ctx.progress.update(i);
  }
  ctx.progress.finish();
  const report = verifyCommitLog({
    commits,
    onChain: memos,
    consistency: (a, b) => proofs.get(`${a}:${b}`),
    rng: ctx.rng,
    vaultBalance,
    ...(options.manifestKnown ? { manifestKnown: options.manifestKnown } : {}),
  });
  return { ...report, subject: `bet-log commits (${commits.length} published)` };
}
