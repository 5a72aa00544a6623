// The RowBinary encoder chDB's inserts go through: exact bytes, refusals (which go as TabSeparated instead), and
// tables that read back the same whichever format the rows went in.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openChdbEngine, type ChdbEngine } from '../../analytics/chdb-engine.ts';
import { migrate } from '../../analytics/migrations.ts';
import { rowBinaryBytes, rowBinaryType } from '../../analytics/row-binary.ts';
import { dateTimeText, type SqlValue } from '../../analytics/sql.ts';
import { TABLE_COLUMNS } from '../../analytics/tables.ts';

const hex = (b: Buffer | null) => b?.toString('hex') ?? null;

describe('rowBinaryType', () => {
  it('writes the types our tables use, and nothing else', () => {
    for (const t of ['String', 'UInt8', 'UInt16', 'UInt32', 'UInt64', 'Int8', 'Int16', 'Int32', 'Int64']) expect(rowBinaryType(t)).toBe(t);
    expect(rowBinaryType("DateTime('UTC')")).toBe('DateTime');
    for (const t of ['DateTime', 'Float64', 'Nullable(String)', 'Array(String)', "DateTime('Europe/Paris')", 'DateTime64(3)', 'LowCardinality(String)'])
      expect(rowBinaryType(t)).toBeNull();
  });
});

describe('rowBinaryBytes', () => {
  it('writes each type little-endian, strings as a LEB128 length and their UTF-8', () => {
    const bytes = rowBinaryBytes(
      ['String', 'UInt8', 'UInt16', 'UInt32', 'UInt64', 'Int8', 'Int16', 'Int32', 'Int64', 'DateTime'],
      [['é', true, 258, '4294967295', 2n ** 64n - 1n, -1, -2, -3, -9223372036854775808n, '1970-01-02 00:00:01']],
    );
    expect(hex(bytes)).toBe(
      [
        '02c3a9', // 'é': 2 bytes
        '01',
        '0201',
        'ffffffff',
        'ffffffffffffffff',
        'ff',
        'feff',
        'fdffffff',
        '0000000000000080',
        '81510100', // 86,401 s
      ].join(''),
    );
    // Bytes go in as they are; numbers and booleans in a String column as TabSeparated prints them.
    expect(hex(rowBinaryBytes(['String', 'String', 'String', 'String'], [[Buffer.from([0, 0xff]), 12n, -0, false]]))).toBe(
      '0200ff' + '023132' + '0130' + '0130',
    );
    expect(hex(rowBinaryBytes(['DateTime'], [[86_401]]))).toBe('81510100');
    expect(rowBinaryBytes(['String'], [])?.length).toBe(0);
  });

  it('writes lengths past one byte of LEB128', () => {
    for (const [n, prefix] of [
      [127, '7f'],
      [128, '8001'],
      [300, 'ac02'],
      [16_384, '808001'],
    ] as const) {
      const bytes = rowBinaryBytes(['String'], [['x'.repeat(n)]]) as Buffer;
      expect(bytes.subarray(0, prefix.length / 2).toString('hex')).toBe(prefix);
      expect(bytes.length).toBe(prefix.length / 2 + n);
    }
  });

  it('writes at the start of the buffer it asks `allocate` for, of the size it names', () => {
    const types = ['String', 'UInt32'] as const;
    const rows = [
      ['a receipt', 7],
      ['é', 4_294_967_295],
    ];
    const fresh = rowBinaryBytes([...types], rows) as Buffer;
    const asked: number[] = [];
    const larger = Buffer.alloc(64, 0xee);
    const into = rowBinaryBytes([...types], rows, (size) => {
      asked.push(size);
      return larger;
    }) as Buffer;
    expect(asked).toEqual([fresh.length]);
    expect(into.buffer).toBe(larger.buffer);
    expect(into.byteOffset).toBe(larger.byteOffset);
    expect(hex(into)).toBe(hex(fresh));
    // Rows it has no form for are refused before anything is allocated.
    expect(rowBinaryBytes(['UInt8'], [[256]], () => expect.unreachable())).toBeNull();
  });

  it('answers null for what it has no exact form for, so the rows go as TabSeparated', () => {
    const refused: [Parameters<typeof rowBinaryBytes>[0][number], SqlValue][] = [
      ['UInt8', 256],
      ['UInt8', -1],
      ['UInt64', 2n ** 64n],
      ['Int64', -(2n ** 63n) - 1n],
      ['Int32', 2 ** 53],
      ['Int32', 1.5],
      ['Int32', '+5'],
      ['Int32', ' 5'],
      ['UInt64', 'abc'],
      ['DateTime', '2026-02-30 00:00:00'],
      ['DateTime', '2026-11-27T00:00:00'],
      ['DateTime', '1798761601'],
      ['DateTime', -1],
      ['DateTime', new Date(0)],
      ['String', Number.NaN],
      ['String', 2 ** 53],
      ['String', new Date(0)],
      ['String', null as unknown as SqlValue],
    ];
    for (const [type, value] of refused) expect(rowBinaryBytes([type], [[value]]), `${type} ${String(value)}`).toBeNull();
    expect(rowBinaryBytes(['String', 'String'], [['only one']])).toBeNull();
  });
});

