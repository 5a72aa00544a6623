import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AmountError, formatMicro, microToNumber, parseAmount, parseDecimalAmount, parseNonNegativeAmount } from '../../protocol/money.ts';

describe('money', () => {
  it.each([
    [1, 1_000_000n],
    [0.000001, 1n],
    [1.5, 1_500_000n],
    [123456.789012, 123_456_789_012n],
    [1e-6, 1n],
    [5e-5, 50n],
    ['1', 1_000_000n],
    ['2.25', 2_250_000n],
    ['0.000001', 1n],
  ])('parses %s exactly', (input, micro) => {
    expect(parseAmount(input)).toBe(micro);
  });

  it.each([
    0,
    -1,
    -0.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    1e-7,
    0.1 + 0.2,
    1.0000001,
    1e21,
    '1e3',
    '',
    'abc',
    'NaN',
    'Infinity',
    '-1',
    ' 1',
    '0',
    '0.0000001',
    '1.',
    '.5',
    '0x10',
    '9'.repeat(41),
    null,
    undefined,
    {},
    true,
  ])('rejects %s', (input) => {
    expect(() => parseAmount(input)).toThrow(AmountError);
  });

  it('accepts 0 only where a zero amount is allowed', () => {
    expect(parseNonNegativeAmount(0)).toBe(0n);
    expect(() => parseAmount(0)).toThrow(AmountError);
  });

  it('takes -0 for no amount at all, not even where 0 is allowed', () => {
    expect(() => parseAmount(-0)).toThrow(AmountError);
    expect(() => parseNonNegativeAmount(-0)).toThrow(AmountError);
    expect(() => parseNonNegativeAmount(JSON.parse('-0.0'))).toThrow(AmountError);
    expect(() => parseNonNegativeAmount('-0')).toThrow(AmountError);
  });

  it('round-trips every micro amount through its decimal string', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 2n ** 53n - 1n }), (micro) => {
        expect(parseDecimalAmount(formatMicro(micro))).toBe(micro);
      }),
    );
  });

  it('round-trips API numbers up to 15 significant digits (a billion USDC)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 15n - 1n }), (micro) => {
        expect(parseAmount(Number(formatMicro(micro)))).toBe(micro);
      }),
    );
  });

  it('refuses amounts at or above 2^53 micro-USDC', () => {
    expect(() => parseDecimalAmount('9007199254.740992')).toThrow(AmountError);
    expect(() => parseAmount(9007199254.740992)).toThrow(AmountError);
  });
});

// Receipts show amounts as numbers: the division shortcut must give the very double that parsing the exact
// decimal text gives, for every amount it takes, and leave larger ones to the text.
describe('microToNumber', () => {
  it('is the number of the exact decimal text', () => {
    const near = (edge: bigint) => fc.bigInt({ min: edge - 3_000_000n, max: edge + 3_000_000n });
    fc.assert(
      fc.property(
        fc.oneof(fc.bigInt({ min: -(1n << 60n), max: 1n << 60n }), fc.bigInt({ min: -10_000_000n, max: 10_000_000n }), near(1n << 53n), near(-(1n << 53n))),
        (micro) => {
          expect(Object.is(microToNumber(micro), Number(formatMicro(micro)))).toBe(true);
        },
      ),
      { numRuns: 20_000 },
    );
  });
});
