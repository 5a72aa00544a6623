// Analytics parameters (whitelists, limit clamping) and the UTC stats windows.
import { describe, expect, it } from 'vitest';
import { AnalyticsRequestError, parseGame, parseLimit, parseMetric, parsePeriod, parseSource } from '../../analytics/params.ts';
import { bucketStarts } from '../../analytics/windows.ts';

const iso = (ms: number | undefined) => new Date(ms as number).toISOString();

describe('parameters', () => {
  it('default when absent or empty and accept exactly the contract values', () => {
    expect([parseGame(undefined), parseSource(''), parseMetric(undefined), parsePeriod(null)]).toEqual(['all', 'all', 'profit', 'day']);
    expect([parseGame('sweeper'), parseSource('mcp'), parseMetric('winRate'), parsePeriod('year')]).toEqual(['sweeper', 'mcp', 'winRate', 'year']);
  });

  it('refuse anything else with INVALID_REQUEST naming the parameter', () => {
    const cases: [() => unknown, string][] = [
      [() => parseGame('Dice'), 'game'],
      [() => parseGame(['dice']), 'game'],
      [() => parseSource('all '), 'source'],
      [() => parseMetric('winrate'), 'metric'],
      [() => parsePeriod('week'), 'period'],
      [() => parseLimit('ten'), 'limit'],
    ];
    for (const [call, param] of cases) {
      try {
        call();
        expect.unreachable(`${param} accepted`);
      } catch (err) {
        expect(err).toBeInstanceOf(AnalyticsRequestError);
        expect(err).toMatchObject({ code: 'INVALID_REQUEST', details: { param } });
      }
    }
  });

  it('clamp limit to 1..100, default 20, integers only', () => {
    expect([
      parseLimit(undefined),
      parseLimit(''),
      parseLimit(0),
      parseLimit('-4'),
      parseLimit('37'),
      parseLimit(101),
      parseLimit('100000000000000000000'),
    ]).toEqual([20, 20, 1, 1, 37, 100, 100]);
    for (const bad of [1.5, '1.5', '1e3', 'NaN', Number.NaN, Number.POSITIVE_INFINITY, true, {}, '0x10'])
      expect(() => parseLimit(bad)).toThrow(AnalyticsRequestError);
  });
});

describe('bucketStarts', () => {
  const now = new Date('2028-03-01T00:00:00.000Z');
  it('day: the 24 UTC hours ending with the current one', () => {
    const b = bucketStarts('day', new Date('2028-03-01T00:59:59.999Z'));
    expect([b.length, iso(b[0]), iso(b[23])]).toEqual([24, '2028-02-29T01:00:00.000Z', '2028-03-01T00:00:00.000Z']);
  });
  it('month: the 30 UTC days ending today, across a leap day', () => {
    const b = bucketStarts('month', now);
    expect([b.length, iso(b[0]), iso(b[28]), iso(b[29])]).toEqual([30, '2028-02-01T00:00:00.000Z', '2028-02-29T00:00:00.000Z', '2028-03-01T00:00:00.000Z']);
  });
  it('year: the 12 UTC months ending with this one, across the new year', () => {
    const b = bucketStarts('year', now);
    expect(b.map((ms) => iso(ms).slice(0, 7))).toEqual([
      '2027-04',
      '2027-05',
      '2027-06',
      '2027-07',
      '2027-08',
      '2027-09',
      '2027-10',
      '2027-11',
      '2027-12',
      '2028-01',
      '2028-02',
      '2028-03',
    ]);
  });
});
