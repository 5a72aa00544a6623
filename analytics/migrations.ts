/**
 * Versioned, idempotent ClickHouse migrations from `schemas/clickhouse/NNN_name.sql`, applied at start.
 * Every statement is `IF NOT EXISTS`, so a migration cut short is simply run again; an applied version
 * is recorded in `schema_migrations` with its checksum, and an applied file that later changed stops
 * the start instead of leaving two schemas that look alike.
 * @module
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { intOf, type AnalyticsEngine } from './engine.ts';
import { dateTimeText } from './sql.ts';

export interface Migration {
  version: number;
  name: string;
  /** Statements in file order, without the trailing `;`. */
  statements: string[];
  /** sha256 of the statements, hex. */
  checksum: string;
}

/** A materialized view as its migration defines it: the table it feeds and its SELECT. */
export interface ViewDefinition {
  name: string;
  target: string;
  select: string;
}

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

export const MIGRATIONS_DIR = fileURLToPath(new URL('../schemas/clickhouse/', import.meta.url));

const FILE_RE = /^(\d{3,})_([a-z0-9_]+)\.sql$/;

const BOOTSTRAP = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version UInt32,
  name String,
  checksum String,
  appliedAt DateTime('UTC')
) ENGINE = ReplacingMergeTree() ORDER BY version`;

/** Splits a migration file into statements: whole-line `--` comments dropped, `;` at a line end ends one. */
export function splitStatements(text: string): string[] {
  const lines = text.split('\n').filter((line) => !line.trim().startsWith('--'));
  return lines
    .join('\n')
    .split(/;[ \t]*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * Reads the migration files in version order.
 * @throws {MigrationError} for a misnamed file or two files with one version
 */
export function loadMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  const out: Migration[] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.sql')) continue;
    const m = FILE_RE.exec(file);
    if (!m) throw new MigrationError(`migration file name must be NNN_name.sql: ${file}`);
    const statements = splitStatements(readFileSync(path.join(dir, file), 'utf8'));
    const version = Number(m[1]);
    if (out.some((x) => x.version === version)) throw new MigrationError(`two migrations with version ${version}`);
    // Over the statements, not the file: rewording a comment is not a schema change.
    out.push({ version, name: m[2] as string, statements, checksum: createHash('sha256').update(statements.join(';\n')).digest('hex') });
  }
  return out;
}

const VIEW_RE = /^CREATE MATERIALIZED VIEW IF NOT EXISTS (\w+) TO (\w+) AS\s+([\s\S]+)$/;
const DROP_RE = /^DROP TABLE IF EXISTS (\w+)$/;

/**
 * The newest definition of every materialized view a migration left in place (a later migration may drop one), so
 * data can be re-derived with the view's own SELECT.
 */
export function viewDefinitions(migrations: readonly Migration[] = loadMigrations()): Map<string, ViewDefinition> {
  const views = new Map<string, ViewDefinition>();
  for (const m of migrations) {
    for (const statement of m.statements) {
      const dropped = DROP_RE.exec(statement);
      if (dropped) views.delete(dropped[1] as string);
      const v = VIEW_RE.exec(statement);
      if (v) views.set(v[1] as string, { name: v[1] as string, target: v[2] as string, select: v[3] as string });
    }
  }
  return views;
}

export interface MigrateOptions {
  migrations?: readonly Migration[];
  /** Stamps `appliedAt`. @defaultValue `() => new Date()` */
  now?: () => Date;
}

/**
 * Applies every migration not yet recorded, in order.
 * @returns the versions applied by this call
 * @throws {MigrationError} when an applied migration's file changed since
 * @throws {EngineError} when ClickHouse refuses a statement or cannot be reached
 */
export async function migrate(engine: AnalyticsEngine, options: MigrateOptions = {}): Promise<number[]> {
  const migrations = options.migrations ?? loadMigrations();
  const now = options.now ?? (() => new Date());
  await engine.exec(BOOTSTRAP);
  const rows = await engine.query<{ version: unknown; checksum: string }>('SELECT version, any(checksum) AS checksum FROM schema_migrations GROUP BY version');
  const applied = new Map(rows.map((r) => [intOf(r.version), r.checksum]));
  const done: number[] = [];
  for (const m of migrations) {
    const recorded = applied.get(m.version);
    if (recorded !== undefined) {
      if (recorded !== m.checksum) throw new MigrationError(`migration ${m.version}_${m.name} changed after it was applied; add a new migration instead`);
      continue;
    }
    for (const statement of m.statements) await engine.exec(statement);
    await engine.insert('schema_migrations', ['version', 'name', 'checksum', 'appliedAt'], [[m.version, m.name, m.checksum, dateTimeText(now())]]);
    done.push(m.version);
  }
  return done;
}
