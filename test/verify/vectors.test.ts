// The negative conformance set in test/vectors/pfws/: every valid vector passes, and every tampered case
// fails exactly the check it names (among possibly others). Another verifier can run the same files.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseMemo } from '../../protocol/memo.ts';
import { fromBase64 } from '../../protocol/encoding.ts';
import { leafHash } from '../../protocol/merkle.ts';
import { toHex } from '../../protocol/encoding.ts';
import { decodeEntryBundle } from '../../protocol/tlog-tiles.ts';
import { CompactRange } from '../../protocol/compact-range.ts';
import { parseTrustRoot, trustRootDifferences } from '../../protocol/trust-root.ts';
import {
  Checks,
  LogAudit,
  RngAnchors,
  checkCheckpoint,
  checkManifestFork,
  checkSessionKey,
  inspectReceipt,
  manifestEventsProblem,
  verifyCommitLog,
  verifyManifestLinks,
  verifyReceipt,
  verifyStateProofResponse,
  type Check,
  type SignedMemo,
} from '../../protocol/verify/index.ts';

type Json = any;
const load = (name: string): Json => JSON.parse(readFileSync(new URL(`../vectors/pfws/${name}`, import.meta.url), 'utf8'));
const statusOf = (checks: readonly Check[], name: string) => checks.filter((c) => c.name === name).map((c) => c.status);
const noFailures = (checks: readonly Check[]) => checks.filter((c) => c.status === 'fail' || c.status === 'error');
const cases = (list: Json[]): [string, string, Json][] => list.map((c) => [c.check, c.description, c]);

function receiptContext(context: Json) {
  const rng = new RngAnchors();
  for (const h of context.rngHeads) rng.addHead(h);
  return {
    ackPublicKey: context.ackPublicKey,
    operatorPublicKey: context.anchorPublicKey,
    rng,
    commitTx: (s: string) => context.transactions[s] ?? null,
    sessionKey: (k: string) =>
      context.sessionKeys[k]
        ? { status: 'found' as const, history: { ...context.sessionKeys[k], sessionPubkey: k } }
        : { status: 'missing' as const, reason: 'no setup on-chain' },
  };
}

describe('receipts.json', () => {
  const file = load('receipts.json');
  it('every valid receipt passes every check', () => {
    for (const r of file.valid) expect(noFailures(verifyReceipt(r, receiptContext(file.context)).checks), r.id).toEqual([]);
  });
  it.each(cases(file.invalid))('%s: %s', (check, _d, c) => {
    expect(statusOf(verifyReceipt(c.receipt, receiptContext(file.context)).checks, check)).toContain('fail');
  });
});

function runAudit(context: Json, vector: Json): Check[] {
  const bundle = fromBase64(vector.entryBundle);
  const receipts = vector.receipts as Json[];
  const leaves = decodeEntryBundle(bundle, receipts.length).map((e) => toHex(leafHash(e)));
  const ctx = receiptContext(context);
  const audit = new LogAudit({
    range: CompactRange.empty(),
    roots: new Map(Object.entries(vector.roots).map(([size, rootHex]) => [Number(size), { rootHex: rootHex as string, source: 'the commit' }])),
    context: { operatorPublicKey: ctx.operatorPublicKey, rng: ctx.rng, commitTx: ctx.commitTx },
  });
  for (const [index, leafHex] of leaves.entries()) {
    audit.add({ index, leafHex, inspection: receipts[index] ? inspectReceipt(receipts[index], ctx, { bulk: true }) : null });
  }
  return audit.finish(ctx.sessionKey)[0]!.checks;
}

describe('audit.json', () => {
  const file = load('audit.json');
  it('the valid log passes every check', () => expect(noFailures(runAudit(file.context, file.valid))).toEqual([]));
  it.each(cases(file.invalid))('%s: %s', (check, _d, c) => {
    expect(statusOf(runAudit(file.context, c), check)).toContain('fail');
  });
});

const memos = (list: Json[]): SignedMemo[] => list.map((m) => ({ ...m, instructionIndex: 0, memo: parseMemo(m.text)! }));
const runLog = (vector: Json) =>
  verifyCommitLog({
    commits: vector.published,
    onChain: memos(vector.onChain),
    consistency: (a, b) => vector.consistency[`${a}:${b}`],
    rng: new RngAnchors(),
    vaultBalance: BigInt(vector.vaultBalance),
  }).checks;

describe('log.json', () => {
  const file = load('log.json');
  it('the valid log passes every check', () => expect(noFailures(runLog(file.valid))).toEqual([]));
  it.each(cases(file.invalid))('%s: %s', (check, _d, c) => expect(statusOf(runLog(c), check)).toContain('fail'));
});

