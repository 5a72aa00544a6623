/**
 * The analytics engine seen by the rest of the service: run a query, insert rows, run DDL. Two
 * implementations speak the same SQL: chDB in-process (`chdb-engine.ts`) and a ClickHouse server over
 * HTTP (`server-engine.ts`).
 * @module
 */
import { identifier, tuple, type SqlValue } from './sql.ts';
import { TABLES, TABLE_COLUMNS, type TableName } from './tables.ts';

/** A result row as ClickHouse writes it in JSONEachRow; 64-bit integers arrive as decimal strings. */
export type Row = Record<string, unknown>;

export interface AnalyticsEngine {
  /** `chdb` or `server`, for logs and metrics. */
  readonly kind: 'chdb' | 'server';
  /** The database every statement runs in. */
  readonly database: string;
  /** Runs a SELECT and returns its rows. */
  query<T extends Row = Row>(sql: string): Promise<T[]>;
  /** Runs a statement that returns no rows (DDL, INSERT … SELECT, TRUNCATE). */
  exec(sql: string): Promise<void>;
  /**
   * Inserts rows in one INSERT statement (atomic per part in MergeTree, and one block for the
   * materialized views). Values are formatted by `sql.ts`.
   */
  insert(table: TableName, columns: readonly string[], rows: readonly (readonly SqlValue[])[]): Promise<void>;
  /**
   * Resolves once no write this engine started is still running inside ClickHouse, so a caller that
   * saw an insert fail can read the table back and trust what it sees.
   */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** ClickHouse could not be reached or refused a statement. */
export class EngineError extends Error {
  override readonly name = 'EngineError';
}

/**
 * Reads a 64-bit integer from a result cell exactly: ClickHouse quotes them (we ask it to), and a bare
 * JSON number is accepted only while it is still exact.
 * @throws {EngineError} when the cell is not an integer or lost precision in transit
 */
export function bigIntOf(cell: unknown): bigint {
  if (typeof cell === 'string' && /^-?\d+$/.test(cell)) return BigInt(cell);
  if (typeof cell === 'number' && Number.isSafeInteger(cell)) return BigInt(cell);
  throw new EngineError(`not an exact integer: ${String(cell)}`);
}

/**
 * Reads a count or small integer from a result cell.
 * @throws {EngineError} when the value is not a safe integer
 */
export function intOf(cell: unknown): number {
  const n = bigIntOf(cell);
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER)) throw new EngineError(`integer out of range: ${n}`);
  return Number(n);
}

/** Settings both engines get on every query, so results read the same on either. */
export const COMMON_SETTINGS = {
  /** Int64 sums stay exact in JSON. */
  output_format_json_quote_64bit_integers: 1,
} as const;

/**
 * The table and columns of an INSERT, checked against the schema whitelist.
 * @throws {SqlValueError} for an unknown table or column
 */
export function insertTarget(table: TableName, columns: readonly string[]): { table: string; columns: string[] } {
  const allowed: readonly string[] = TABLE_COLUMNS[table];
  return { table: identifier(table, TABLES).text, columns: columns.map((c) => identifier(c, allowed).text) };
}

/**
 * `INSERT INTO t (cols) VALUES …` with the table and columns checked against the schema whitelist.
 * @throws {SqlValueError} for an unknown table or column, or a value without a literal
 */
export function insertStatement(table: TableName, columns: readonly string[], rows: readonly (readonly SqlValue[])[]): string {
  const target = insertTarget(table, columns);
  return `INSERT INTO ${target.table} (${target.columns.join(', ')}) VALUES ${rows.map(tuple).join(',')}`;
}
