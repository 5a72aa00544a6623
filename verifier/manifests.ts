// The `manifests` command: walk the manifest chain back to its start, then recompute each eventRoot.
import { NO_MANIFEST_HASH, type JournalEvent, type Manifest } from '../protocol/manifest.ts';
import { manifestEventsProblem, verifyManifestLinks, type ManifestWalk } from '../protocol/verify/manifests.ts';
import { Checks, Tally, type Report } from '../protocol/verify/report.ts';
import type { VerifierContext } from './context.ts';

export interface ManifestsResult {
  report: Report;
  /** Every manifest hash on the chain (for the commit-log check). */
  hashes: Set<string>;
}

async function walk(ctx: VerifierContext, from?: string): Promise<ManifestWalk | null> {
  const start = from
    ? await ctx.api.find<{ manifest: Manifest }>(`/protocol/v1/journal/manifests/${from}`)
    : await ctx.api.find<{ manifest: Manifest }>('/protocol/v1/journal/manifest/latest');
  if (!start) return null;
  const newestFirst: Manifest[] = [start.manifest];
  const seen = new Set([start.manifest.manifestHash]);
  for (;;) {
    const prev = newestFirst[newestFirst.length - 1]!.previousManifestHash;
    if (prev === NO_MANIFEST_HASH) break;
    if (seen.has(prev)) return { manifests: newestFirst.reverse(), missingPredecessor: prev };
    const body = await ctx.api.find<{ manifest: Manifest }>(`/protocol/v1/journal/manifests/${prev}`);
    if (!body || body.manifest.manifestHash !== prev) return { manifests: newestFirst.reverse(), missingPredecessor: prev };
    newestFirst.push(body.manifest);
    seen.add(prev);
  }
  return { manifests: newestFirst.reverse() };
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

/**
 * @param from the manifest to walk back from (default: the latest)
 * @param sinceMs recompute event roots only for manifests created since (links are always walked in full)
 */
export async function manifestsCommand(ctx: VerifierContext, from?: string, sinceMs = 0): Promise<ManifestsResult> {
  const checks = new Checks();
  const w = await walk(ctx, from);
  if (!w) {
    if (from) checks.fail('manifest-links', `no manifest ${from} is published`);
    else checks.skip('manifest-links', 'no manifest is published yet');
    return { report: checks.report('journal manifests'), hashes: new Set() };
  }
  const spans = verifyManifestLinks(w, ctx.config.operatorPublicKey, checks);
  const events = new Tally('manifest-events');
  const todo = spans.filter((s) => s.firstSeq !== null && Date.parse(s.manifest.createdAt) >= sinceMs);
  ctx.progress.start('manifests', todo.length);
  let done = 0;
  for (const span of todo) {
    events.item(manifestEventsProblem(span, await eventsOf(ctx, span.firstSeq as number, span.manifest.eventCount)));
    ctx.progress.update(++done);
  }
  ctx.progress.finish();
  events.record(checks, w.missingPredecessor ? 'the chain is broken, so no seq range is known' : 'no manifests in range');
  return {
    report: checks.report(`journal manifests (${w.manifests.length} on the chain, ${todo.length} recomputed)`),
    hashes: new Set(w.manifests.map((m) => m.manifestHash)),
  };
}
