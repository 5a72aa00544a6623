// LogAudit counts each check by name over every receipt. Lists of checks that all pass are counted per
// list and expanded at the end: the counts must be those of counting every receipt's checks one by one.
import { describe, expect, it } from 'vitest';
import { CompactRange } from '../../protocol/compact-range.ts';
import { LogAudit } from '../../protocol/verify/log-audit.ts';
import { RngAnchors } from '../../protocol/verify/rng.ts';
import type { Check } from '../../protocol/verify/report.ts';
import type { ReceiptInspection } from '../../protocol/verify/receipt.ts';

const leaf = (i: number) => i.toString(16).padStart(64, '0');

function inspection(i: number, checks: Check[]): ReceiptInspection {
  return { subject: `receipt r-${i}`, receiptId: `r-${i}`, checks, leafHex: leaf(i), rngLinks: [], rngUses: [], sessionKeys: [], anchor: null };
}

function audit(list: (i: number) => Check[], count: number) {
  const a = new LogAudit({
    range: CompactRange.empty(),
    roots: new Map(),
    context: { operatorPublicKey: [], rng: new RngAnchors(), commitTx: () => undefined },
  });
  for (let i = 0; i < count; i++) a.add({ index: i, leafHex: leaf(i), inspection: inspection(i, list(i)) });
  return a.finish(() => undefined);
}

describe('LogAudit tallies', () => {
  const clean: Check[] = [
    { name: 'outcome', status: 'pass' },
    { name: 'turn[1].commitment', status: 'pass' },
    { name: 'anchored', status: 'skip', reason: 'not this one' },
  ];
  const failing: Check[] = [
    { name: 'outcome', status: 'fail', reason: 'bad' },
    { name: 'turn[2].commitment', status: 'pass' },
    { name: 'anchored', status: 'error', reason: 'down' },
  ];
  const pick = (i: number) => (i === 1500 || i === 7 ? failing : clean);

  it('counts a shared list once per receipt that has it', () => {
    const [summary, ...failed] = audit(pick, 3000);
    const byName = Object.fromEntries(summary!.checks.map((c) => [c.name, c]));
    expect(byName.outcome).toEqual({ name: 'outcome', status: 'fail', reason: '2 of 3000 receipts fail it: r-7, r-1500' });
    expect(byName.commitment).toEqual({ name: 'commitment', status: 'pass' });
    expect(byName.anchored).toEqual({ name: 'anchored', status: 'error', reason: '2 of 2 receipts could not be checked: r-7, r-1500' });
    expect(byName.receipts?.reason).toBe('2 of 3000 failed: r-7: outcome; r-1500: outcome');
    expect(failed.map((r) => [r.subject, r.ok, r.checks.length])).toEqual([
      ['receipt r-7', false, 3],
      ['receipt r-1500', false, 3],
    ]);
  });

  it('gives the same summary when every receipt has a list of its own', () => {
    expect(audit((i) => pick(i).map((c) => ({ ...c })), 3000)).toEqual(audit(pick, 3000));
  });
});
