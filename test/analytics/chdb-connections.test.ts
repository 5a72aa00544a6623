// chDB runs one statement at a time per connection: the engine reads on a connection of its own, so an analyst's
// query answers while an insert (and the views it feeds) is still running, and then sees what the insert wrote.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openChdbEngine } from '../../analytics/chdb-engine.ts';

describe('chDB engine connections', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-chdb-conn-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers a query while a write is running, and reads the write once it is done', { timeout: 60_000 }, async () => {
    const engine = await openChdbEngine({ dataDir: dir, database: 'conn' });
    try {
      await engine.exec('CREATE TABLE IF NOT EXISTS slow (n UInt64) ENGINE = MergeTree ORDER BY n');
      const order: string[] = [];
      // About 2 s inside ClickHouse: each row sleeps before it is written.
      const write = engine.exec('INSERT INTO slow SELECT number FROM numbers(8) WHERE sleepEachRow(0.25) = 0').then(() => order.push('write'));
      await new Promise((r) => setTimeout(r, 200));
      const during = await engine.query<{ c: string }>('SELECT count() AS c FROM slow');
      order.push('read');
      await write;
      expect(order).toEqual(['read', 'write']);
      expect(Number(during[0]!.c)).toBe(0);
      const after = await engine.query<{ c: string }>('SELECT count() AS c FROM slow');
      expect(Number(after[0]!.c)).toBe(8);
    } finally {
      await engine.close();
    }
  });
});
