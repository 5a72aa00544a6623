/**
 * Stats windows in UTC (design §8): `day` is the 24 hours ending with the current one, `month` the 30
 * days ending today, `year` the 12 months ending with this one. Oldest first; the window ends now.
 * @module
 */
import type { Period } from './params.ts';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export const floorTo = (ms: number, unit: number): number => Math.floor(ms / unit) * unit;

/** Bucket start times in epoch ms, oldest first. */
export function bucketStarts(period: Period, now: Date): number[] {
  const ms = now.getTime();
  if (period === 'day') {
    const last = floorTo(ms, HOUR_MS);
    return Array.from({ length: 24 }, (_, i) => last - (23 - i) * HOUR_MS);
  }
  if (period === 'month') {
    const last = floorTo(ms, DAY_MS);
    return Array.from({ length: 30 }, (_, i) => last - (29 - i) * DAY_MS);
  }
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  // Date.UTC carries a negative month into the previous year.
  return Array.from({ length: 12 }, (_, i) => Date.UTC(y, m - 11 + i, 1));
}
