// The `manifests` command and the manifest part of `all` and `monitor`: walk the signed chain back (to its
// start, or to the manifest a monitor saved), recompute each eventRoot from the public events, and check
// that every manifest the on-chain commits name is on that chain (a fork is not visible otherwise).
import { NO_MANIFEST_HASH, type JournalEvent, type Manifest } from '../protocol/manifest.ts';
import { checkManifestFork, manifestEventsProblem, verifyManifestLinks, type ManifestWalk } from '../protocol/verify/manifests.ts';
import { chainCommits, type ChainCommit } from '../protocol/verify/log.ts';
import { Checks, Tally, type Report } from '../protocol/verify/report.ts';
import type { SignedMemo } from '../protocol/verify/chain.ts';
import { anchorMemos, type VerifierContext } from './context.ts';

/** Where a monitor's last verified manifest sits: its hash, its position on the chain, its last event. */
export interface ManifestMark {
  hash: string;
  /** 0 for the first manifest. */
  position: number;
  /** seq of the last event it covers. */
  lastSeq: number;
  /** The latest manifests and their positions, for commits that name a recent one. */
  recent: [string, number][];
}

export interface ManifestsResult {
  report: Report;
  /** Every manifest hash walked, with its position. */
  positions: Map<string, number>;
  /** The newest manifest, as a monitor keeps it; null when none or the chain is broken. */
  mark: ManifestMark | null;
}

const MAX_CHAIN = 1_000_000;
const RECENT = 64;

async function walk(ctx: VerifierContext, stopAt?: string): Promise<(ManifestWalk & { stoppedAtMark: boolean }) | null> {
  const start = await ctx.api.find<{ manifest: Manifest }>('/protocol/v1/journal/manifest/latest');
  if (!start) return null;
  const newestFirst: Manifest[] = [start.manifest];
  const seen = new Set([start.manifest.manifestHash]);
  if (start.manifest.manifestHash === stopAt) return { manifests: [], stoppedAt: stopAt, stoppedAtMark: true };
  for (;;) {
    const prev = newestFirst[newestFirst.length - 1]!.previousManifestHash;
    if (prev === NO_MANIFEST_HASH) break;
    if (prev === stopAt) return { manifests: newestFirst.reverse(), stoppedAt: prev, stoppedAtMark: true };
    if (seen.has(prev) || newestFirst.length >= MAX_CHAIN) return { manifests: newestFirst.reverse(), missingPredecessor: prev, stoppedAtMark: false };
    const body = await ctx.api.find<{ manifest: Manifest }>(`/protocol/v1/journal/manifests/${prev}`);
    if (!body || body.manifest?.manifestHash !== prev) return { manifests: newestFirst.reverse(), missingPredecessor: prev, stoppedAtMark: false };
    newestFirst.push(body.manifest);
    seen.add(prev);
  }
  return { manifests: newestFirst.reverse(), stoppedAtMark: false };
}

async function eventsOf(ctx: VerifierContext, firstSeq: number, count: number): Promise<JournalEvent[]> {
  const out: JournalEvent[] = [];
  while (out.length < count) {
    const limit = Math.min(1000, count - out.length);
    const page = await ctx.api.get<{ events: JournalEvent[] }>(`/protocol/v1/journal/events?afterSeq=${firstSeq - 1 + out.length}&limit=${limit}`);
    out.push(...page.events);
    if (page.events.length < limit) break;
  }
  return out;
}

export interface ManifestOptions {
  /** The on-chain commit memos, for the fork check. */
  commits: readonly ChainCommit[];
  /** Recompute event roots only for manifests created since (links are always walked). */
  sinceMs?: number;
  /** A monitor's saved manifest: walk back to it only, and fail when the new chain does not reach it. */
  mark?: ManifestMark;
}

export async function checkManifests(ctx: VerifierContext, options: ManifestOptions): Promise<ManifestsResult> {
  const checks = new Checks();
  const positions = new Map<string, number>(options.mark?.recent ?? []);
  const w = await walk(ctx, options.mark?.hash);
  if (!w) {
    if (options.mark) checks.fail('manifest-links', `the service serves no manifest, though ${options.mark.hash.slice(0, 12)}… was verified before`);
    else checks.skip('manifest-links', 'no manifest is published yet');
    checkManifestFork(positions, options.commits, checks);
    return { report: checks.report('journal manifests'), positions, mark: options.mark ?? null };
  }
  if (options.mark && !w.stoppedAtMark) {
    checks.fail(
      'manifest-history',
      `the manifest chain no longer passes through ${options.mark.hash.slice(0, 12)}…, which was verified before (history was rewritten)`,
    );
  }
  const spans = verifyManifestLinks(w, ctx.anchorKeys, checks);
  // From a mark, seqs continue after the marked manifest's last event, positions after its position.
  const base = options.mark && w.stoppedAtMark ? options.mark.position + 1 : w.missingPredecessor ? null : 0;
  let seq = options.mark && w.stoppedAtMark ? options.mark.lastSeq + 1 : null;
  const resolved = spans.map((s, k) => {
    const firstSeq = s.firstSeq ?? seq;
    if (firstSeq !== null) seq = firstSeq + s.manifest.eventCount;
    if (base !== null) positions.set(s.manifest.manifestHash, base + k);
    return { ...s, firstSeq };
  });
  if (options.mark && w.stoppedAtMark) {
    const first = w.manifests[0];
    if (first && first.previousManifestHash !== options.mark.hash) checks.fail('manifest-links', 'the new manifests do not follow the saved one');
  }
  const events = new Tally('manifest-events');
  const todo = resolved.filter((s) => s.firstSeq !== null && Date.parse(s.manifest.createdAt) >= (options.sinceMs ?? 0));
  ctx.progress.start('manifests', todo.length);
  let done = 0;
  for (const span of todo) {
    events.item(manifestEventsProblem(span, await eventsOf(ctx, span.firstSeq as number, span.manifest.eventCount)));
    ctx.progress.update(++done);
  }
  ctx.progress.finish();
  events.record(checks, w.missingPredecessor ? 'the chain is broken, so no seq range is known' : 'no new manifests');
  checkManifestFork(positions, options.commits, checks);
  const newest = resolved[resolved.length - 1];
  let mark: ManifestMark | null = options.mark ?? null;
  if (newest && newest.firstSeq !== null && positions.has(newest.manifest.manifestHash)) {
    const recent = [...positions].sort((a, b) => a[1] - b[1]).slice(-RECENT);
    mark = {
      hash: newest.manifest.manifestHash,
      position: positions.get(newest.manifest.manifestHash)!,
      lastSeq: newest.firstSeq + newest.manifest.eventCount - 1,
      recent,
    };
  }
  return {
    report: checks.report(`journal manifests (${w.manifests.length} ${options.mark ? 'new' : 'on the chain'}, ${todo.length} recomputed)`),
    positions,
    mark,
  };
}

export async function manifestsCommand(ctx: VerifierContext, memos?: SignedMemo[]): Promise<Report[]> {
  const all = memos ?? (await anchorMemos(ctx)).memos;
  return [(await checkManifests(ctx, { commits: chainCommits(all) })).report];
}
