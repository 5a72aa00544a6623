// Picks the analytics engine from config: a ClickHouse server when a URL is given, else chDB under the data dir.
import path from 'node:path';
import type { AnalyticsEngine } from './engine.ts';

export interface EngineConfig {
  /** `CLICKHOUSE_URL`; unset runs chDB in this process. */
  clickhouseUrl?: string | undefined;
  /** `DATA_DIR`; chDB keeps its files in `<dataDir>/chdb`. */
  dataDir: string;
  /** @defaultValue `'default'` (or the URL's path for a server) */
  database?: string;
  /** chDB only. @defaultValue 1 */
  maxThreads?: number;
}

export async function openAnalyticsEngine(config: EngineConfig): Promise<AnalyticsEngine> {
  // Each engine loads only when used: libchdb is large, and processes that talk to a server never need it; API
  // processes beside a chDB owner open neither.
  if (config.clickhouseUrl) {
    const { openServerEngine } = await import('./server-engine.ts');
    return openServerEngine({ url: config.clickhouseUrl, ...(config.database ? { database: config.database } : {}) });
  }
  const { openChdbEngine } = await import('./chdb-engine.ts');
  return openChdbEngine({
    dataDir: path.join(config.dataDir, 'chdb'),
    ...(config.database ? { database: config.database } : {}),
    ...(config.maxThreads ? { maxThreads: config.maxThreads } : {}),
  });
}
