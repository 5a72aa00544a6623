/**
 * The one way values and names enter analytics SQL: literals are formatted here, identifiers come
 * only from whitelists. Both engines parse the same text (chDB 26 and ClickHouse 18.16, which has no
 * `{name:Type}` server-side parameters), so escaping is done once, in this file, and tested.
 * @module
 */

/** A value or name that cannot be put into SQL safely. */
export class SqlValueError extends TypeError {
  override readonly name = 'SqlValueError';
}

/** A piece of SQL text that is trusted: built here, or written in this codebase. */
export class SqlFragment {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** Values the formatter turns into literals. Bytes are UTF-8 text (a stored JSON document read as bytes). */
export type SqlValue = string | number | bigint | boolean | Date | Uint8Array | readonly SqlValue[] | SqlFragment;

const HEX = '0123456789ABCDEF';

// Only `\` and `'` can end a quoted literal; control characters are written as \xHH too, so a literal
// is always one printable line that both engine versions read back byte for byte.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const NEEDS_ESCAPE = /[\\'\x00-\x1f\x7f]/;

function escapeString(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  let out = '';
  let last = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    let rep: string | null = null;
    if (code === 0x5c) rep = '\\\\';
    else if (code === 0x27) rep = "\\'";
    else if (code < 0x20 || code === 0x7f) rep = `\\x${HEX[code >> 4]}${HEX[code & 15]}`;
    if (rep !== null) {
      out += value.slice(last, i) + rep;
      last = i + 1;
    }
  }
  return last === 0 ? value : out + value.slice(last);
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/**
 * Formats one value as a ClickHouse literal.
 * - strings are single-quoted with `\`, `'` and control characters escaped;
 * - numbers must be finite (integers print as integers);
 * - bigints print exactly (Int64/UInt64 columns never pass through a double);
 * - booleans are 1 / 0;
 * - bytes are decoded as UTF-8 and quoted like a string;
 * - a Date is `toDateTime(<unix seconds>, 'UTC')`, whole seconds only;
 * - arrays are `[a, b]`; a {@link SqlFragment} is inserted as written.
 * @throws {SqlValueError} for NaN, ±Infinity, an invalid or sub-second Date, null, undefined, objects
 * @example literal("it's") // "'it\\'s'"
 */
export function literal(value: SqlValue): string {
  switch (typeof value) {
    case 'string':
      return `'${escapeString(value)}'`;
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? '1' : '0';
    case 'number':
      if (!Number.isFinite(value)) throw new SqlValueError(`not a finite number: ${value}`);
      if (Number.isInteger(value) && !Number.isSafeInteger(value)) throw new SqlValueError(`integer beyond 2^53, pass a bigint: ${value}`);
      return Object.is(value, -0) ? '0' : String(value);
    case 'object':
      if (value instanceof SqlFragment) return value.text;
      if (value instanceof Uint8Array) return `'${escapeString(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8'))}'`;
      if (value instanceof Date) {
        const ms = value.getTime();
        if (!Number.isFinite(ms)) throw new SqlValueError('invalid Date');
        if (ms % 1000 !== 0) throw new SqlValueError('a DateTime literal has whole seconds; pass milliseconds as an integer');
        return `toDateTime(${ms / 1000}, 'UTC')`;
      }
      if (Array.isArray(value)) return `[${value.map((v: SqlValue) => literal(v)).join(', ')}]`;
      throw new SqlValueError(`no SQL literal for ${value === null ? 'null' : 'this object'}`);
    default:
      throw new SqlValueError(`no SQL literal for ${typeof value}`);
  }
}

/**
 * A date as the `'YYYY-MM-DD hh:mm:ss'` text a `DateTime('UTC')` column reads (for inserts, where
 * `toDateTime(…)` would force the slow expression path of the VALUES parser).
 * @throws {SqlValueError} for an invalid Date
 */
export function dateTimeText(value: Date): string {
  const ms = value.getTime();
  if (!Number.isFinite(ms)) throw new SqlValueError('invalid Date');
  return `${value.getUTCFullYear()}-${pad2(value.getUTCMonth() + 1)}-${pad2(value.getUTCDate())} ${pad2(value.getUTCHours())}:${pad2(value.getUTCMinutes())}:${pad2(value.getUTCSeconds())}`;
}

const IDENTIFIER_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * An identifier (table, column, database) taken from a whitelist.
 * @throws {SqlValueError} when the name is not on the list or not a plain identifier
 * @example identifier('plays', TABLES) // SqlFragment('plays')
 */
export function identifier(name: string, allowed: readonly string[]): SqlFragment {
  if (!allowed.includes(name) || !IDENTIFIER_RE.test(name)) throw new SqlValueError(`identifier not allowed: ${JSON.stringify(name)}`);
  return new SqlFragment(name);
}

/** Marks SQL text written in this codebase (never input) as trusted. */
export const raw = (text: string): SqlFragment => new SqlFragment(text);

/**
 * Tagged template: every interpolated value goes through {@link literal}.
 * @example sql`SELECT count() FROM plays WHERE game = ${game}`
 */
export function sql(strings: TemplateStringsArray, ...values: SqlValue[]): string {
  let out = strings[0] as string;
  for (let i = 0; i < values.length; i++) out += literal(values[i] as SqlValue) + (strings[i + 1] as string);
  return out;
}

/** Like {@link sql}, for a fragment to be nested in another template. */
export const fragment = (strings: TemplateStringsArray, ...values: SqlValue[]): SqlFragment => new SqlFragment(sql(strings, ...values));

/** One `(v1, v2, …)` tuple of a VALUES list. */
export const tuple = (values: readonly SqlValue[]): string => `(${values.map((v) => literal(v)).join(', ')})`;
