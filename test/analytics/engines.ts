// Opens analytics engines for a suite: chDB in a temp dir, or a private clickhouse-server (see helpers/clickhouse.ts).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openChdbEngine } from '../../analytics/chdb-engine.ts';
import type { AnalyticsEngine } from '../../analytics/engine.ts';
import { openServerEngine } from '../../analytics/server-engine.ts';
import { runServerSuite, startClickHouse, type ClickHouseServer } from '../helpers/clickhouse.ts';

export type EngineKind = 'chdb' | 'server';

/** The kinds to run: chDB always; the server unless its binary is absent and CI did not require it. */
export const ENGINE_KINDS: EngineKind[] = runServerSuite() ? ['chdb', 'server'] : ['chdb'];

export interface EngineEnv {
  /** An engine on a database of its own (a fresh random one unless named). */
  open(database?: string): Promise<AnalyticsEngine>;
  /** The private server (server kind only). */
  server(): ClickHouseServer;
}

/** Registers beforeAll/afterAll for one engine kind inside the calling describe. */
export function engineEnv(kind: EngineKind): EngineEnv {
  let dir = '';
  let server: ClickHouseServer | null = null;
  const opened: AnalyticsEngine[] = [];
  beforeAll(async () => {
    if (kind === 'server') server = await startClickHouse();
    else dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-chdb-'));
  }, 60_000);
  afterAll(async () => {
    for (const e of opened) await e.close().catch(() => {});
    await server?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    async open(database = `t_${randomBytes(5).toString('hex')}`) {
      const engine =
        kind === 'server'
          ? await openServerEngine({ url: (server as ClickHouseServer).url, database, requestTimeoutMs: 10_000 })
          : await openChdbEngine({ dataDir: dir, database });
      opened.push(engine);
      return engine;
    },
    server() {
      if (!server) throw new Error('no clickhouse-server in this suite');
      return server;
    },
  };
}
