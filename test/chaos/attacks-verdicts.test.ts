// The attack suite's yardsticks can fail: the LP gain beyond fair outcomes flags the issue's own run and a price that
// moves with open exposure, and holds at zero over the pinned share math; a result that gains, blocks, answers
// wrongly or breaks off fails the run.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unexplainedLpGain } from '../../chaos/attacks/fair.ts';
import { emptyResult, formatReport, passed, verdictOf, type AttackReport } from '../../chaos/attacks/report.ts';
import { redemptionValue, sharesForDeposit } from '../../protocol/lp-shares.ts';

const USDC = 1_000_000n;

describe('the LP gain beyond fair outcomes', () => {
  it("flags the issue's run: 1,000,000 USDC deposited beside 2,004 USDC of open 99x bets, +111,380 paid back", () => {
    const gain = unexplainedLpGain({
      deposit: 1_000_000n * USDC,
      shares: 1_279_654n * USDC,
      paid: 1_111_380n * USDC,
      supply: 2_279_654n * USDC,
      gameNetDelta: 2_004n * USDC,
    });
    expect(gain).toBe(110_255_081_267n);
  });

  const book = fc.record({
    nav: fc.bigInt({ min: 1_000n * USDC, max: 10_000_000n * USDC }),
    supply: fc.bigInt({ min: 1_000n * USDC, max: 10_000_000n * USDC }),
    deposit: fc.bigInt({ min: 1n, max: 2_000_000n * USDC }),
    gameNet: fc.bigInt({ min: -100_000n * USDC, max: 100_000n * USDC }),
    exposure: fc.bigInt({ min: 1n * USDC, max: 250_000n * USDC }),
  });

  it('is never positive for a round trip priced by the pinned formulas, whatever the plays settled meanwhile', () => {
    fc.assert(
      fc.property(book, ({ nav, supply, deposit, gameNet }) => {
        const shares = sharesForDeposit(deposit, supply, nav);
        fc.pre(shares > 0n && nav + deposit + gameNet > 0n);
        const paid = redemptionValue(shares, supply + shares, nav + deposit + gameNet);
        expect(unexplainedLpGain({ deposit, shares, paid, supply: supply + shares, gameNetDelta: gameNet })).toBeLessThanOrEqual(0n);
      }),
    );
  });

  it('is positive when the price counts open exposure: a deposit while it is held, redeemed after it is released', () => {
    fc.assert(
      fc.property(book, ({ nav, supply, deposit, exposure }) => {
        // At least 0.1 % of NAV, so what the price gives away beats the rounding of shares: 1 USDC held against 5.4M
        // USDC of NAV, with a share worth 5,363 micro-USDC, moved the price by less than one share (1 sample in 18,000).
        fc.pre(nav > exposure * 2n && exposure * 1_000n >= nav && deposit >= 1_000n * USDC);
        // The pre-fix price: NAV less the open exposure at the deposit, its full NAV once the bets settle (and lose).
        const shares = sharesForDeposit(deposit, supply, nav - exposure);
        const paid = redemptionValue(shares, supply + shares, nav + deposit);
        expect(unexplainedLpGain({ deposit, shares, paid, supply: supply + shares, gameNetDelta: 0n })).toBeGreaterThan(0n);
      }),
    );
  });
  it('can be hidden by the rounding of shares when the exposure moves the price by less than one share', () => {
    // Found by the property above before it bounded the exposure: 1 USDC held against 5.4M USDC of NAV.
    const [nav, supply, deposit, exposure] = [5_363_010_500_454n, 1_000_000_003n, 18_343_843_718n, 1_000_007n];
    const shares = sharesForDeposit(deposit, supply, nav - exposure);
    const paid = redemptionValue(shares, supply + shares, nav + deposit);
    expect(unexplainedLpGain({ deposit, shares, paid, supply: supply + shares, gameNetDelta: 0n })).toBe(-1_206n);
  });
});

describe('verdicts', () => {
  const report = (...results: ReturnType<typeof emptyResult>[]): AttackReport => ({
    profile: 'test',
    results,
    durationMs: 1,
    serviceStartMs: 1,
    workDir: '/tmp/x',
  });

  it('a result that gains, blocks, answers wrongly or breaks off fails the run; one that does none holds', () => {
    const held = emptyResult(1, 'held');
    held.gain.usdcMicro = -1n;
    const paysUsdc = emptyResult(1, 'pays usdc');
    paysUsdc.gain.usdcMicro = 1n;
    const paysSol = emptyResult(3, 'pays sol');
    paysSol.gain.lamports = 1n;
    const blocks = emptyResult(2, 'blocks');
    blocks.blocked = 'a bystander was refused';
    const wrong = emptyResult(5, 'wrong');
    wrong.checks.push({ name: 'refused with 4xx', held: false, detail: '200' });
    const broke = emptyResult(4, 'broke');
    broke.error = 'boom';
    expect([held, paysUsdc, paysSol, blocks, wrong, broke].map(verdictOf)).toEqual(['held', 'PAYS', 'PAYS', 'BLOCKS', 'WRONG ANSWER', 'ERROR']);
    expect(passed(report(held))).toBe(true);
    for (const bad of [paysUsdc, paysSol, blocks, wrong, broke]) expect(passed(report(held, bad)), bad.attack).toBe(false);
    expect(passed(report())).toBe(false);
    const text = formatReport(report(held, paysUsdc));
    expect(text).toMatch(/cost USDC .* gain USDC .* verdict/);
    expect(text).toContain('0.000001');
    expect(text).toContain('RESULT: FAILED');
  });
});
