// A tile whose receipts all pass their own checks comes back from a worker as a summary, and the log-order
// part of the audit takes it whole: the verdict, every count and every reason must be those of adding its
// entries one by one, and a summary the log's state would fault is refused with nothing changed.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CompactRange } from '../../protocol/compact-range.ts';
import { canonicalize } from '../../protocol/jcs.ts';
import { toHex, utf8 } from '../../protocol/encoding.ts';
import { leafHash, rootFromLeafHashes } from '../../protocol/merkle.ts';
import { sha256 } from '../../protocol/crypto.ts';
import { encodeEntryBundle } from '../../protocol/tlog-tiles.ts';
import { memosSignedBy, type RpcTransaction } from '../../protocol/verify/chain.ts';
import { IndexSet } from '../../protocol/verify/index-set.ts';
import { LogAudit, type ExpectedRoot } from '../../protocol/verify/log-audit.ts';
import type { ReceiptInspection } from '../../protocol/verify/receipt.ts';
import { RngAnchors } from '../../protocol/verify/rng.ts';
import type { SessionKeyLookup } from '../../protocol/verify/session-key.ts';
import { summarizeTile } from '../../protocol/verify/tile-summary.ts';
import { inspectBundle, unpackInspection, type BundleResult } from '../../verifier/inspect-bundle.ts';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/verify/v1.json', import.meta.url), 'utf8')) as {
  config: { ackPublicKey: string; operatorPublicKey: string };
  receipts: Record<string, any>[];
  transactions: Record<string, RpcTransaction>;
};
const { operatorPublicKey, ackPublicKey } = fixture.config;
const ackKeys = [{ publicKey: ackPublicKey, validFrom: '2000-01-01T00:00:00.000Z' }];
const entryOf = (r: Record<string, any>): Uint8Array => utf8(canonicalize(r.verifierPayload.betLogEntry));

// The fixture is a whole log of five entries, one Sweeper ticket among four dice bets.
const tile = (detail = false): BundleResult =>
  inspectBundle({
    start: 0,
    width: fixture.receipts.length,
    from: 0,
    entries: encodeEntryBundle(fixture.receipts.map(entryOf)),
    receipts: utf8(JSON.stringify({ receipts: fixture.receipts })),
    ackKeys,
    detail,
  });

function newAudit(used?: Map<string, IndexSet>, commitTx: (s: string) => RpcTransaction | null | undefined = (s) => fixture.transactions[s]) {
  const rng = new RngAnchors();
  const roots = new Map<number, ExpectedRoot>();
  for (const tx of Object.values(fixture.transactions))
    for (const m of memosSignedBy(tx, operatorPublicKey)) {
      if (m.memo.kind === 'rng-head') rng.addHead(m.memo.headHex);
      if (m.memo.kind === 'commit') roots.set(m.memo.entryCount, { rootHex: m.memo.betLogRoot, source: 'a commit' });
    }
  return new LogAudit({ range: CompactRange.empty(), roots, ...(used ? { used } : {}), context: { operatorPublicKey, rng, commitTx } });
}

function byEntry(audit: LogAudit, result: BundleResult): void {
  for (const [i, leafHex] of result.leaves!.entries()) audit.add({ index: i, leafHex, inspection: unpackInspection(result, i) });
}

const lookups: Record<string, (key: string) => SessionKeyLookup | undefined> = {
  'not looked up': () => undefined,
  missing: (key) => ({ status: 'missing', reason: `no setup of ${key}` }),
  'revoked before': (key) => ({
    status: 'found',
    history: {
      wallet: 'W',
      sessionPubkey: key,
      events: [
        { kind: 'setup', wallet: 'W', sessionPubkey: key, signature: 'a', slot: 1, blockTime: 0 },
        { kind: 'revoke', wallet: 'W', sessionPubkey: key, signature: 'b', slot: 2, blockTime: 1 },
      ],
    },
  }),
  authorized: (key) => ({
    status: 'found',
    history: { wallet: 'W', sessionPubkey: key, events: [{ kind: 'setup', wallet: 'W', sessionPubkey: key, signature: 'a', slot: 1, blockTime: 0 }] },
  }),
};

