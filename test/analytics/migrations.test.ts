// Migrations: applied in order once, idempotent, resumable after a cut, and refusing an edited applied file — on both engines.
import { describe, expect, it } from 'vitest';
import { MigrationError, loadMigrations, migrate, splitStatements, viewDefinitions, type Migration } from '../../analytics/migrations.ts';
import type { AnalyticsEngine } from '../../analytics/engine.ts';
import { JOURNAL_COLUMNS } from '../../analytics/journal-rows.ts';
import type { SqlValue } from '../../analytics/sql.ts';
import { TABLE_COLUMNS, VIEWS } from '../../analytics/tables.ts';
import { ENGINE_KINDS, engineEnv } from './engines.ts';

/** `n` settled plays from seq `from` on, ten minutes apart, over a few players, both games and sources. */
function journalBlock(from: number, n: number): SqlValue[][] {
  return Array.from({ length: n }, (_, i) => {
    const seq = from + i;
    const game = seq % 2 ? 'dice' : 'sweeper';
    const won = seq % 4 === 0;
    return [
      seq,
      `1-${seq}`,
      'bet_settled',
      '',
      1_798_000_000_000 + seq * 600_000,
      game,
      '{}',
      1,
      `r${seq}`,
      game,
      `p_${seq % 5}`,
      seq % 3 ? 'api' : 'mcp',
      1000n + BigInt(seq),
      won ? 2000n : 0n,
      won ? 1 : 0,
    ];
  });
}

describe('migration files', () => {
  it('split into statements, comments dropped', () => {
    expect(splitStatements('-- a comment; with a semicolon\nCREATE TABLE a (x UInt8) ENGINE = Memory;\n\nSELECT 1;\n')).toEqual([
      'CREATE TABLE a (x UInt8) ENGINE = Memory',
      'SELECT 1',
    ]);
  });

  it('are versioned in order, and every statement is idempotent', () => {
    const migrations = loadMigrations();
    expect(migrations.map((m) => m.version)).toEqual([1, 2, 3, 4, 5, 6]);
    for (const m of migrations) {
      for (const s of m.statements) {
        expect(s).toMatch(/^(CREATE (TABLE|VIEW|MATERIALIZED VIEW) IF NOT EXISTS |DROP TABLE IF EXISTS |TRUNCATE TABLE |INSERT INTO )/);
        // A copy runs again after a cut only while its target holds none of what it copies.
        const insert = /^INSERT INTO (\w+) /.exec(s);
        if (insert) expect(s).toMatch(new RegExp(`WHERE \\(SELECT count\\(\\) FROM ${insert[1]}\\b[^)]*\\) = 0`));
      }
    }
  });

  it('define one view feeding each derived table', () => {
    const views = viewDefinitions();
    expect([...views.keys()].sort()).toEqual([...VIEWS].sort());
    expect([...views.values()].map((v) => v.target).sort()).toEqual(['plays', 'slice_totals']);
  });
});

describe.each(ENGINE_KINDS)('migrate on %s', (kind) => {
  const env = engineEnv(kind);

  async function schema(engine: Awaited<ReturnType<typeof env.open>>) {
    const rows = await engine.query<{ name: string; engine: string; create_table_query: string }>(
      'SELECT name, engine, create_table_query FROM system.tables WHERE database = currentDatabase() ORDER BY name',
    );
    return rows.map((r) => [r.name, r.engine, r.create_table_query]);
  }

  it('applies every migration once; a second run changes nothing', async () => {
    const engine = await env.open();
    expect(await migrate(engine)).toEqual([1, 2, 3, 4, 5, 6]);
    const first = await schema(engine);
    expect(await migrate(engine)).toEqual([]);
    expect(await schema(engine)).toEqual(first);
    const recorded = await engine.query<{ n: unknown }>('SELECT count() AS n FROM schema_migrations');
    expect(Number(recorded[0]?.n)).toBe(6);
    // The whitelist in tables.ts names exactly the columns the migrations create.
    for (const [table, columns] of Object.entries(TABLE_COLUMNS)) {
      const rows = await engine.query<{ name: string }>(`SELECT name FROM system.columns WHERE database = currentDatabase() AND table = '${table}'`);
      expect({ table, columns: rows.map((r) => r.name) }).toEqual({ table, columns: [...columns] });
    }
  });

  it('finishes a migration that was cut short', async () => {
    const engine = await env.open();
    const [m1, m2, m3] = loadMigrations() as [Migration, Migration, Migration];
    expect(await migrate(engine, { migrations: [m1, m2] })).toEqual([1, 2]);
    // Half of migration 3 ran before the process died.
    for (const s of m3.statements.slice(0, 3)) await engine.exec(s);
    expect(await migrate(engine)).toEqual([3, 4, 5, 6]);
    const tables = (await schema(engine)).map(([name]) => name);
    for (const t of [...Object.keys(TABLE_COLUMNS), ...VIEWS]) expect(tables).toContain(t);
  });

  it('keeps the totals of a deployment that holds plays, wherever migration 5 was cut', async () => {
    const migrations = loadMigrations();
    const upTo4 = migrations.filter((m) => m.version <= 4);
    const m5 = migrations.find((m) => m.version === 5) as Migration;
    const sums = 'sum(plays) AS n, sum(wins) AS w, sum(wagered) AS wag, sum(paidOut) AS paid';
    const actors = (engine: AnalyticsEngine) =>
      engine.query(`SELECT game, source, player, ${sums} FROM actor_totals GROUP BY game, source, player ORDER BY game, source, player`);
    const hours = (engine: AnalyticsEngine) =>
      engine.query(`SELECT game, source, hour, ${sums} FROM hourly_totals GROUP BY game, source, hour ORDER BY game, source, hour`);
    for (let cut = 0; cut <= m5.statements.length; cut++) {
      const engine = await env.open();
      await migrate(engine, { migrations: upTo4 });
      // Two blocks, so the old tables hold unmerged duplicate keys.
      await engine.insert('journal_events', JOURNAL_COLUMNS, journalBlock(1, 40));
      await engine.insert('journal_events', JOURNAL_COLUMNS, journalBlock(41, 40));
      const before = { actors: await actors(engine), hours: await hours(engine) };
      expect(before.actors.length).toBeGreaterThan(0);
      for (const s of m5.statements.slice(0, cut)) await engine.exec(s);
      expect(await migrate(engine)).toEqual([5, 6]);
      expect({ cut, actors: await actors(engine), hours: await hours(engine) }).toEqual({ cut, ...before });
      // And the one view feeds both from now on.
      await engine.insert('journal_events', JOURNAL_COLUMNS, journalBlock(81, 8));
      const [all] = await engine.query<{ n: unknown }>("SELECT sum(plays) AS n FROM hourly_totals WHERE game = '*' AND source = '*'");
      expect(Number(all?.n)).toBe(88);
      await engine.close();
    }
  }, 120_000);

  it('refuses to start when an applied migration was edited', async () => {
    const engine = await env.open();
    const migrations = loadMigrations();
    await migrate(engine, { migrations });
    const edited = migrations.map((m) => (m.version === 2 ? { ...m, checksum: 'f'.repeat(64) } : m));
    await expect(migrate(engine, { migrations: edited })).rejects.toBeInstanceOf(MigrationError);
  });
});
