// Journal manifests: the pinned hash and signature, chain links, and events recomputed against eventRoot.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import {
  NO_MANIFEST_HASH,
  buildManifestBody,
  eventLeafHex,
  eventRootHex,
  manifestHashOf,
  signManifest,
  verifyManifest,
  type JournalEvent,
  type Manifest,
} from '../../protocol/manifest.ts';
import { Checks } from '../../protocol/verify/report.ts';
import { manifestEventsProblem, verifyManifestLinks } from '../../protocol/verify/manifests.ts';

const seed = new Uint8Array(32).fill(7);
const operator = base58.encode(ed25519.getPublicKey(seed));
const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

const events = (from: number, n: number): JournalEvent[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `${1_700_000_000_000 + from + i}-0`,
    seq: from + i,
    type: i % 2 ? 'bet_settled' : 'deposit_credited',
    at: new Date(1_700_000_000_000 + (from + i) * 1000).toISOString(),
    data: { player: `p_${from + i}`, amount: String(1000 * (from + i)) },
  }));

/** A chain of manifests over consecutive slices of one journal. */
function chain(sizes: number[]): { manifests: Manifest[]; journal: JournalEvent[] } {
  const journal = events(
    1,
    sizes.reduce((a, b) => a + b, 0),
  );
  const manifests: Manifest[] = [];
  let at = 0;
  for (const n of sizes) {
    const prev = manifests[manifests.length - 1]?.manifestHash ?? NO_MANIFEST_HASH;
    manifests.push(signManifest(buildManifestBody(journal.slice(at, at + n), prev, operator, new Date(1_800_000_000_000 + at).toISOString()), seed));
    at += n;
  }
  return { manifests, journal };
}

const spanEvents = (journal: JournalEvent[], firstSeq: number, count: number) => journal.filter((e) => e.seq >= firstSeq && e.seq < firstSeq + count);

describe('manifest format', () => {
  it('hashes the JCS of the body and signs "pfws:v1:manifest:<hash>" with the anchor key', () => {
    const evs = events(1, 3);
    const m = signManifest(buildManifestBody(evs, NO_MANIFEST_HASH, operator, '2026-01-01T00:00:00.000Z'), seed);
    // Spelled out independently: RFC 8785 orders keys by code unit; no whitespace.
    const jcs = `{"createdAt":"2026-01-01T00:00:00.000Z","eventCount":3,"eventRoot":"${m.eventRoot}","firstEventId":"${evs[0]!.id}","lastEventId":"${evs[2]!.id}","operatorPublicKey":"${operator}","previousManifestHash":"${NO_MANIFEST_HASH}","version":1}`;
    expect(m.manifestHash).toBe(sha(jcs));
    expect(Object.keys(m).sort()).toEqual([
      'createdAt',
      'eventCount',
      'eventRoot',
      'firstEventId',
      'lastEventId',
      'manifestHash',
      'operatorPublicKey',
      'previousManifestHash',
      'signature',
      'version',
    ]);
    expect(ed25519.verify(Buffer.from(m.signature, 'base64'), new TextEncoder().encode(`pfws:v1:manifest:${m.manifestHash}`), ed25519.getPublicKey(seed))).toBe(
      true,
    );
    expect(verifyManifest(m, operator)).toEqual({ ok: true });
  });

  it('hashes each event as an RFC 6962 leaf of the JCS of { id, seq, type, at, data }', () => {
    const [e] = events(5, 1);
    const jcs = `{"at":"${e!.at}","data":{"amount":"5000","player":"p_5"},"id":"${e!.id}","seq":5,"type":"deposit_credited"}`;
    expect(eventLeafHex(e!)).toBe(sha(Buffer.concat([Buffer.of(0), Buffer.from(jcs)])));
    expect(eventRootHex([e!])).toBe(eventLeafHex(e!));
    expect(eventRootHex([])).toBe(sha(''));
  });

  it('rejects a changed field, a foreign key and a forged signature', () => {
    const { manifests } = chain([3]);
    const m = manifests[0]!;
    expect(verifyManifest({ ...m, eventCount: 4 }, operator)).toMatchObject({ ok: false, reason: expect.stringContaining('manifestHash') });
    const other = base58.encode(ed25519.getPublicKey(new Uint8Array(32).fill(9)));
    expect(verifyManifest(m, other)).toMatchObject({ ok: false, reason: expect.stringContaining('anchor key') });
    const forged = signManifest({ ...m, eventCount: 4 }, new Uint8Array(32).fill(9));
    expect(
      verifyManifest({ ...forged, operatorPublicKey: operator, manifestHash: manifestHashOf({ ...forged, operatorPublicKey: operator }) }, operator),
    ).toMatchObject({
      ok: false,
      reason: expect.stringContaining('signature'),
    });
    expect(verifyManifest({ ...m, version: 2 }, operator).ok).toBe(false);
    expect(verifyManifest(null, operator).ok).toBe(false);
  });
});

