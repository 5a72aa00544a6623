// How amounts, fractions, times and hashes read on the pages.

const usdcFormat = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 });
const countFormat = new Intl.NumberFormat('en-US');
const pctFormat = new Intl.NumberFormat('en-US', { style: 'percent', minimumFractionDigits: 0, maximumFractionDigits: 2 });

/** A USDC amount as the API gives it (a decimal number). */
export const usdc = (n: number): string => (Number.isFinite(n) ? `${usdcFormat.format(n)} USDC` : '—');

/** A signed amount, with an explicit + for gains. */
export const signedUsdc = (n: number): string => (n > 0 ? `+${usdc(n)}` : usdc(n));

export const count = (n: number): string => (Number.isFinite(n) ? countFormat.format(n) : '—');

/** A fraction (0.25) as a percentage (25%). */
export const percent = (f: number): string => (Number.isFinite(f) ? pctFormat.format(f) : '—');

/** A timestamp in the reader's locale; the ISO form stays in the `datetime` attribute. */
export function time(iso: string): string {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? new Date(t).toLocaleString() : iso;
}

/** A hash or key shortened for tables; the full value is kept for copying elsewhere. */
export const short = (s: string, keep = 8): string => (s.length > keep * 2 + 1 ? `${s.slice(0, keep)}…${s.slice(-keep)}` : s);
