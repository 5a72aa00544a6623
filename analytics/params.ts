/**
 * The query parameters of the analytics routes (contract: activity, rankings, stats), checked against
 * their whitelists. Anything else is an {@link AnalyticsRequestError}, which the routes answer with
 * INVALID_REQUEST.
 * @module
 */

import { GAMES, METRICS, PERIODS, SOURCES, type GameFilter, type Metric, type Period, type SourceFilter } from '../protocol/analytics.ts';

export { GAMES, METRICS, PERIODS, SOURCES, type GameFilter, type Metric, type Period, type SourceFilter };

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

/** A bad analytics parameter; `code` is the contract's code for it. */
export class AnalyticsRequestError extends Error {
  override readonly name = 'AnalyticsRequestError';
  readonly code = 'INVALID_REQUEST' as const;

  constructor(
    message: string,
    readonly details: { param: string; allowed?: readonly string[] },
  ) {
    super(message);
  }
}

// An empty query value counts as not given (README: "?afterSeq=").
const given = (value: unknown): boolean => value !== undefined && value !== null && value !== '';

function oneOf<T extends string>(param: string, value: unknown, allowed: readonly T[], fallback: T): T {
  if (!given(value)) return fallback;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw new AnalyticsRequestError(`${param} must be one of ${allowed.join(', ')}`, { param, allowed });
}

/** @throws {AnalyticsRequestError} */
export const parseGame = (value: unknown): GameFilter => oneOf('game', value, GAMES, 'all');

/** Whether a game filter takes a play or event of `game`. */
export const takesGame = (filter: GameFilter, game: string): boolean => filter === 'all' || filter === game;
/** @throws {AnalyticsRequestError} */
export const parseSource = (value: unknown): SourceFilter => oneOf('source', value, SOURCES, 'all');
/** @throws {AnalyticsRequestError} */
export const parseMetric = (value: unknown): Metric => oneOf('metric', value, METRICS, 'profit');
/** @throws {AnalyticsRequestError} */
export const parsePeriod = (value: unknown): Period => oneOf('period', value, PERIODS, 'day');

/**
 * `limit`: an integer (a number or its decimal text), default 20, clamped to 1..100.
 * @throws {AnalyticsRequestError} when it is not an integer
 */
export function parseLimit(value: unknown): number {
  if (!given(value)) return DEFAULT_LIMIT;
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^[+-]?\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n)) throw new AnalyticsRequestError('limit must be an integer', { param: 'limit' });
  return Math.min(MAX_LIMIT, Math.max(1, n));
}