describe('manifest chain', () => {
  it('passes a complete chain and recomputes every eventRoot from the journal', () => {
    const { manifests, journal } = chain([3, 1, 5]);
    const checks = new Checks();
    const spans = verifyManifestLinks({ manifests }, operator, checks);
    expect(checks.ok).toBe(true);
    expect(spans.map((s) => s.firstSeq)).toEqual([1, 4, 5]);
    for (const s of spans) expect(manifestEventsProblem(s, spanEvents(journal, s.firstSeq!, s.manifest.eventCount))).toBeNull();
  });

  it('catches an event changed after its manifest was signed', () => {
    const { manifests, journal } = chain([3, 4]);
    const spans = verifyManifestLinks({ manifests }, operator, new Checks());
    const tampered = journal.map((e) => (e.seq === 5 ? { ...e, data: { ...(e.data as object), amount: '1' } } : e));
    expect(manifestEventsProblem(spans[1]!, spanEvents(tampered, 4, 4))).toMatch(/not the signed eventRoot .*changed after signing/);
    expect(manifestEventsProblem(spans[0]!, spanEvents(tampered, 1, 3))).toBeNull();
    expect(manifestEventsProblem(spans[1]!, spanEvents(journal, 4, 3))).toMatch(/covers 4 events, the journal serves 3/);
    const renumbered = spanEvents(journal, 4, 4).map((e, i) => ({ ...e, seq: i === 1 ? 99 : e.seq }));
    expect(manifestEventsProblem(spans[1]!, renumbered)).toMatch(/has seq 99, expected 5/);
  });

  it('catches a dropped link, a broken link and a chain that does not start at the first manifest', () => {
    const { manifests } = chain([2, 2, 2]);
    const dropped = new Checks();
    verifyManifestLinks({ manifests: manifests.slice(2), missingPredecessor: manifests[2]!.previousManifestHash }, operator, dropped);
    expect(dropped.list.find((c) => c.name === 'manifest-links')).toMatchObject({ status: 'fail', reason: expect.stringContaining('dropped link') });

    const skipped = new Checks();
    verifyManifestLinks({ manifests: [manifests[0]!, manifests[2]!] }, operator, skipped);
    expect(skipped.list.find((c) => c.name === 'manifest-links')).toMatchObject({ status: 'fail', reason: expect.stringContaining('predecessor') });

    const headless = new Checks();
    verifyManifestLinks({ manifests: manifests.slice(1) }, operator, headless);
    expect(headless.list.find((c) => c.name === 'manifest-links')).toMatchObject({
      status: 'fail',
      reason: expect.stringContaining('does not start the chain'),
    });

    const partial = new Checks();
    const spans = verifyManifestLinks({ manifests: manifests.slice(1), stoppedAt: manifests[1]!.manifestHash }, operator, partial);
    expect(partial.ok).toBe(true);
    expect(spans[0]!.firstSeq).toBeNull();
  });

  it('catches a manifest signed by another key inside the chain', () => {
    const { manifests, journal } = chain([2, 2]);
    const foreign = signManifest(
      buildManifestBody(journal.slice(2), manifests[0]!.manifestHash, operator, '2026-01-01T00:00:00.000Z'),
      new Uint8Array(32).fill(3),
    );
    const checks = new Checks();
    verifyManifestLinks({ manifests: [manifests[0]!, foreign] }, operator, checks);
    expect(checks.list.find((c) => c.name === 'manifest-signatures')).toMatchObject({
      status: 'fail',
      reason: expect.stringContaining('signature does not verify'),
    });
  });
});
