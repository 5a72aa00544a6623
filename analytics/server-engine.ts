/**
 * A ClickHouse server (over HTTP, `@clickhouse/client`) as the analytics engine, when `CLICKHOUSE_URL`
 * is set. Every process may query it; the SQL is the same as chDB's and stays inside what ClickHouse
 * 18.16 understands.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { COMMON_SETTINGS, EngineError, insertStatement, intOf, type AnalyticsEngine, type Row } from './engine.ts';
import { sql, type SqlValue } from './sql.ts';
import type { TableName } from './tables.ts';

export interface ServerEngineOptions {
  /** `http(s)://[user:password@]host:port[/database]` */
  url: string;
  /**
   * Database to work in, created when missing; overrides the URL's path.
   * @defaultValue the URL's path, else `'default'`
   */
  database?: string;
  /**
   * How long one request may take. Inserts of a large backlog take a while on a busy server; a request
   * that times out is settled (see {@link AnalyticsEngine.settle}) before anything is retried.
   * @defaultValue 60000
   */
  requestTimeoutMs?: number;
}

const DATABASE_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Connects to a ClickHouse server and makes sure the database exists.
 * @throws {EngineError} when the URL or database name is invalid, or the server cannot be reached
 */
export async function openServerEngine(options: ServerEngineOptions): Promise<AnalyticsEngine> {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch (err) {
    throw new EngineError('CLICKHOUSE_URL is not a URL', { cause: err });
  }
  const database = options.database ?? (decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, '')) || 'default');
  if (!DATABASE_RE.test(database)) throw new EngineError(`invalid database name ${JSON.stringify(database)}`);
  const base = {
    url: url.origin,
    username: decodeURIComponent(url.username) || 'default',
    password: decodeURIComponent(url.password),
    request_timeout: options.requestTimeoutMs ?? 60_000,
    clickhouse_settings: COMMON_SETTINGS,
    // Failures reach the caller as EngineErrors, which it logs once; the client would log each retry too.
    log: { level: ClickHouseLogLevel.OFF },
  };
  const admin = createClient(base);
  try {
    await admin.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
  } catch (err) {
    throw new EngineError(`ClickHouse at ${url.origin}: ${(err as Error).message}`, { cause: err });
  } finally {
    await admin.close();
  }
  return new ServerEngine(createClient({ ...base, database }), database);
}

class ServerEngine implements AnalyticsEngine {
  readonly kind = 'server' as const;
  /** Writes whose outcome we did not see: they may still be running on the server. */
  private readonly unsettled = new Set<string>();

  constructor(
    private readonly client: ClickHouseClient,
    readonly database: string,
  ) {}

  async query<T extends Row = Row>(text: string): Promise<T[]> {
    try {
      const result = await this.client.query({ query: text, format: 'JSONEachRow' });
      return await result.json<T>();
    } catch (err) {
      throw wrap(err);
    }
  }

  async exec(text: string): Promise<void> {
    const queryId = `pfws-${randomUUID()}`;
    try {
      await this.client.command({ query: text, query_id: queryId });
    } catch (err) {
      this.unsettled.add(queryId);
      throw wrap(err);
    }
  }

  async insert(table: TableName, columns: readonly string[], rows: readonly (readonly SqlValue[])[]): Promise<void> {
    if (rows.length === 0) return;
    await this.exec(insertStatement(table, columns, rows));
  }

  async settle(): Promise<void> {
    if (this.unsettled.size === 0) return;
    const ids = [...this.unsettled];
    // A failed request may still be running server-side (a timeout, a dropped connection): wait until
    // the server no longer lists it. This throws while the server is unreachable, which the caller retries.
    for (;;) {
      const [row] = await this.query(sql`SELECT count() AS n FROM system.processes WHERE has(${ids}, query_id)`);
      if (intOf(row?.n ?? 0) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const id of ids) this.unsettled.delete(id);
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

function wrap(err: unknown): EngineError {
  return new EngineError(`ClickHouse: ${(err as Error).message}`, { cause: err });
}
