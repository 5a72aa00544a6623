// openAnalyticsEngine: chDB under DATA_DIR without a URL, the server (and the URL's database) with one.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHDB_SERVER_SETTINGS } from '../../analytics/chdb-engine.ts';
import { EngineError } from '../../analytics/engine.ts';
import { openAnalyticsEngine } from '../../analytics/open-engine.ts';
import { runServerSuite, startClickHouse, type ClickHouseServer } from '../helpers/clickhouse.ts';

describe('openAnalyticsEngine', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-open-engine-'));
  let server: ClickHouseServer | null = null;
  afterAll(async () => {
    await server?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens chDB under <DATA_DIR>/chdb when no CLICKHOUSE_URL is set, and keeps data across reopening', async () => {
    const engine = await openAnalyticsEngine({ dataDir: dir });
    expect(engine.kind).toBe('chdb');
    await engine.exec('CREATE TABLE IF NOT EXISTS kept (x UInt8) ENGINE = MergeTree() ORDER BY x');
    await engine.exec('INSERT INTO kept VALUES (7)');
    await engine.close();
    expect(existsSync(path.join(dir, 'chdb'))).toBe(true);
    const again = await openAnalyticsEngine({ dataDir: dir });
    expect(await again.query('SELECT x FROM kept')).toEqual([{ x: 7 }]);
    await again.close();
  });

  it('runs chDB with its merge pool, caches and memory bounded, inserts not queued for an async flush, answers formatted inline', async () => {
    const engine = await openAnalyticsEngine({ dataDir: dir });
    const server = await engine.query<{ name: string; value: string }>(
      `SELECT name, value FROM system.server_settings WHERE name IN (${Object.keys(CHDB_SERVER_SETTINGS).map((n) => `'${n}'`)})`,
    );
    expect(Object.fromEntries(server.map((r) => [r.name, Number(r.value)]))).toEqual(CHDB_SERVER_SETTINGS);
    expect(CHDB_SERVER_SETTINGS.max_server_memory_usage).toBeLessThanOrEqual(1024 ** 3);
    expect(CHDB_SERVER_SETTINGS.mark_cache_size).toBeLessThanOrEqual(64 * 1024 ** 2);
    const session = await engine.query<{ name: string; value: string }>(
      "SELECT name, value FROM system.settings WHERE name IN ('max_threads', 'async_insert', 'output_format_parallel_formatting')",
    );
    expect(Object.fromEntries(session.map((r) => [r.name, r.value]))).toEqual({
      max_threads: '1',
      async_insert: '0',
      output_format_parallel_formatting: '0',
    });
    await engine.close();
  });

  if (runServerSuite()) {
    it('talks to the server when CLICKHOUSE_URL is set, in the database its path names', async () => {
      server = await startClickHouse();
      const engine = await openAnalyticsEngine({ clickhouseUrl: `${server.url}/analytics_db`, dataDir: dir });
      expect([engine.kind, engine.database]).toEqual(['server', 'analytics_db']);
      expect(await engine.query('SELECT currentDatabase() AS db')).toEqual([{ db: 'analytics_db' }]);
      await engine.close();
      await expect(openAnalyticsEngine({ clickhouseUrl: `${server.url}/bad-name`, dataDir: dir })).rejects.toBeInstanceOf(EngineError);
      await expect(openAnalyticsEngine({ clickhouseUrl: 'not a url', dataDir: dir })).rejects.toBeInstanceOf(EngineError);
    });
  }
});