describe('checkpoint.json', () => {
  const { context, valid, invalid } = load('checkpoint.json');
  const run = (note: string) => {
    const checks = new Checks();
    checkCheckpoint(note, context.origin, [context.anchorPublicKey], { rootAt: (n) => context.roots[n], size: context.chainSize }, checks);
    return checks.list;
  };
  it('valid checkpoints pass', () => {
    for (const note of valid) expect(noFailures(run(note))).toEqual([]);
  });
  it.each(cases(invalid))('%s: %s', (check, _d, c) => expect(statusOf(run(c.note), check)).toContain('fail'));
});

function runManifests(context: Json, vector: Json): Check[] {
  const checks = new Checks();
  const spans = verifyManifestLinks({ manifests: vector.manifests }, context.anchorPublicKey, checks);
  const problems = spans
    .filter((s) => s.firstSeq !== null)
    .map((s) =>
      manifestEventsProblem(
        s,
        vector.events.filter((e: Json) => e.seq >= s.firstSeq! && e.seq < s.firstSeq! + s.manifest.eventCount),
      ),
    )
    .filter(Boolean);
  checks.add('manifest-events', problems.length === 0, problems.join('; '));
  const positions = new Map<string, number>(vector.manifests.map((m: Json, i: number) => [m.manifestHash, i]));
  checkManifestFork(
    positions,
    vector.commitManifests.map((h: string, i: number) => ({ memo: { entryCount: i + 1, manifestHash: h } })),
    checks,
  );
  return checks.list;
}

describe('manifests.json', () => {
  const file = load('manifests.json');
  it('the valid chain passes every check', () => expect(noFailures(runManifests(file.context, file.valid))).toEqual([]));
  it.each(cases(file.invalid))('%s: %s', (check, _d, c) => expect(statusOf(runManifests(file.context, c), check)).toContain('fail'));
});

describe('state-proof.json', () => {
  const { context, valid, invalid } = load('state-proof.json');
  const run = (response: Json) => {
    const tx = context.transactions[response.commitSignature];
    return verifyStateProofResponse(response, context.wallet, tx, context.anchorPublicKey).checks;
  };
  it('the valid response passes every check', () => expect(noFailures(run(valid))).toEqual([]));
  it.each(cases(invalid))('%s: %s', (check, _d, c) => expect(statusOf(run(c.response), check)).toContain('fail'));
});

describe('session-keys.json', () => {
  const { context, valid, invalid } = load('session-keys.json');
  const run = (v: Json) => {
    const checks = new Checks();
    checkSessionKey(
      { check: 'session-key', sessionPubkey: context.sessionPubkey, committedAt: v.committedAt },
      { status: 'found', history: v.history },
      checks,
    );
    return checks.list;
  };
  it('valid histories pass', () => {
    for (const v of valid) expect(noFailures(run(v))).toEqual([]);
  });
  it.each(cases(invalid))('%s: %s', (check, _d, c) => expect(statusOf(run(c), check)).toContain('fail'));
});

describe('trust-root.json', () => {
  const { context, valid, invalid } = load('trust-root.json');
  const pinned = parseTrustRoot(context.pinned);
  it('the same trust root passes', () => {
    for (const v of valid) expect(trustRootDifferences(pinned, parseTrustRoot(v))).toEqual([]);
  });
  it.each(cases(invalid))('%s: %s', (_check, _d, c) => expect(trustRootDifferences(pinned, parseTrustRoot(c.served)).length).toBeGreaterThan(0));
});

describe('coverage', () => {
  it('names one tampered case for every check a receipt, the log and its audit, a checkpoint, the manifests and a state proof run', () => {
    const named = new Set(
      ['receipts.json', 'audit.json', 'log.json', 'checkpoint.json', 'manifests.json', 'state-proof.json', 'session-keys.json', 'trust-root.json'].flatMap(
        (f) => load(f).invalid.map((c: Json) => c.check.replace(/^turn\[\d+\]\./, '')),
      ),
    );
    for (const check of [
      'payload-hash',
      'protocol',
      'session-signature',
      'ack-signature',
      'ack-binding',
      'commit-in-time',
      'commitment',
      'reveal-signature',
      'rng-reveal',
      'forfeit-deadline',
      'game',
      'verifier-payload',
      'receipt-fields',
      'outcome',
      'payout',
      'bet-log-entry',
      'entry-hash',
      'anchored',
      'inclusion',
      'commit-account',
      'on-chain-commit',
      'state-root',
      'session-key',
      'ticket-binding',
      'rules',
      'order',
      'ticket-ended',
      'entry-leaves',
      'commit-roots',
      'entries-served',
      'rng-index-unique',
      'rng-heads',
      'on-chain-unique',
      'commit-order',
      'consistency',
      'commit-rng-reveals',
      'published-on-chain',
      'on-chain-published',
      'solvency',
      'checkpoint-signature',
      'checkpoint',
      'manifest-signatures',
      'manifest-links',
      'manifest-events',
      'manifest-fork',
      'leaf-id',
      'sum-proof',
      'leaf',
      'total-liabilities',
      'trust-root',
    ]) {
      expect(named.has(check), check).toBe(true);
    }
  });
});
