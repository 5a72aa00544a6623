/**
 * chDB (ClickHouse in-process) as the analytics engine: the embedded default. Only the async calls run
 * here; a data directory belongs to one process (chDB locks `<dir>/status`), so the process that opens
 * it answers analytics queries for the others.
 * @module
 */
import { mkdirSync } from 'node:fs';
import { Session, drainPending } from 'chdb';
import { COMMON_SETTINGS, EngineError, insertTarget, type AnalyticsEngine, type Row } from './engine.ts';
import type { SqlValue } from './sql.ts';
import type { TableName } from './tables.ts';
import { parseJsonEachRow } from './json-rows.ts';
import { tsvBytes } from './tsv.ts';

export interface ChdbEngineOptions {
  /** Directory that holds the chDB data; created when missing. */
  dataDir: string;
  /**
   * Database the engine works in, created when missing.
   * @defaultValue `'default'`
   */
  database?: string;
  /**
   * Threads one query may use. chDB's threads compete with the Node thread for the same cores, so this
   * stays low (design §8).
   * @defaultValue 1
   */
  maxThreads?: number;
}

const DATABASE_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MIB = 1024 * 1024;

/**
 * chDB's server settings. ClickHouse's defaults suit a host of its own; here chDB shares two cores and the service's
 * memory: merges run in a pool of two threads (chDB's own default, pinned), the caches that fill as parts are read
 * are capped (5 GiB each by default), and chDB as a whole is held to 1 GiB (past a fifth of it in freed pages, its
 * memory worker hands them back to the system).
 */
export const CHDB_SERVER_SETTINGS = {
  background_pool_size: 2,
  mark_cache_size: 64 * MIB,
  primary_index_cache_size: 64 * MIB,
  index_mark_cache_size: 16 * MIB,
  max_server_memory_usage: 1024 * MIB,
} as const;

/**
 * Opens (or creates) a chDB data directory.
 * @throws {EngineError} when another process holds the directory, or the database name is not plain
 */
export async function openChdbEngine(options: ChdbEngineOptions): Promise<AnalyticsEngine> {
  const database = options.database ?? 'default';
  if (!DATABASE_RE.test(database)) throw new EngineError(`invalid database name ${JSON.stringify(database)}`);
  mkdirSync(options.dataDir, { recursive: true });
  // Our own batches are the batching: an async insert would only wait for its flush timer. Our answers are small:
  // formatting them on threads of their own costs more in hand-offs (about 0.6 ms of CPU a query) than it saves.
  const settings = { max_threads: options.maxThreads ?? 1, async_insert: 0, output_format_parallel_formatting: 0, ...COMMON_SETTINGS };
  let session: Session;
  try {
    session = new Session(options.dataDir, { connectionArgs: Object.entries({ ...CHDB_SERVER_SETTINGS, ...settings }).map(([k, v]) => `--${k}=${v}`) });
  } catch (err) {
    throw new EngineError(`cannot open chDB at ${options.dataDir}: ${(err as Error).message}`, { cause: err });
  }
  const engine = new ChdbEngine(session, database);
  try {
    await engine.exec(`CREATE DATABASE IF NOT EXISTS ${database}`);
    // USE holds for this session's connection; a second Session on the same directory has its own.
    await engine.exec(`USE ${database}`);
  } catch (err) {
    await engine.close();
    throw err;
  }
  return engine;
}

class ChdbEngine implements AnalyticsEngine {
  readonly kind = 'chdb' as const;
  private closed = false;

  constructor(
    private readonly session: Session,
    readonly database: string,
  ) {}

  async query<T extends Row = Row>(text: string): Promise<T[]> {
    return parseJsonEachRow<T>(await this.run(text, 'JSONEachRow'));
  }

  async exec(text: string): Promise<void> {
    await this.run(text, 'TabSeparated');
  }

  async insert(table: TableName, columns: readonly string[], rows: readonly (readonly SqlValue[])[]): Promise<void> {
    if (rows.length === 0) return;
    if (this.closed) throw new EngineError('chDB engine is closed');
    const target = insertTarget(table, columns);
    const values = tsvBytes(rows);
    try {
      await this.session.insert({ table: `${this.database}.${target.table}`, columns: target.columns, values, format: 'TabSeparated' });
    } catch (err) {
      throw new EngineError(`chDB: ${(err as Error).message}`, { cause: err });
    }
  }

  async settle(): Promise<void> {
    // chDB runs each call on a libuv thread; drainPending resolves when none is left running.
    await drainPending();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.session.close();
    await drainPending();
  }

  private async run(text: string, format: string): Promise<string> {
    if (this.closed) throw new EngineError('chDB engine is closed');
    try {
      return (await this.session.queryAsync(text, { format })).text();
    } catch (err) {
      throw new EngineError(`chDB: ${(err as Error).message}`, { cause: err });
    }
  }
}