describe('chDB inserts as RowBinary', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-rowbinary-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const open = async (insertFormat: 'RowBinary' | 'TabSeparated', name: string) => {
    // One chDB data directory per process: each engine has a database of its own in it.
    const engine = (await openChdbEngine({ dataDir: dir, database: name, insertFormat })) as ChdbEngine;
    await migrate(engine);
    return engine;
  };
  const receipt = (i: number, text: string, createdAt: SqlValue = dateTimeText(new Date(Date.UTC(2027, 0, 1, 0, 0, i)))): SqlValue[] => [
    `r${String(i).padStart(4, '0')}`,
    'dice',
    text,
    'won',
    'pending_commit',
    Buffer.from(`{"text":${JSON.stringify(text)}}`),
    createdAt,
    BigInt(i),
  ];
  const table = (engine: ChdbEngine) => engine.query('SELECT *, toString(createdAt) AS at FROM receipts ORDER BY receiptId');

  it('reads back the same rows as TabSeparated, for any text (property), and leaves no file behind', async () => {
    const binary = await open('RowBinary', 'binary');
    const text = await open('TabSeparated', 'text');
    const before = binary.binaryInserts;
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: 'binary', maxLength: 300 }), { minLength: 1, maxLength: 20 }), async (texts) => {
        fc.pre(texts.every((s) => s === Buffer.from(s, 'utf8').toString('utf8')));
        const rows = texts.map((s) => receipt(++n, s));
        await binary.insert('receipts', TABLE_COLUMNS.receipts, rows);
        await text.insert('receipts', TABLE_COLUMNS.receipts, rows);
      }),
      { numRuns: 20 },
    );
    expect(binary.binaryInserts - before).toBeGreaterThanOrEqual(20);
    expect(text.binaryInserts).toBe(0);
    const got = await table(binary);
    expect(got.length).toBe(n);
    expect(got).toEqual(await table(text));
    expect(readdirSync(path.join(dir, 'inserts'))).toEqual([]);
    await binary.close();
    await text.close();
  });

  it('sends rows it has no exact form for as TabSeparated, which ClickHouse reads by its own rules', async () => {
    const engine = await open('RowBinary', 'fallback');
    const before = engine.binaryInserts;
    // A DateTime given as all digits is a Unix time to ClickHouse's text parser; the encoder leaves it to it.
    await engine.insert('receipts', TABLE_COLUMNS.receipts, [receipt(1, 'a', '1798761601')]);
    expect(engine.binaryInserts).toBe(before);
    expect(await engine.query('SELECT toString(createdAt) AS at FROM receipts')).toEqual([{ at: '2027-01-01 00:00:01' }]);
    await engine.close();
  });

  it('sends TabSeparated from a data directory file() would read as a glob, and clears what an ended process left', async () => {
    const globbed = path.join(dir, 'a{b}');
    mkdirSync(path.join(globbed, 'inserts'), { recursive: true });
    writeFileSync(path.join(globbed, 'inserts', '1-1.rowbinary'), 'left by an ended process');
    const engine = (await openChdbEngine({ dataDir: globbed, database: 'globbed' })) as ChdbEngine;
    expect(readdirSync(path.join(globbed, 'inserts'))).toEqual([]);
    await migrate(engine);
    await engine.insert('receipts', TABLE_COLUMNS.receipts, [receipt(1, 'a')]);
    expect(engine.binaryInserts).toBe(0);
    expect(await engine.query('SELECT count() AS n FROM receipts')).toEqual([{ n: '1' }]);
    await engine.close();
  });

  it('reads its insert files from a data directory given as a relative path', async () => {
    const relative = path.relative(process.cwd(), path.join(dir, 'relative'));
    expect(path.isAbsolute(relative)).toBe(false);
    const engine = (await openChdbEngine({ dataDir: relative, database: 'relative' })) as ChdbEngine;
    await migrate(engine);
    const before = engine.binaryInserts;
    await engine.insert('receipts', TABLE_COLUMNS.receipts, [receipt(1, 'a')]);
    expect(engine.binaryInserts).toBe(before + 1);
    expect(await engine.query('SELECT player FROM receipts')).toEqual([{ player: 'a' }]);
    await engine.close();
  });

  it('keeps inserts that run at once on one engine apart, each in a buffer of its own, whatever sizes follow', async () => {
    const engine = await open('RowBinary', 'concurrent');
    const before = engine.binaryInserts;
    // Sizes that grow and shrink, so the reused buffers are sometimes too small and sometimes larger than needed.
    const sizes = [3, 40, 1, 25, 2, 60, 5, 33, 8, 12];
    const player = (b: number) => `batch ${b} ${'x'.repeat(50 * b)}`;
    let n = 0;
    for (let round = 0; round < 2; round++) {
      const batches = sizes.map((size, b) => Array.from({ length: size }, () => receipt(++n, player(b))));
      await Promise.all(batches.map((rows) => engine.insert('receipts', TABLE_COLUMNS.receipts, rows)));
    }
    expect(engine.binaryInserts - before).toBe(2 * sizes.length);
    const got = await engine.query<{ player: string; n: string }>('SELECT player, count() AS n FROM receipts GROUP BY player ORDER BY player');
    expect(got).toEqual(sizes.map((size, b) => ({ player: player(b), n: String(2 * size) })).sort((x, y) => (x.player < y.player ? -1 : 1)));
    const bodies = await engine.query<{ bad: string }>(`SELECT count() AS bad FROM receipts WHERE body != concat('{"text":"', player, '"}')`);
    expect(bodies).toEqual([{ bad: '0' }]);
    await engine.close();
  });

  it('keeps the inserts of two engines on one data directory apart when they run at once', async () => {
    const [a, b] = await Promise.all([open('RowBinary', 'apart_a'), open('RowBinary', 'apart_b')]);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => [
        a.insert('receipts', TABLE_COLUMNS.receipts, [receipt(i, 'a')]),
        b.insert('receipts', TABLE_COLUMNS.receipts, [receipt(i, 'b'), receipt(i + 100, 'b')]),
      ]).flat(),
    );
    expect(await a.query('SELECT player, count() AS n FROM receipts GROUP BY player')).toEqual([{ player: 'a', n: '10' }]);
    expect(await b.query('SELECT player, count() AS n FROM receipts GROUP BY player')).toEqual([{ player: 'b', n: '20' }]);
    await a.close();
    await b.close();
  });
});
