// Frozen real receipts and manifests (test/fixtures/verify/v1.json) keep verifying offline, and any change fails.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { memosSignedBy, type RpcTransaction } from '../../protocol/verify/chain.ts';
import { RngAnchors } from '../../protocol/verify/rng.ts';
import { verifyReceipt, RngIndexRegistry } from '../../protocol/verify/receipt.ts';
import { Checks } from '../../protocol/verify/report.ts';
import { manifestEventsProblem, verifyManifestLinks } from '../../protocol/verify/manifests.ts';
import { verifyCommitLog, type PublishedCommit } from '../../protocol/verify/log.ts';
import type { JournalEvent, Manifest } from '../../protocol/manifest.ts';

interface Fixture {
  config: { operatorPublicKey: string; ackPublicKey: string };
  receipts: Record<string, any>[];
  transactions: Record<string, RpcTransaction>;
  manifests: Manifest[];
  events: JournalEvent[];
  commits: PublishedCommit[];
  consistency: Record<string, string[]>;
  vaultBalance: string;
}

const fixture = JSON.parse(readFileSync(new URL('../fixtures/verify/v1.json', import.meta.url), 'utf8')) as Fixture;
const { operatorPublicKey, ackPublicKey } = fixture.config;
const memos = Object.values(fixture.transactions).flatMap((tx) => memosSignedBy(tx, operatorPublicKey));

function context() {
  const rng = new RngAnchors();
  for (const m of memos) if (m.memo.kind === 'rng-head') rng.addHead(m.memo.headHex);
  return { ackPublicKey, operatorPublicKey, rng, commitTx: (s: string) => fixture.transactions[s] };
}

describe('frozen v1 fixture', () => {
  it('holds dice wins, losses, a forfeit and a Sweeper ticket', () => {
    expect(fixture.receipts.map((r) => `${r.game}:${r.status}`).sort()).toEqual(['dice:forfeited', 'dice:lost', 'dice:won', 'dice:won', 'sweeper:won']);
  });

  it('every receipt still verifies, each RNG index used once', () => {
    const ctx = context();
    const registry = new RngIndexRegistry();
    for (const r of fixture.receipts) {
      const report = verifyReceipt(r, ctx);
      expect(report.checks.filter((c) => c.status === 'fail'), r.id).toEqual([]);
      expect(registry.claim(r.id, report.rngUses)).toEqual([]);
    }
  });

  it('the manifest chain and the commit log still verify', () => {
    const checks = new Checks();
    const spans = verifyManifestLinks({ manifests: fixture.manifests }, operatorPublicKey, checks);
    expect(checks.ok).toBe(true);
    for (const s of spans) expect(manifestEventsProblem(s, fixture.events.filter((e) => e.seq >= s.firstSeq! && e.seq < s.firstSeq! + s.manifest.eventCount))).toBeNull();
    const log = verifyCommitLog({
      commits: fixture.commits,
      onChain: memos,
      consistency: (a, b) => fixture.consistency[`${a}:${b}`],
      rng: new RngAnchors(),
      vaultBalance: BigInt(fixture.vaultBalance),
      manifestKnown: (h) => fixture.manifests.some((m) => m.manifestHash === h),
    });
    expect(log.checks.filter((c) => c.status === 'fail')).toEqual([]);
  });

  it('a changed byte anywhere in a receipt fails it', () => {
    const changes: ((r: any) => void)[] = [
      (r) => (r.verifierPayload.betPayload.wager = String(Number(r.verifierPayload.betPayload.wager) + 1)),
      (r) => (r.verifierPayload.betLogEntry.settledAt = new Date(0).toISOString()),
      (r) => (r.anchor.betLogIndex += 1),
      (r) => (r.anchor.entryCount += 1),
      (r) => (r.verifierPayload.ack.revealDeadline = new Date(0).toISOString()),
      (r) => (r.result.roll = (r.result.roll ?? 0) + 1),
      (r) => (r.status = r.status === 'won' ? 'lost' : 'won'),
    ];
    const dice = fixture.receipts.find((r) => r.game === 'dice' && r.status !== 'forfeited')!;
    for (const change of changes) {
      const r = structuredClone(dice);
      change(r);
      expect(verifyReceipt(r, context()).ok, change.toString()).toBe(false);
    }
    const sweeper = structuredClone(fixture.receipts.find((r) => r.game === 'sweeper')!);
    sweeper.verifierPayload.turns.pop();
    expect(verifyReceipt(sweeper, context()).ok).toBe(false);
  });
});
