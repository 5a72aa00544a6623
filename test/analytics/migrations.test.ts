// Migrations: applied in order once, idempotent, resumable after a cut, and refusing an edited applied file — on both engines.
import { describe, expect, it } from 'vitest';
import { MigrationError, loadMigrations, migrate, splitStatements, viewDefinitions, type Migration } from '../../analytics/migrations.ts';
import { TABLE_COLUMNS, VIEWS } from '../../analytics/tables.ts';
import { ENGINE_KINDS, engineEnv } from './engines.ts';

describe('migration files', () => {
  it('split into statements, comments dropped', () => {
    expect(splitStatements('-- a comment; with a semicolon\nCREATE TABLE a (x UInt8) ENGINE = Memory;\n\nSELECT 1;\n')).toEqual([
      'CREATE TABLE a (x UInt8) ENGINE = Memory',
      'SELECT 1',
    ]);
  });

  it('are versioned in order, and every statement is idempotent', () => {
    const migrations = loadMigrations();
    expect(migrations.map((m) => m.version)).toEqual([1, 2, 3, 4]);
    for (const m of migrations) {
      for (const s of m.statements) expect(s).toMatch(/^CREATE (TABLE|MATERIALIZED VIEW) IF NOT EXISTS /);
    }
  });

  it('define one view feeding each derived table', () => {
    const views = viewDefinitions();
    expect([...views.keys()].sort()).toEqual([...VIEWS].sort());
    expect([...views.values()].map((v) => v.target).sort()).toEqual(['actor_totals', 'hourly_totals', 'plays', 'top_wagers']);
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
    expect(await migrate(engine)).toEqual([1, 2, 3, 4]);
    const first = await schema(engine);
    expect(await migrate(engine)).toEqual([]);
    expect(await schema(engine)).toEqual(first);
    const recorded = await engine.query<{ n: unknown }>('SELECT count() AS n FROM schema_migrations');
    expect(Number(recorded[0]?.n)).toBe(4);
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
    expect(await migrate(engine)).toEqual([3, 4]);
    const tables = (await schema(engine)).map(([name]) => name);
    for (const t of [...Object.keys(TABLE_COLUMNS), ...VIEWS]) expect(tables).toContain(t);
  });

  it('refuses to start when an applied migration was edited', async () => {
    const engine = await env.open();
    const migrations = loadMigrations();
    await migrate(engine, { migrations });
    const edited = migrations.map((m) => (m.version === 2 ? { ...m, checksum: 'f'.repeat(64) } : m));
    await expect(migrate(engine, { migrations: edited })).rejects.toBeInstanceOf(MigrationError);
  });
});
