// The TabSeparated formatter chDB's inserts go through: exact output, refusals, and round trips through engine.insert.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../analytics/migrations.ts';
import { SqlValueError, dateTimeText, raw } from '../../analytics/sql.ts';
import { TABLE_COLUMNS } from '../../analytics/tables.ts';
import { tsvBytes, tsvField } from '../../analytics/tsv.ts';
import { ENGINE_KINDS, engineEnv } from './engines.ts';

describe('tsvField', () => {
  it('escapes what TabSeparated gives a meaning to, and nothing else', () => {
    expect(tsvField('plain')).toBe('plain');
    expect(tsvField('tab\there')).toBe('tab\\there');
    expect(tsvField('line\nbreak\r\0nul\bbs\fff')).toBe('line\\nbreak\\r\\0nul\\bbs\\fff');
    expect(tsvField('a\\b')).toBe('a\\\\b');
    expect(tsvField('\\t is not a tab')).toBe('\\\\t is not a tab');
    expect(tsvField('it\'s "quoted"')).toBe('it\'s "quoted"');
    expect(tsvField('ünïcødé ✓ 𝄞')).toBe('ünïcødé ✓ 𝄞');
    expect(tsvField('')).toBe('');
  });

  it('prints numbers, bigints and booleans exactly', () => {
    expect(tsvField(0)).toBe('0');
    expect(tsvField(-0)).toBe('0');
    expect(tsvField(0.25)).toBe('0.25');
    expect(tsvField(9223372036854775807n)).toBe('9223372036854775807');
    expect(tsvField(-9223372036854775808n)).toBe('-9223372036854775808');
    expect(tsvField(true)).toBe('1');
    expect(tsvField(false)).toBe('0');
  });

  it('refuses non-finite numbers, unsafe integers and values without a field', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) expect(() => tsvField(bad)).toThrow(SqlValueError);
    for (const bad of [null, undefined, {}, [1], new Date(0), raw('1')]) expect(() => tsvField(bad as never)).toThrow(SqlValueError);
  });

  it('writes one line per row, fields split by tabs', () => {
    expect(tsvBytes([]).toString()).toBe('');
    expect(
      tsvBytes([
        [1, 'a\tb', 2n],
        [false, '', 'x\ny'],
      ]).toString(),
    ).toBe('1\ta\\tb\t2\n0\t\tx\\ny\n');
  });

  it('copies bytes fields as they are, and escapes them like strings when they need it', () => {
    const json = Buffer.from('{"a":"é✓𝄞","b":[1,2]}');
    expect(tsvBytes([['x', json, 1], [json]])).toEqual(Buffer.concat([Buffer.from('x\t'), json, Buffer.from('\t1\n'), json, Buffer.from('\n')]));
    expect(tsvBytes([[Buffer.from('{"q":"\\"\\u0001"}\tx\n')]]).toString()).toBe('{"q":"\\\\"\\\\u0001"}\\tx\\n\n');
    expect(tsvField(new Uint8Array(Buffer.from('tab\t')))).toBe('tab\\t');
    // Many rows go out in pieces; the result is the same bytes as one piece.
    const rows = Array.from({ length: 3000 }, (_, i) => [i, `row ${i} ${'x'.repeat(i % 50)}`, i % 7 === 0 ? json : 'plain']);
    const whole = rows.map((r) => r.map((v) => (typeof v === 'object' ? v.toString() : String(v))).join('\t')).join('\n');
    expect(tsvBytes(rows).toString()).toBe(`${whole}\n`);
  });
});

const hostile = ["'", "\\'", '\\', '\\t', '\t', '\n\r\t\0\b\f', 'x\tinjected\n', '"`', '\u2028\u2029', '{"json":"with \\"escapes\\"\\n"}', 'é✓𝄞'];

describe.each(ENGINE_KINDS)('inserts read back exactly on %s', (kind) => {
  const env = engineEnv(kind);
  const row = (seq: number, text: string) => [
    seq,
    `${seq}-0`,
    text,
    text,
    seq * 1000,
    '',
    text,
    0,
    '',
    '',
    '',
    '',
    -9223372036854775808n,
    9223372036854775807n,
    0,
  ];

  it('keeps every hostile string and the Int64 extremes', async () => {
    const engine = await env.open();
    await migrate(engine);
    await engine.insert(
      'journal_events',
      TABLE_COLUMNS.journal_events,
      hostile.map((s, i) => row(i + 1, s)),
    );
    const got = await engine.query<{ seq: string; type: string; data: string; playBet: string; playPayout: string }>(
      'SELECT seq, type, data, playBet, playPayout FROM journal_events ORDER BY seq',
    );
    expect(got.map((r) => r.data)).toEqual(hostile);
    expect(got.map((r) => r.type)).toEqual(hostile);
    expect(got.every((r) => r.playBet === '-9223372036854775808' && r.playPayout === '9223372036854775807')).toBe(true);
    const bodies = ['{"plain":"é✓𝄞"}', '{"esc":"\\"\\\\"}', 'not json \t \n \\ at all'];
    await engine.insert(
      'receipts',
      TABLE_COLUMNS.receipts,
      bodies.map((b, i) => [`r${i}`, 'dice', 'p_x', 'won', 'pending_commit', Buffer.from(b), dateTimeText(new Date('2027-01-01T00:00:01Z')), 1n]),
    );
    expect(await engine.query('SELECT body, toString(createdAt) AS t FROM receipts ORDER BY receiptId')).toEqual(
      bodies.map((body) => ({ body, t: '2027-01-01 00:00:01' })),
    );
  });

  it('reads back any string (property)', async () => {
    const engine = await env.open();
    await migrate(engine);
    let seq = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: 'binary', maxLength: 40 }), { minLength: 1, maxLength: 20 }), async (texts) => {
        // Lone surrogates have no UTF-8 form; the property is over real text.
        fc.pre(texts.every((s) => s === Buffer.from(s, 'utf8').toString('utf8')));
        const first = seq + 1;
        await engine.insert(
          'journal_events',
          TABLE_COLUMNS.journal_events,
          texts.map((s) => row(++seq, s)),
        );
        const got = await engine.query<{ data: string }>(`SELECT data FROM journal_events WHERE seq >= ${first} ORDER BY seq`);
        expect(got.map((r) => r.data)).toEqual(texts);
      }),
      { numRuns: 25 },
    );
  });
});
