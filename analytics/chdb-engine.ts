/**
 * chDB (ClickHouse in-process) as the analytics engine: the embedded default. Only the async calls run
 * here; a data directory belongs to one process (chDB locks `<dir>/status`), so the process that opens
 * it answers analytics queries for the others.
 * @module
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Session, drainPending } from 'chdb';
import { COMMON_SETTINGS, EngineError, insertTarget, type AnalyticsEngine, type Row } from './engine.ts';
import { literal, type SqlValue } from './sql.ts';
import type { TableName } from './tables.ts';
import { parseJsonEachRow } from './json-rows.ts';
import { rowBinaryBytes, rowBinaryType, type RowBinaryType } from './row-binary.ts';
import { tsvBytes } from './tsv.ts';
import { BufferPool } from '../store/buffer-pool.ts';

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
  /**
   * How rows go in: RowBinary, read by chDB from a file under `<dataDir>/inserts` (a string is a length and a copy),
   * or TabSeparated handed over in memory (every byte scanned for escapes). Rows RowBinary has no exact form for here
   * go as TabSeparated either way.
   * @defaultValue `'RowBinary'`
   */
  insertFormat?: 'RowBinary' | 'TabSeparated';
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
  const connectionArgs = Object.entries({ ...CHDB_SERVER_SETTINGS, ...settings }).map(([k, v]) => `--${k}=${v}`);
  // A chDB connection runs one statement at a time: reads get a connection of their own, so a rankings query does
  // not wait behind the shipper's and the archiver's inserts (and their views) on the writers' connection.
  let writer: Session | undefined;
  let reader: Session;
  try {
    writer = new Session(options.dataDir, { connectionArgs });
    reader = new Session(options.dataDir, { connectionArgs });
  } catch (err) {
    writer?.close();
    throw new EngineError(`cannot open chDB at ${options.dataDir}: ${(err as Error).message}`, { cause: err });
  }
  // What an ended process left of its insert files is never read again (this process's own may be in flight).
  // Absolute, so file() reads the same file whatever directory it would take a relative path from.
  const inserts = path.resolve(options.dataDir, 'inserts');
  mkdirSync(inserts, { recursive: true });
  for (const name of readdirSync(inserts)) if (!name.startsWith(`${process.pid}-`)) rmSync(path.join(inserts, name), { force: true });
  const engine = new ChdbEngine(writer, reader, database, options.insertFormat === 'TabSeparated' ? null : inserts);
  try {
    await engine.exec(`CREATE DATABASE IF NOT EXISTS ${database}`);
    // USE holds for one connection: each of the two needs its own.
    await engine.use();
  } catch (err) {
    await engine.close();
    throw err;
  }
  return engine;
}

// file() reads a path with these as a glob.
const GLOB_RE = /[*?{}[\]]/;

// Numbered across the process: engines on databases of one data directory share its insert directory.
let insertFiles = 0;

export class ChdbEngine implements AnalyticsEngine {
  readonly kind = 'chdb' as const;
  /** Inserts that went as RowBinary (the rest went as TabSeparated). */
  binaryInserts = 0;
  private closed = false;
  /** Each table's column types, as DESCRIBE names them. */
  private readonly layouts = new Map<string, Promise<Map<string, string>>>();
  /** What the RowBinary of inserts is written in: the shipper's and the archiver's run at once (a few MB each). */
  private readonly buffers = new BufferPool(2, 32 * MIB);

  constructor(
    /** Runs every statement that writes (exec and insert). */
    private readonly writer: Session,
    /** Runs every query that reads: chDB runs one statement at a time per connection. */
    private readonly reader: Session,
    readonly database: string,
    /** Where RowBinary inserts are written for chDB to read; null sends every insert as TabSeparated. */
    private readonly insertsDir: string | null,
  ) {}

  async query<T extends Row = Row>(text: string): Promise<T[]> {
    return parseJsonEachRow<T>(await this.run(text, 'JSONEachRow', this.reader));
  }