describe('tile summaries', () => {
  it('an honest tile is summarized, with its leaves and their subtree root', () => {
    const result = tile();
    expect(result.summary).not.toBeNull();
    expect(result.packed).toBeNull();
    const leaves = fixture.receipts.map((r) => leafHash(entryOf(r)));
    expect(result.leafBytes).toEqual(Uint8Array.from(leaves.flatMap((l) => [...l])));
    expect(result.summary!.count).toBe(5);
    // Only a whole tile of 256 is a subtree of the tree; five entries are not.
    expect(result.summary!.subtreeRoot).toBeNull();
    expect(result.summary!.used.flatMap((u) => u.runs)).toEqual([1, 6]);
    expect(tile(true).summary).toBeNull();
  });

  for (const [name, lookup] of Object.entries(lookups)) {
    it(`gives the very reports of adding each entry, with session keys ${name}`, () => {
      const summarized = newAudit();
      const result = tile();
      expect(summarized.addTile(0, result.summary!, result.leafBytes!)).toBe(true);
      const each = newAudit();
      byEntry(each, tile(true));
      expect(summarized.size).toBe(5);
      expect([...summarized.reproduced]).toEqual([...each.reproduced]);
      expect(summarized.range.toJSON()).toEqual(each.range.toJSON());
      expect(summarized.sessionKeys()).toEqual(each.sessionKeys());
      expect(JSON.stringify([...summarized.used].map(([h, s]) => [h, s.toJSON()]))).toBe(JSON.stringify([...each.used].map(([h, s]) => [h, s.toJSON()])));
      expect(summarized.finish(lookup)).toEqual(each.finish(lookup));
    });
  }

  it('is refused, changing nothing, when an RNG index was used before; entry by entry reports it', () => {
    const head = fixture.receipts[0]!.proof.rngChainHead as string;
    const used = new Map([[head, IndexSet.fromJSON([[4, 4]])]]);
    const audit = newAudit(used);
    const result = tile();
    expect(audit.addTile(0, result.summary!, result.leafBytes!)).toBe(false);
    expect(audit.size).toBe(0);
    expect(used.get(head)!.toJSON()).toEqual([[4, 4]]);
    byEntry(audit, tile(true));
    const [summary] = audit.finish(() => undefined);
    expect(summary!.checks.find((c) => c.name === 'rng-index-unique')).toMatchObject({ status: 'fail' });
  });

  it('is refused when a commit its receipts name is not on-chain', () => {
    const audit = newAudit(undefined, () => null);
    const result = tile();
    expect(audit.addTile(0, result.summary!, result.leafBytes!)).toBe(false);
    expect(audit.size).toBe(0);
  });

  it('leaves to the entry-by-entry path reveals that do not hash-link, an index used twice, or a leaf not rebuilt', () => {
    // s_20 is a seed, s_(i-1) = sha256(s_i), s_0 the head.
    const values: Uint8Array[] = [new Uint8Array(32).fill(9)];
    for (let i = 0; i < 20; i++) values.unshift(sha256(values[0]!));
    const value = (i: number) => toHex(values[i]!);
    const head = value(0);
    const x = (i: number, index: number, v = value(index)): ReceiptInspection => ({
      subject: `receipt r${i}`,
      receiptId: `r${i}`,
      checks: [{ name: 'outcome', status: 'pass' }],
      leafHex: `${i}`.padStart(64, '0'),
      rngLinks: [{ check: 'rng-reveal', head, index, value: v }],
      rngUses: [{ head, index }],
      sessionKeys: [],
      anchor: null,
    });
    const leaves = [0, 1, 2].map((i) => `${i}`.padStart(64, '0'));
    const summary = summarizeTile(0, leaves, [x(0, 3), x(1, 5), x(2, 4)], null);
    expect(summary!.rng).toEqual([{ head, lo: 3, loValue: value(3), hi: 5, hiValue: value(5), checks: [['rng-reveal', 3]] }]);
    expect(summary!.used).toEqual([{ head, runs: [3, 5] }]);
    expect(summarizeTile(0, leaves, [x(0, 3), x(1, 5, 'ab'.repeat(32)), x(2, 4)], null)).toBeNull();
    expect(summarizeTile(0, leaves, [x(0, 3), x(1, 3), x(2, 4)], null)).toBeNull();
    expect(summarizeTile(0, leaves, [x(0, 3), { ...x(1, 5), leafHex: 'ff'.repeat(32) }, x(2, 4)], null)).toBeNull();
    expect(summarizeTile(0, leaves, [x(0, 3), { ...x(1, 5), checks: [{ name: 'outcome', status: 'fail', reason: 'no' }] }, x(2, 4)], null)).toBeNull();
  });

  it('a whole aligned tile joins the range as one subtree, as its leaves one by one would', () => {
    const leaves = Array.from({ length: 256 * 3 }, (_, i) => leafHash(utf8(`entry ${i}`)));
    const one = CompactRange.empty();
    const tiles = CompactRange.empty();
    for (const l of leaves) one.append(l);
    for (let t = 0; t < 3; t++) tiles.appendSubtree(rootFromLeafHashes(leaves.slice(t * 256, t * 256 + 256)), 8);
    expect(tiles.toJSON()).toEqual(one.toJSON());
    expect(() => CompactRange.empty().appendSubtree(leaves[0]!, 0)).not.toThrow();
    const odd = CompactRange.empty();
    odd.append(leaves[0]!);
    expect(() => odd.appendSubtree(leaves[1]!, 8)).toThrow(RangeError);
  });

  it('an index set takes a run only when none of it is there', () => {
    const set = IndexSet.fromJSON([
      [1, 3],
      [10, 12],
    ]);
    expect(set.addRun(5, 8)).toBe(true);
    expect(set.addRun(8, 9)).toBe(false);
    expect(set.addRun(4, 4)).toBe(true);
    expect(set.addRun(9, 9)).toBe(true);
    expect(set.toJSON()).toEqual([[1, 12]]);
    expect(set.size).toBe(12);
  });
});
