// Checks the saved fixture with the verifier core alone: fixtures.test.ts runs it in Node, browser.test.ts
// bundles it for the browser and runs it with web-standard globals only.
import { cryptoBackend } from '../../protocol/crypto.ts';
import {
  Checks,
  RngAnchors,
  RngIndexRegistry,
  manifestEventsProblem,
  memosSignedBy,
  verifyCommitLog,
  verifyManifestLinks,
  verifyReceipt,
  type PublishedCommit,
  type RpcTransaction,
} from '../../protocol/verify/index.ts';
import type { JournalEvent, Manifest } from '../../protocol/manifest.ts';

export interface Fixture {
  config: { operatorPublicKey: string; ackPublicKey: string };
  receipts: Record<string, unknown>[];
  transactions: Record<string, RpcTransaction>;
  manifests: Manifest[];
  events: JournalEvent[];
  commits: PublishedCommit[];
  consistency: Record<string, string[]>;
  vaultBalance: string;
}

export function verifyFixture(fixture: Fixture) {
  const { operatorPublicKey, ackPublicKey } = fixture.config;
  const memos = Object.values(fixture.transactions).flatMap((tx) => memosSignedBy(tx, operatorPublicKey));
  const rng = new RngAnchors();
  for (const m of memos) if (m.memo.kind === 'rng-head') rng.addHead(m.memo.headHex);
  const registry = new RngIndexRegistry();
  const receipts = fixture.receipts.map((r) => {
    const report = verifyReceipt(r, { ackPublicKey, operatorPublicKey, rng, commitTx: (s: string) => fixture.transactions[s] });
    return { ok: report.ok && registry.claim(String(r.id), report.rngUses).length === 0, failed: report.checks.filter((c) => c.status === 'fail') };
  });
  const manifestChecks = new Checks();
  const spans = verifyManifestLinks({ manifests: fixture.manifests }, operatorPublicKey, manifestChecks);
  const eventProblems = spans
    .map((s) =>
      manifestEventsProblem(
        s,
        fixture.events.filter((e) => e.seq >= s.firstSeq! && e.seq < s.firstSeq! + s.manifest.eventCount),
      ),
    )
    .filter((p) => p !== null);
  const log = verifyCommitLog({
    commits: fixture.commits,
    onChain: memos,
    consistency: (a, b) => fixture.consistency[`${a}:${b}`],
    rng: new RngAnchors(),
    vaultBalance: BigInt(fixture.vaultBalance),
    manifestKnown: (h) => fixture.manifests.some((m) => m.manifestHash === h),
  });
  return {
    backend: cryptoBackend().name,
    receipts,
    manifestsOk: manifestChecks.ok && eventProblems.length === 0,
    logFailures: log.checks.filter((c) => c.status === 'fail'),
  };
}