  async exec(text: string): Promise<void> {
    await this.run(text, 'TabSeparated');
  }

  /** Makes the engine's database the current one on both connections. */
  async use(): Promise<void> {
    await Promise.all([this.run(`USE ${this.database}`, 'TabSeparated'), this.run(`USE ${this.database}`, 'TabSeparated', this.reader)]);
  }

  async insert(table: TableName, columns: readonly string[], rows: readonly (readonly SqlValue[])[]): Promise<void> {
    if (rows.length === 0) return;
    if (this.closed) throw new EngineError('chDB engine is closed');
    const target = insertTarget(table, columns);
    let taken: Buffer | undefined;
    const binary = await this.rowBinary(target.table, target.columns, rows, (size) => {
      taken = this.buffers.take(size);
      return taken;
    });
    if (binary) {
      const file = path.join(binary.dir, `${process.pid}-${++insertFiles}.rowbinary`);
      try {
        await writeFile(file, binary.bytes).catch((err: Error) => {
          throw new EngineError(`chDB: cannot write the insert file ${file}: ${err.message}`, { cause: err });
        });
        await this.run(
          `INSERT INTO ${this.database}.${target.table} (${target.columns.join(', ')}) SELECT * FROM file(${literal(file)}, 'RowBinary', ${literal(binary.structure)})`,
          'TabSeparated',
        );
        this.binaryInserts++;
      } catch (err) {
        // A table changed since it was described is described again before the next insert.
        this.layouts.delete(target.table);
        throw err;
      } finally {
        // One left behind (the disk refused) is removed when the engine next opens.
        await rm(file, { force: true }).catch(() => undefined);
        if (taken) this.buffers.give(taken);
      }
      return;
    }
    const values = tsvBytes(rows);
    try {
      await this.writer.insert({ table: `${this.database}.${target.table}`, columns: target.columns, values, format: 'TabSeparated' });
    } catch (err) {
      throw new EngineError(`chDB: ${(err as Error).message}`, { cause: err });
    }
  }

  /** The rows as RowBinary with the structure file() reads them by, or null when they go as TabSeparated. */
  private async rowBinary(
    table: string,
    columns: readonly string[],
    rows: readonly (readonly SqlValue[])[],
    allocate: (size: number) => Buffer,
  ): Promise<{ dir: string; bytes: Buffer; structure: string } | null> {
    const dir = this.insertsDir;
    if (dir === null || GLOB_RE.test(dir)) return null;
    const layout = await this.layoutOf(table);
    const types = columns.map((c) => rowBinaryType(layout.get(c) ?? ''));
    if (types.some((t) => t === null)) return null;
    const bytes = rowBinaryBytes(types as RowBinaryType[], rows, allocate);
    return bytes && { dir, bytes, structure: columns.map((c) => `${c} ${layout.get(c)}`).join(', ') };
  }

  private layoutOf(table: string): Promise<Map<string, string>> {
    let layout = this.layouts.get(table);
    if (!layout) {
      layout = this.query<{ name: string; type: string }>(`DESCRIBE TABLE ${this.database}.${table}`).then(
        (cols) => new Map(cols.map((c) => [c.name, c.type])),
      );
      // A failed look is not kept: the next insert asks again.
      layout.catch(() => this.layouts.delete(table));
      this.layouts.set(table, layout);
    }
    return layout;
  }

  async settle(): Promise<void> {
    // chDB runs each call on a libuv thread; drainPending resolves when none is left running.
    await drainPending();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.writer.close();
    this.reader.close();
    await drainPending();
  }

  private async run(text: string, format: string, session: Session = this.writer): Promise<string> {
    if (this.closed) throw new EngineError('chDB engine is closed');
    try {
      return (await session.queryAsync(text, { format })).text();
    } catch (err) {
      throw new EngineError(`chDB: ${(err as Error).message}`, { cause: err });
    }
  }
}
