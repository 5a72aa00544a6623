/**
 * Rows as RowBinary bytes: how chDB takes the large inserts (receipt bodies, journal data). ClickHouse reads a
 * RowBinary string as a length and a copy, where TabSeparated text is scanned for escapes byte by byte (about 4 ns a
 * byte in chDB, so a 3.6 kB receipt body cost about 15 µs to parse). Only the column types our tables use are written;
 * for anything else the encoder answers null and the caller sends TabSeparated, so a value never means something
 * else in one format than in the other.
 * @module
 */
import type { SqlValue } from './sql.ts';

/** A column type RowBinary is written for here (`DateTime` stands for `DateTime('UTC')`). */
export type RowBinaryType = 'String' | 'UInt8' | 'UInt16' | 'UInt32' | 'UInt64' | 'Int8' | 'Int16' | 'Int32' | 'Int64' | 'DateTime';

const INTEGER_BYTES = { UInt8: 1, UInt16: 2, UInt32: 4, UInt64: 8, Int8: 1, Int16: 2, Int32: 4, Int64: 8 } as const;
type IntegerType = keyof typeof INTEGER_BYTES;

/** The RowBinary type of a ClickHouse column type, or null when this encoder does not write it. */
export function rowBinaryType(clickhouseType: string): RowBinaryType | null {
  if (clickhouseType === 'String' || clickhouseType in INTEGER_BYTES) return clickhouseType as RowBinaryType;
  // A bare DateTime reads its text in the server's time zone; seconds written here are UTC.
  if (clickhouseType === "DateTime('UTC')") return 'DateTime';
  return null;
}

const DECIMAL_RE = /^-?\d{1,20}$/;
const DATE_TIME_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const UINT32_MAX = 2 ** 32 - 1;

function rangeOf(type: IntegerType): [bigint, bigint] {
  const bits = BigInt(INTEGER_BYTES[type] * 8);
  return type.startsWith('U') ? [0n, (1n << bits) - 1n] : [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n];
}
const RANGES = Object.fromEntries(Object.keys(INTEGER_BYTES).map((t) => [t, rangeOf(t as IntegerType)])) as Record<IntegerType, [bigint, bigint]>;

/** An integer column's value as TabSeparated would have given it (a safe integer, bigint, boolean or decimal text), or null. */
function integerOf(value: SqlValue, type: IntegerType): bigint | null {
  let n: bigint;
  if (typeof value === 'bigint') n = value;
  else if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) return null;
    n = BigInt(value);
  } else if (typeof value === 'boolean') n = value ? 1n : 0n;
  else if (typeof value === 'string' && DECIMAL_RE.test(value)) n = BigInt(value);
  else return null;
  const [min, max] = RANGES[type];
  return n >= min && n <= max ? n : null;
}

/** A DateTime column's value in seconds: `dateTimeText(…)` (UTC) or a whole number of seconds; else null. */
function secondsOf(value: SqlValue): number | null {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 && value <= UINT32_MAX ? value : null;
  if (typeof value !== 'string') return null;
  const m = DATE_TIME_RE.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const back = new Date(ms);
  // 2026-02-30 is not a date: text ClickHouse would read differently is left to TabSeparated.
  if (back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return null;
  const seconds = ms / 1000;
  return seconds >= 0 && seconds <= UINT32_MAX ? seconds : null;
}

/** A String column's bytes: text as UTF-8, bytes as they are; numbers and booleans as TabSeparated prints them. */
function stringOf(value: SqlValue): string | Uint8Array | null {
  if (typeof value === 'string' || value instanceof Uint8Array) return value;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value)))
    return Object.is(value, -0) ? '0' : String(value);
  return null;
}

// Buffer's writers, each given the type's own width: the small ones take a number, the 64-bit ones a bigint.
const WRITE_INTEGER: Record<IntegerType, (out: Buffer, n: bigint, at: number) => number> = {
  UInt8: (out, n, at) => out.writeUInt8(Number(n), at),
  UInt16: (out, n, at) => out.writeUInt16LE(Number(n), at),
  UInt32: (out, n, at) => out.writeUInt32LE(Number(n), at),
  UInt64: (out, n, at) => out.writeBigUInt64LE(n, at),
  Int8: (out, n, at) => out.writeInt8(Number(n), at),
  Int16: (out, n, at) => out.writeInt16LE(Number(n), at),
  Int32: (out, n, at) => out.writeInt32LE(Number(n), at),
  Int64: (out, n, at) => out.writeBigInt64LE(n, at),
};

const varintLength = (n: number): number => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5);

/**
 * Rows as RowBinary, in the order of `types`; null when a value has no exact RowBinary form here (the caller then
 * sends TabSeparated, which ClickHouse parses with its own rules).
 * @param allocate gives a buffer of at least the bytes' size, which they are written at the start of
 */
export function rowBinaryBytes(
  types: readonly RowBinaryType[],
  rows: readonly (readonly SqlValue[])[],
  allocate: (size: number) => Buffer = Buffer.allocUnsafe,
): Buffer | null {
  // One pass turns every value into what is written, and sizes the buffer; the second writes it.
  const values: (string | Uint8Array | bigint | number)[] = [];
  const textBytes: number[] = [];
  let size = 0;
  for (const row of rows) {
    if (row.length !== types.length) return null;
    for (let i = 0; i < types.length; i++) {
      const type = types[i] as RowBinaryType;
      const value = row[i] as SqlValue;
      if (type === 'String') {
        const s = stringOf(value);
        if (s === null) return null;
        const n = typeof s === 'string' ? Buffer.byteLength(s, 'utf8') : s.length;
        if (typeof s === 'string') textBytes.push(n);
        values.push(s);
        size += varintLength(n) + n;
      } else if (type === 'DateTime') {
        const seconds = secondsOf(value);
        if (seconds === null) return null;
        values.push(seconds);
        size += 4;
      } else {
        const n = integerOf(value, type);
        if (n === null) return null;
        values.push(n);
        size += INTEGER_BYTES[type];
      }
    }
  }
  const out = allocate(size).subarray(0, size);
  let at = 0;
  let text = 0;
  let v = 0;
  for (let r = 0; r < rows.length; r++) {
    for (const type of types) {
      const value = values[v++] as string | Uint8Array | bigint | number;
      switch (type) {
        case 'String': {
          let n = typeof value === 'string' ? (textBytes[text++] as number) : (value as Uint8Array).length;
          while (n >= 0x80) {
            out[at++] = (n & 0x7f) | 0x80;
            n >>>= 7;
          }
          out[at++] = n;
          if (typeof value === 'string') at += out.write(value, at, 'utf8');
          else {
            out.set(value as Uint8Array, at);
            at += (value as Uint8Array).length;
          }
          break;
        }
        case 'DateTime':
          at = out.writeUInt32LE(value as number, at);
          break;
        default:
          at = WRITE_INTEGER[type](out, value as bigint, at);
      }
    }
  }
  return out;
}
