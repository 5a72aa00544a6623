/**
 * Rows as TabSeparated bytes: how chDB takes inserts, handed to the engine's own parser instead of a `VALUES`
 * statement built and parsed as SQL (which costs several times more per row, on both sides). ClickHouse 18.16
 * reads the same format.
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
const ESCAPED_BYTES = [0x5c, 0x09, 0x0a, 0x0d, 0x00, 0x08, 0x0c];

/**
 * One field of a TabSeparated row, as text.
 * - strings are escaped (`\`, tab, newline, carriage return, NUL, backspace, form feed);
 * - bytes are UTF-8 text, decoded and escaped the same way;
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
      if (value instanceof Uint8Array) return tsvField(bytesOf(value).toString('utf8'));
      throw new SqlValueError(`no TabSeparated field for ${value === null ? 'null' : typeof value === 'object' ? 'this object' : typeof value}`);
  }
}

const bytesOf = (value: Uint8Array): Buffer => (Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength));

// Text is encoded in pieces of about this many characters: one Buffer.from over a whole batch built by `+=` costs
// several times more than pieces this size.
const PIECE_CHARS = 64 * 1024;

/**
 * Rows as TabSeparated bytes, one line each, every line ended by `\n`. Bytes fields go in as they are when they hold
 * nothing to escape (a stored JSON document never does), so large documents are copied, not decoded and re-encoded.
 * @throws {SqlValueError} for a value {@link tsvField} refuses
 */
export function tsvBytes(rows: readonly (readonly SqlValue[])[]): Buffer {
  const pieces: Buffer[] = [];
  let text = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      if (i > 0) text += '\t';
      const value = row[i] as SqlValue;
      if (value instanceof Uint8Array && !ESCAPED_BYTES.some((b) => value.includes(b))) {
        if (text) pieces.push(Buffer.from(text));
        text = '';
        pieces.push(bytesOf(value));
      } else {
        text += tsvField(value);
      }
    }
    text += '\n';
    if (text.length >= PIECE_CHARS) {
      pieces.push(Buffer.from(text));
      text = '';
    }
  }
  if (text) pieces.push(Buffer.from(text));
  return Buffer.concat(pieces);
}
