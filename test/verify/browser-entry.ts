// Bundled for the browser by browser.test.ts: the verifier's core checks a saved fixture with nothing but
// web-standard globals, on the portable @noble backend.
import { cryptoBackend } from '../../protocol/crypto.ts';
import { Checks, RngAnchors, RngIndexRegistry, memosSignedBy, verifyCommitLog, verifyManifestLinks, verifyReceipt, type PublishedCommit, type RpcTransaction } from '../../protocol/verify/index.ts';
import type { Manifest } from '../../protocol/manifest.ts';

interface Fixture {
  config: { operatorPublicKey: string; ackPublicKey: string };
  receipts: Record<string, unknown>[];
  transactions: Record<string, RpcTransaction>;
  manifests: Manifest[];
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
  verifyManifestLinks({ manifests: fixture.manifests }, operatorPublicKey, manifestChecks);
  const log = verifyCommitLog({
    commits: fixture.commits,
    onChain: memos,
    consistency: (a, b) => fixture.consistency[`${a}:${b}`],
    rng: new RngAnchors(),
    vaultBalance: BigInt(fixture.vaultBalance),
    manifestKnown: (h) => fixture.manifests.some((m) => m.manifestHash === h),
  });
  return { backend: cryptoBackend().name, receipts, manifestsOk: manifestChecks.ok, logOk: log.checks.every((c) => c.status !== 'fail') };
}
