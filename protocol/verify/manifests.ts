/**
 * Verifies the journal manifest chain: every manifest's hash and anchor-key signature, every link to
 * its predecessor back to the first manifest, and each `eventRoot` recomputed from the public events.
 *
 * Manifests cover the journal contiguously from its first event (seq 1), so the seq range of each
 * follows from the event counts before it; that is how a verifier fetches a manifest's events.
 * @module
 */
import { NO_MANIFEST_HASH, eventRootHex, verifyManifest, type JournalEvent, type Manifest } from '../manifest.ts';
import { Tally, type Checks } from './report.ts';
import { isRecord } from './turn.ts';

/** The chain as a verifier walked it back from the newest manifest. */
export interface ManifestWalk {
  /** Oldest first. */
  manifests: readonly Manifest[];
  /** The predecessor hash the walk could not fetch, when the chain did not reach the first manifest. */
  missingPredecessor?: string;
  /** When set, the walk stopped on purpose at this hash (it is the oldest manifest in `manifests`). */
  stoppedAt?: string;
}

/** A manifest with the seq of its first event; null when the chain did not reach the first manifest. */
export interface ManifestSpan {
  manifest: Manifest;
  firstSeq: number | null;
}

const short = (hash: unknown): string => (typeof hash === 'string' ? `${hash.slice(0, 12)}…` : '?');

/**
 * Checks signatures and links; returns the span of each manifest (oldest first) for the event checks.
 * Records `manifest-signatures` and `manifest-links`.
 */
export function verifyManifestLinks(walk: ManifestWalk, operatorPublicKey: string | readonly string[], checks: Checks): ManifestSpan[] {
  const keys = typeof operatorPublicKey === 'string' ? [operatorPublicKey] : operatorPublicKey;
  const signatures = new Tally('manifest-signatures');
  const links = new Tally('manifest-links');
  const { manifests } = walk;
  const oldest = manifests[0];
  if (walk.missingPredecessor !== undefined) {
    links.item(`manifest ${short(oldest?.manifestHash)} names predecessor ${short(walk.missingPredecessor)}, which is not published (a dropped link)`);
  } else if (oldest && walk.stoppedAt === undefined) {
    links.item(oldest.previousManifestHash === NO_MANIFEST_HASH ? null : `the oldest manifest ${short(oldest.manifestHash)} does not start the chain`);
  }
  const spans: ManifestSpan[] = [];
  let seq: number | null = walk.missingPredecessor === undefined && walk.stoppedAt === undefined ? 1 : null;
  const seen = new Set<string>();
  manifests.forEach((m, k) => {
    let check = verifyManifest(m, keys[0] ?? '');
    for (const key of keys.slice(1)) if (!check.ok) check = verifyManifest(m, key);
    signatures.item(check.ok ? null : `manifest ${short(isRecord(m) ? m.manifestHash : undefined)}: ${check.reason}`);
    if (k > 0) {
      const prev = manifests[k - 1] as Manifest;
      links.item(
        m.previousManifestHash === prev.manifestHash ? null : `manifest ${short(m.manifestHash)} does not name ${short(prev.manifestHash)} as its predecessor`,
      );
    }
    if (seen.has(m.manifestHash)) links.item(`manifest ${short(m.manifestHash)} appears twice in the chain`);
    seen.add(m.manifestHash);
    if (!Number.isSafeInteger(m.eventCount) || m.eventCount < 1) signatures.item(`manifest ${short(m.manifestHash)} covers no events`);
    spans.push({ manifest: m, firstSeq: seq });
    if (seq !== null) seq += Number.isSafeInteger(m.eventCount) ? m.eventCount : 0;
  });
  signatures.record(checks, 'no manifests were published');
  links.record(checks, 'no manifests were published');
  return spans;
}

/**
 * Checks that `events` are exactly the span's events and that their root is the signed `eventRoot`.
 * @returns the failure reason, or null when the events match
 */
export function manifestEventsProblem(span: ManifestSpan, events: readonly JournalEvent[]): string | null {
  const m = span.manifest;
  const name = `manifest ${short(m.manifestHash)}`;
  if (events.length !== m.eventCount) return `${name} covers ${m.eventCount} events, the journal serves ${events.length}`;
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as JournalEvent;
    if (!isRecord(e) || typeof e.id !== 'string' || typeof e.type !== 'string' || typeof e.at !== 'string') return `${name}: event ${i} is malformed`;
    if (span.firstSeq !== null && e.seq !== span.firstSeq + i) return `${name}: event ${e.id} has seq ${e.seq}, expected ${span.firstSeq + i}`;
  }
  if (events[0]?.id !== m.firstEventId) return `${name}: the first event is ${events[0]?.id}, the manifest says ${m.firstEventId}`;
  if (events[events.length - 1]?.id !== m.lastEventId) return `${name}: the last event is ${events[events.length - 1]?.id}, the manifest says ${m.lastEventId}`;
  let root: string;
  try {
    root = eventRootHex(events);
  } catch {
    return `${name}: an event has no canonical JSON form`;
  }
  return root === m.eventRoot
    ? null
    : `${name}: the events' root ${short(root)} is not the signed eventRoot ${short(m.eventRoot)} (an event changed after signing)`;
}

/**
 * The manifests the chain's commit memos name, against the walked chain: each must be on it, and later
 * commits never name earlier manifests. The operator signs each manifest once per predecessor, so a
 * commit naming a manifest off the served chain shows a fork the chain walk alone cannot see.
 * Records `manifest-fork`.
 * @param positions each known manifest hash and its position on the chain (0 for the first manifest)
 */
export function checkManifestFork(
  positions: ReadonlyMap<string, number>,
  commits: readonly { memo: { entryCount: number; manifestHash: string } }[],
  checks: Checks,
): void {
  const fork = new Tally('manifest-fork');
  let highest = -1;
  for (const c of commits) {
    const h = c.memo.manifestHash;
    if (h === NO_MANIFEST_HASH) {
      fork.item(highest >= 0 ? `the commit of size ${c.memo.entryCount} names no manifest after one that did` : null);
      continue;
    }
    const at = positions.get(h);
    if (at === undefined) fork.item(`the commit of size ${c.memo.entryCount} names manifest ${short(h)}, which is not on the served chain (a fork)`);
    else if (at < highest) fork.item(`the commit of size ${c.memo.entryCount} names manifest ${short(h)}, older than one an earlier commit named`);
    else {
      highest = at;
      fork.item(null);
    }
  }
  fork.record(checks, 'no commit memo names a manifest');
}
