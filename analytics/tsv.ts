/**
 * Rows as TabSeparated text: how chDB takes inserts, handed to the engine's own parser as bytes instead of a
 * `VALUES` statement built and parsed as SQL (which costs several times more per row, on both sides).
 * ClickHouse 18.16 reads the same format.
 * @module
 */
import { SqlValueError, type SqlValue } from './sql.ts';

// The bytes TabSeparated gives a meaning to (field and row ends, the escape itself), plus NUL, backspace, form feed
// and carriage return, which are written escaped too so that a field reads back byte for byte.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const NEEDS_ESCAPE = /[\\\t\n\r\x00\x08\x0c]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const ESCAPED = /[\\\t\n\r\x00\x08\x0c]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\x00': '\\0', '\x08': '\\b', '\x0c': '\\f' };

/**
 * One field of a TabSeparated row.
 * - strings are escaped (`\`, tab, newline, carriage return, NUL, backspace, form feed);
 * - numbers must be finite (integers within 2^53); bigints print exactly; booleans are 1 / 0.
 * @throws {SqlValueError} for anything else (a DateTime column takes `dateTimeText(…)`)
 * @example tsvField('a\tb') // 'a\\tb'
 */
export function tsvField(value: SqlValue): string {
  switch (typeof value) {
    case 'string':
      return NEEDS_ESCAPE.test(value) ? value.replace(ESCAPED, (c) => ESCAPES[c] as string) : value;
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? '1' : '0';
    case 'number':
      if (!Number.isFinite(value)) throw new SqlValueError(`not a finite number: ${value}`);
      if (Number.isInteger(value) && !Number.isSafeInteger(value)) throw new SqlValueError(`integer beyond 2^53, pass a bigint: ${value}`);
      return Object.is(value, -0) ? '0' : String(value);
    default:
      throw new SqlValueError(`no TabSeparated field for ${value === null ? 'null' : typeof value === 'object' ? 'this object' : typeof value}`);
  }
}

/** Rows as TabSeparated text, one line each, every line ended by `\n`. */
export function tsvRows(rows: readonly (readonly SqlValue[])[]): string {
  let out = '';
  for (const row of rows) {
    let line = '';
    for (let i = 0; i < row.length; i++) line += (i === 0 ? '' : '\t') + tsvField(row[i] as SqlValue);
    out += `${line}\n`;
  }
  return out;
}
