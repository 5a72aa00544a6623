// Integer micro-USDC: API decimals are parsed from their shortest decimal string, never multiplied as floats.

export const MICRO_PER_USDC = 1_000_000n;
export const USDC_DECIMALS = 6;

const DECIMAL_RE = /^(\d+)(?:\.(\d+))?$/;

export class AmountError extends Error {
  override readonly name = 'AmountError';
}

/**
 * Parses an API amount into micro-USDC: a JSON number through its shortest decimal string, or a decimal
 * string as written.
 * @throws {AmountError} when the amount is not a finite positive number, or a decimal string, with at most 6 decimals
 * @example parseAmount(1.5) // 1_500_000n
 * @example parseAmount('0.000001') // 1n
 */
export function parseAmount(value: unknown): bigint {
  const micro = parseNonNegativeAmount(value);
  if (micro <= 0n) throw new AmountError('amount must be positive');
  return micro;
}

/**
 * Like {@link parseAmount} but accepts 0.
 * @throws {AmountError} when the amount is not a finite non-negative number (-0 included), or a decimal string, with at most 6 decimals
 */
export function parseNonNegativeAmount(value: unknown): bigint {
  // A decimal string is the exact form of an amount, so it is taken as it is written.
  if (typeof value === 'string' && value.length <= 40) return parseDecimalAmount(value);
  if (typeof value !== 'number') throw new AmountError('amount must be a number or a decimal string');
  if (!Number.isFinite(value)) throw new AmountError('amount must be finite');
  // String(-0) is "0": a negative zero would otherwise pass as the amount 0.
  if (Object.is(value, -0)) throw new AmountError('amount must not be negative');
  return parseDecimalAmount(expandExponent(String(value)));
}

/**
 * Parses an exact decimal string, such as "12.5", into micro-USDC.
 * @throws {AmountError} when the text is not a non-negative decimal with at most 6 decimals
 * @example parseDecimalAmount('0.000001') // 1n
 */
export function parseDecimalAmount(text: string): bigint {
  if (text.startsWith('-')) throw new AmountError('amount must be positive');
  const match = DECIMAL_RE.exec(text);
  if (!match) throw new AmountError('amount must be a decimal number');
  const whole = match[1] as string;
  const fraction = match[2] ?? '';
  if (fraction.length > USDC_DECIMALS) throw new AmountError('amount has more than 6 decimals');
  const micro = BigInt(whole) * MICRO_PER_USDC + BigInt(fraction.padEnd(USDC_DECIMALS, '0') || '0');
  // The ledger compares amounts as Lua doubles, which are exact below 2^53.
  if (micro >= 1n << 53n) throw new AmountError('amount is too large');
  return micro;
}

// String(1e-7) is "1e-7": expand exponent notation exactly, digit by digit.
function expandExponent(text: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!m) return text;
  const sign = m[1] as string;
  const digits = (m[2] as string) + (m[3] ?? '');
  const pointAt = (m[2] as string).length + Number(m[4]);
  if (pointAt <= 0) return `${sign}0.${'0'.repeat(-pointAt)}${digits}`;
  if (pointAt >= digits.length) return sign + digits + '0'.repeat(pointAt - digits.length);
  return `${sign}${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
}

/** Exact decimal string of a micro amount, e.g. 1_500_000n → "1.5". */
export function formatMicro(micro: bigint): string {
  const negative = micro < 0n;
  const abs = negative ? -micro : micro;
  const whole = abs / MICRO_PER_USDC;
  const fraction = (abs % MICRO_PER_USDC).toString().padStart(USDC_DECIMALS, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

const EXACT = 1n << 53n;

/**
 * API number of a micro amount; display only, never fed back into arithmetic. Below 2^53 both operands of the
 * division are exact and IEEE division rounds correctly, so it is the double nearest the exact decimal, as
 * parsing {@link formatMicro}'s text gives, without building the text (a bulk audit rebuilds six a receipt).
 */
export const microToNumber = (micro: bigint): number => (micro < EXACT && micro > -EXACT ? Number(micro) / 1_000_000 : Number(formatMicro(micro)));
