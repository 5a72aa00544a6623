// Large, infrequent inserts (design §13): under a steady trickle the shipper gathers events for `flushMs` between
// INSERTs instead of inserting whatever each read returned; a backlog goes out in full batches without waiting; and
// every INSERT reports the new checkpoint (what the worker beats the shipper heartbeat with).
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsEngine, Row } from '../../analytics/engine.ts';
import { migrate } from '../../analytics/migrations.ts';
import { JournalShipper, type Checkpoint } from '../../analytics/shipper.ts';
import type { SqlValue } from '../../analytics/sql.ts';
import type { TableName } from '../../analytics/tables.ts';
import { JournalStream } from '../../store/analytics.ts';
import { createRedis } from '../../store/redis.ts';
import { engineEnv } from './engines.ts';
import { Journal, count } from './fixture.ts';

/** Records when each INSERT into journal_events started and how many rows it held. */
class RecordingEngine implements AnalyticsEngine {
  readonly inserts: { at: number; rows: number }[] = [];
  constructor(readonly inner: AnalyticsEngine) {}
  get kind() {
    return this.inner.kind;
  }
  get database() {
    return this.inner.database;
  }
  query<T extends Row = Row>(text: string): Promise<T[]> {
    return this.inner.query<T>(text);
  }
  exec(text: string): Promise<void> {
    return this.inner.exec(text);
  }
  insert(table: TableName, columns: readonly string[], rows: readonly (readonly SqlValue[])[]): Promise<void> {
    if (table === 'journal_events') this.inserts.push({ at: performance.now(), rows: rows.length });
    return this.inner.insert(table, columns, rows);
  }
  settle(): Promise<void> {
    return this.inner.settle();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const silent = { info() {}, warn() {}, error() {} };
const event = (i: number) => ({
  type: 'deposit_credited',
  at: new Date(Date.UTC(2027, 0, 1, 0, 0, i)).toISOString(),
  data: { player: 'p_x', amount: String(i) },
});

describe('shipper batching (chdb)', () => {
  const env = engineEnv('chdb');
  let redis: Redis;
  const journals: Journal[] = [];
  const shippers: JournalShipper[] = [];
  beforeAll(() => {
    redis = createRedis('redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    for (const s of shippers) await s.stop();
    for (const j of journals) await j.cleanup();
    await redis.quit();
  });

  async function setup(options: { flushMs?: number; batchSize: number }) {
    const inner = await env.open();
    await migrate(inner);
    const engine = new RecordingEngine(inner);
    const journal = new Journal(redis);
    journals.push(journal);
    const shipped: Checkpoint[] = [];
    const shipper = new JournalShipper({
      stream: new JournalStream(redis, journal.streamKey),
      engine,
      logger: silent,
      blockMs: 100,
      retry: { minMs: 20, maxMs: 200 },
      onShipped: (cp) => shipped.push(cp),
      ...options,
    });
    shippers.push(shipper);
    return { inner, engine, journal, shipper, shipped };
  }

  /** Appends events 1..n one at a time, `gapMs` apart. @returns the last one's seq */
  async function trickle(journal: Journal, n: number, gapMs: number): Promise<number> {
    let last = 0;
    for (let i = 1; i <= n; i++) {
      [last] = (await journal.append([event(i)])) as [number];
      await new Promise((r) => setTimeout(r, gapMs));
    }
    return last;
  }

  it('under a trickle, lets events gather for flushMs between INSERTs', async () => {
    const flushMs = 500;
    const { inner, engine, journal, shipper, shipped } = await setup({ flushMs, batchSize: 10_000 });
    shipper.start();
    const last = await trickle(journal, 60, 20);
    await shipper.waitFor(last);
    expect(await count(inner, 'SELECT count() AS n FROM journal_events')).toBe(60);
    const { inserts } = engine;
    expect(inserts.reduce((n, x) => n + x.rows, 0)).toBe(60);
    // Each INSERT after the first waited for its events to gather (a timer may fire a few ms early).
    for (let i = 1; i < inserts.length; i++) expect(inserts[i]!.at - inserts[i - 1]!.at).toBeGreaterThanOrEqual(flushMs - 50);
    expect(shipped.map((c) => c.seq)).toEqual(inserts.map((_, i) => inserts.slice(0, i + 1).reduce((n, x) => n + x.rows, 0)));
    expect(shipped.at(-1)).toEqual(shipper.checkpoint);
  });

  it('by default, gathers a trickle for a second: one INSERT a second, each a part in every table the views feed', async () => {
    const { engine, journal, shipper } = await setup({ batchSize: 10_000 });
    shipper.start();
    const last = await trickle(journal, 100, 25);
    await shipper.waitFor(last);
    const { inserts } = engine;
    expect(inserts.length).toBeGreaterThan(1);
    for (let i = 1; i < inserts.length; i++) expect(inserts[i]!.at - inserts[i - 1]!.at).toBeGreaterThanOrEqual(950);
  });

  it('sends a backlog in full batches back to back, whatever flushMs is', async () => {
    const { engine, journal, shipper } = await setup({ flushMs: 3_600_000, batchSize: 100 });
    const seqs = await journal.append(Array.from({ length: 250 }, (_, i) => event(i)));
    shipper.start();
    await shipper.waitFor(seqs.at(-1) as number);
    expect(engine.inserts.map((x) => x.rows)).toEqual([100, 100, 50]);
  });
});
