// Picks the analytics engine from config: a ClickHouse server when a URL is given, else chDB under the data dir.
import path from 'node:path';
import type { AnalyticsEngine } from './engine.ts';
import { openServerEngine } from './server-engine.ts';

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
  if (config.clickhouseUrl) return openServerEngine({ url: config.clickhouseUrl, ...(config.database ? { database: config.database } : {}) });
  // Loaded only when used: libchdb is large, and processes that talk to a server never need it.
  const { openChdbEngine } = await import('./chdb-engine.ts');
  return openChdbEngine({
    dataDir: path.join(config.dataDir, 'chdb'),
    ...(config.database ? { database: config.database } : {}),
    ...(config.maxThreads ? { maxThreads: config.maxThreads } : {}),
  });
}
