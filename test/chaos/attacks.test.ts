// The economic-attack suite's CI profile (chaos/attacks/): every finding of issue 21 replayed against one real service
// of its own through the public API and signed chain transactions. No attack may pay, block play, or be answered
// otherwise than the fixes say.
import { describe, expect, it } from 'vitest';
import { CI } from '../../chaos/attacks/profiles.ts';
import { formatReport, usdc, verdictOf, type AttackReport } from '../../chaos/attacks/report.ts';
import { ATTEMPTS, runAttacks } from '../../chaos/attacks/suite.ts';

describe('economic attacks, CI profile', () => {
  let report: AttackReport;

  it('replays every finding of issue 21 against one service', { timeout: 600_000 }, async () => {
    report = await runAttacks({ profile: CI });
    console.log(formatReport(report));
    expect(report.results.map((r) => r.attack)).toEqual(expect.arrayContaining(ATTEMPTS.map((a) => a.attack)));
    expect(new Set(report.results.map((r) => r.finding))).toEqual(new Set([1, 2, 3, 4, 5]));
  });

  it('every attempt ran to its end', () => {
    expect(report.results.filter((r) => r.error).map((r) => `${r.attack}: ${r.error}`)).toEqual([]);
  });

  it('no attack gains anything beyond fair outcomes: USDC, or SOL from the operator', () => {
    const paying = report.results
      .filter((r) => r.gain.usdcMicro > 0n || r.gain.lamports > 0n)
      .map((r) => `${r.attack}: +${usdc(r.gain.usdcMicro)} USDC, +${r.gain.lamports} lamports`);
    expect(paying).toEqual([]);
  });

  it('no attack blocks a bystander, an LP exit or another wallet’s payout', () => {
    expect(report.results.filter((r) => r.blocked).map((r) => `${r.attack}: ${r.blocked}`)).toEqual([]);
  });

  it('the service answers every attempt as the fixes say', () => {
    const wrong = report.results.flatMap((r) => r.checks.filter((c) => !c.held).map((c) => `${r.attack}: ${c.name}: ${c.detail}`));
    expect(wrong).toEqual([]);
    expect(report.results.map(verdictOf).every((v) => v === 'held')).toBe(true);
  });
});
