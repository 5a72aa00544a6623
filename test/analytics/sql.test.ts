// The literal formatter and identifier whitelist: exact output, refusals, and round trips through chDB.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChdbEngine } from '../../analytics/chdb-engine.ts';
import { insertStatement, type AnalyticsEngine } from '../../analytics/engine.ts';
import { SqlValueError, dateTimeText, fragment, identifier, literal, raw, sql, tuple } from '../../analytics/sql.ts';

describe('literal', () => {
  it('quotes strings and escapes backslashes, quotes and control characters', () => {
    expect(literal('plain')).toBe("'plain'");
    expect(literal("it's")).toBe("'it\\'s'");
    expect(literal('a\\b')).toBe("'a\\\\b'");
    expect(literal('ends with \\')).toBe("'ends with \\\\'");
    expect(literal('line\nbreak\ttab\r\0nul\x7f')).toBe("'line\\x0Abreak\\x09tab\\x0D\\x00nul\\x7F'");
    expect(literal('')).toBe("''");
    expect(literal('ünïcødé ✓ 𝄞')).toBe("'ünïcødé ✓ 𝄞'");
    // Bytes are UTF-8 text (a stored document read as bytes), quoted the same way.
    expect(literal(Buffer.from("it's ✓\n"))).toBe("'it\\'s ✓\\x0A'");
    expect(literal(new Uint8Array(Buffer.from('{"a":1}')))).toBe('\'{"a":1}\'');
  });

  it('keeps injection attempts inside one string literal', () => {
    expect(literal("x' OR 1=1 --")).toBe("'x\\' OR 1=1 --'");
    expect(literal("a\\' OR 1=1 --")).toBe("'a\\\\\\' OR 1=1 --'");
    expect(literal("'); DROP TABLE plays; --")).toBe("'\\'); DROP TABLE plays; --'");
  });

  it('prints numbers, bigints and booleans exactly', () => {
    expect(literal(0)).toBe('0');
    expect(literal(-0)).toBe('0');
    expect(literal(42)).toBe('42');
    expect(literal(-7)).toBe('-7');
    expect(literal(0.25)).toBe('0.25');
    expect(literal(Number.MAX_SAFE_INTEGER)).toBe('9007199254740991');
    expect(literal(9223372036854775807n)).toBe('9223372036854775807');
    expect(literal(-9223372036854775808n)).toBe('-9223372036854775808');
    expect(literal(true)).toBe('1');
    expect(literal(false)).toBe('0');
  });

  it('refuses non-finite numbers, unsafe integers and values without a literal', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 2 ** 53, -(2 ** 60)]) {
      expect(() => literal(bad)).toThrow(SqlValueError);
    }
    for (const bad of [null, undefined, {}, Symbol('x'), () => 1, new Date(Number.NaN)]) {
      expect(() => literal(bad as never)).toThrow(SqlValueError);
    }
    expect(() => literal([1, Number.NaN])).toThrow(SqlValueError);
  });

  it('writes dates as UTC DateTime of whole seconds', () => {
    expect(literal(new Date('2026-01-02T03:04:05Z'))).toBe("toDateTime(1767323045, 'UTC')");
    expect(() => literal(new Date('2026-01-02T03:04:05.500Z'))).toThrow(SqlValueError);
    expect(dateTimeText(new Date('2026-01-02T03:04:05.999Z'))).toBe('2026-01-02 03:04:05');
    expect(() => dateTimeText(new Date('nope'))).toThrow(SqlValueError);
  });

  it('formats arrays, tuples and trusted fragments', () => {
    expect(literal([1, 'a', 2n])).toBe("[1, 'a', 2]");
    expect(literal([])).toBe('[]');
    expect(tuple([1, "o'k", false])).toBe("(1, 'o\\'k', 0)");
    expect(literal(raw('count()'))).toBe('count()');
    expect(sql`SELECT ${"x'"} AS v, ${fragment`${1} + ${2}`} AS s`).toBe("SELECT 'x\\'' AS v, 1 + 2 AS s");
  });
});

describe('identifier', () => {
  const allowed = ['plays', 'journal_events', 'bad name'];
  it('passes names on the whitelist', () => {
    expect(identifier('plays', allowed).text).toBe('plays');
  });
  it('refuses anything else, even on the list when it is not a plain name', () => {
    for (const bad of ['players', 'plays; DROP TABLE x', 'PLAYS', '', 'bad name', '`plays`']) {
      expect(() => identifier(bad, allowed)).toThrow(SqlValueError);
    }
  });
  it('guards inserts: unknown tables and columns are refused', () => {
    expect(() => insertStatement('nope' as never, ['seq'], [[1]])).toThrow(SqlValueError);
    expect(() => insertStatement('plays', ['seq', 'password'], [[1, 'x']])).toThrow(SqlValueError);
    expect(insertStatement('plays', ['seq', 'game'], [[1, 'dice']])).toBe("INSERT INTO plays (seq, game) VALUES (1, 'dice')");
  });
});

describe('round trip through ClickHouse (chDB)', () => {
  let dir: string;
  let engine: AnalyticsEngine;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-sql-'));
    engine = await openChdbEngine({ dataDir: dir, database: 'sqltest' });
  });
  afterAll(async () => {
    await engine?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const back = async (value: Parameters<typeof literal>[0]) => (await engine.query(`SELECT ${literal(value)} AS v`))[0]?.v;

  it('reads back every hostile string exactly', async () => {
    const hostile = [
      "'",
      "\\'",
      "\\\\'",
      "x' OR '1'='1",
      "'; DROP DATABASE sqltest; --",
      '\\',
      '\\x41',
      '\n\r\t\0',
      '$1 {v:String}',
      '?',
      '"`',
      '\u2028\u2029',
    ];
    for (const s of hostile) expect(await back(s)).toBe(s);
    // The injection attempts above changed nothing: the database is still there.
    expect(await engine.query("SELECT name FROM system.databases WHERE name = 'sqltest'")).toHaveLength(1);
  });

  it('reads back any string (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 40 }), async (s) => {
        // Lone surrogates have no UTF-8 form; the property is over real text.
        fc.pre(s === Buffer.from(s, 'utf8').toString('utf8'));
        expect(await back(s)).toBe(s);
      }),
      { numRuns: 100 },
    );
  });

  it('keeps Int64 extremes and dates exact', async () => {
    expect(await back(-9223372036854775808n)).toBe('-9223372036854775808');
    expect(await back(9223372036854775807n)).toBe('9223372036854775807');
    const [row] = await engine.query(`SELECT toUInt32(${literal(new Date('2027-01-01T00:00:00Z'))}) AS s`);
    expect(Number(row?.s)).toBe(Date.UTC(2027, 0, 1) / 1000);
  });
});
