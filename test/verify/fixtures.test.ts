// Frozen real receipts and manifests (test/fixtures/verify/v1.json) keep verifying offline, and any change fails.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isCheckName, RngAnchors, verifyReceipt } from '../../protocol/verify/index.ts';
import { verifyFixture, type Fixture } from './fixture-check.ts';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/verify/v1.json', import.meta.url), 'utf8')) as Omit<Fixture, 'receipts'> & {
  receipts: Record<string, any>[];
};
const receiptOk = (receipt: Record<string, unknown>) => verifyFixture({ ...fixture, receipts: [receipt] }).receipts[0]!.ok;

describe('frozen v1 fixture', () => {
  it('holds dice wins, losses, a forfeit and a Sweeper ticket', () => {
    expect(fixture.receipts.map((r) => `${r.game}:${r.status}`).sort()).toEqual(['dice:forfeited', 'dice:lost', 'dice:won', 'dice:won', 'sweeper:won']);
  });

  it('every receipt, the manifest chain (with every eventRoot) and the commit log still verify, each RNG index used once', () => {
    const result = verifyFixture(fixture);
    expect(result.receipts.map((r) => r.failed)).toEqual(fixture.receipts.map(() => []));
    expect(result.receipts.every((r) => r.ok)).toBe(true);
    expect(result.manifestsOk).toBe(true);
    expect(result.logFailures).toEqual([]);
  });

  it('names every check of every receipt from the closed list, turns as turn[k].<check>', () => {
    const { operatorPublicKey, ackPublicKey } = fixture.config;
    const ctx = { ackPublicKey, operatorPublicKey, rng: new RngAnchors(), commitTx: (s: string) => fixture.transactions[s] };
    const names = fixture.receipts.flatMap((r) => verifyReceipt(r, ctx).checks.map((c) => c.name));
    expect(names).toContain('turn[0].payload-hash');
    expect(names.filter((n) => !isCheckName(n))).toEqual([]);
    expect(isCheckName('turn[0].outcome')).toBe(false);
    expect(isCheckName('payout-hash')).toBe(false);
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
      expect(receiptOk(r), change.toString()).toBe(false);
    }
    const sweeper = structuredClone(fixture.receipts.find((r) => r.game === 'sweeper')!);
    sweeper.verifierPayload.turns.pop();
    expect(receiptOk(sweeper)).toBe(false);
  });
});
