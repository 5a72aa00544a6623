// Exactly once under failure: lost acknowledgements, a shipper killed after its INSERT, a crash inside the views, and ClickHouse outages.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError, type AnalyticsEngine, type Row } from '../../analytics/engine.ts';
import { JOURNAL_COLUMNS, journalRowOf, journalValues, type JournalRow } from '../../analytics/journal-rows.ts';
import { migrate } from '../../analytics/migrations.ts';
import { activity } from '../../analytics/queries.ts';
import type { SqlValue } from '../../analytics/sql.ts';
import type { TableName } from '../../analytics/tables.ts';
import { VIEWS } from '../../analytics/tables.ts';
import { JournalShipper } from '../../analytics/shipper.ts';
import { JournalStream } from '../../store/analytics.ts';
import { createRedis } from '../../store/redis.ts';
import { ENGINE_KINDS, engineEnv } from './engines.ts';
import { Journal, count, expectConsistent, modelActivity, playEntry, recentPlays, type FixturePlay, type JournalEntry } from './fixture.ts';

const NOW = new Date('2027-03-10T15:20:00.000Z');
const BANKROLL = { totalValue: 1 };

/** An engine that can be made to fail: down entirely, or losing the acknowledgement of inserts that landed. */
class FlakyEngine implements AnalyticsEngine {
  down = false;
  /** The next N inserts land, then report a failure (a dropped connection after the server committed). */
  loseAcks = 0;
  inserts = 0;
  constructor(readonly inner: AnalyticsEngine) {}
  get kind() {
    return this.inner.kind;
  }
  get database() {
    return this.inner.database;
  }
  private check() {
    if (this.down) throw new EngineError('ClickHouse is down (injected)');
  }
  async query<T extends Row = Row>(text: string): Promise<T[]> {
    this.check();
    return this.inner.query<T>(text);
  }
  async exec(text: string): Promise<void> {
    this.check();
    return this.inner.exec(text);
  }
  async insert(table: TableName, columns: readonly string[], rows: readonly (readonly SqlValue[])[]): Promise<void> {
    this.check();
    await this.inner.insert(table, columns, rows);
    this.inserts++;
    if (this.loseAcks > 0) {
      this.loseAcks--;
      throw new EngineError('connection reset after the insert (injected)');
    }
  }
  async settle(): Promise<void> {
    this.check();
    return this.inner.settle();
  }
  async close(): Promise<void> {
    return this.inner.close();
  }
}

/** A logger that counts errors, so a test can wait for the shipper to have seen the outage. */
function countingLogger() {
  const seen = { errors: 0, warnings: 0 };
  const logger = { info() {}, warn: () => void seen.warnings++, error: () => void seen.errors++ } as unknown as Pick<Logger, 'info' | 'warn' | 'error'>;
  return { seen, logger };
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(ENGINE_KINDS)('shipping faults on %s', (kind) => {
  const env = engineEnv(kind);
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

  /** A migrated database, a journal, and `n` plays ready to append. */
  async function setup(n: number, seed: number) {
    const inner = await env.open();
    await migrate(inner);
    const engine = new FlakyEngine(inner);
    const journal = new Journal(redis);
    journals.push(journal);
    const plays: FixturePlay[] = [];
    const pending = recentPlays(n, seed, NOW);
    /** Appends the next `k` plays, each followed by a non-play event. */
    const appendNext = async (k: number) => {
      const batch = pending.splice(0, k);
      const entries: JournalEntry[] = batch.flatMap((p) => [
        playEntry(p),
        { type: 'deposit_credited', at: new Date(p.atMs).toISOString(), data: { player: p.player, amount: '1' } },
      ]);
      const seqs = await journal.append(entries);
      for (const [i, p] of batch.entries()) plays.push({ ...p, seq: seqs[2 * i] as number });
      return seqs[seqs.length - 1] as number;
    };
    const shipper = (logger = countingLogger().logger, batchSize = 40) => {
      const s = new JournalShipper({
        stream: new JournalStream(redis, journal.streamKey),
        engine,
        logger,
        batchSize,
        blockMs: 100,
        retry: { minMs: 20, maxMs: 200 },
        now: () => NOW,
      });
      shippers.push(s);
      return s;
    };
    return { inner, engine, journal, plays, appendNext, shipper };
  }

  it('an insert that landed but reported failure is not sent again', async () => {
    const { engine, plays, appendNext, shipper } = await setup(120, 1);
    const last = await appendNext(120);
    engine.loseAcks = 2;
    const s = shipper();
    s.start();
    await s.waitFor(last);
    expect(engine.loseAcks).toBe(0);
    await expectConsistent(engine, 240, plays, NOW);
  });

  it('a shipper killed between its INSERT and anything after it doubles nothing on restart', async () => {
    const { engine, plays, appendNext, shipper } = await setup(100, 2);
    const last = await appendNext(100);
    const first = shipper();
    // The first batch lands, then the process "dies": the call fails and this shipper is never used again.
    engine.loseAcks = 1;
    await expect(first.shipAvailable()).rejects.toThrow(EngineError);
    expect(await count(engine, 'SELECT count() AS n FROM journal_events')).toBe(40);
    const second = shipper();
    expect(await second.shipAvailable()).toBe(200 - 40);
    expect(second.checkpoint?.seq).toBe(last);
    expect(await second.shipAvailable()).toBe(0);
    await expectConsistent(engine, 200, plays, NOW);
  });

  it('an INSERT cut short inside its views is repaired before shipping resumes', async () => {
    const { inner, engine, journal, plays, appendNext, shipper } = await setup(150, 3);
    const last = await appendNext(150);
    // A process killed inside the INSERT: journal_events got the block, some views did not.
    const cut = (await redis.xrange(journal.streamKey, '-', '+', 'COUNT', 100)).map(([id, f]) => journalRowOf(id, f) as JournalRow);
    await inner.insert('journal_events', JOURNAL_COLUMNS, cut.slice(0, 50).map(journalValues));
    for (const view of VIEWS.filter((v) => v !== 'slice_totals_from_journal')) await inner.exec(`DETACH TABLE ${view}`);
    await inner.insert('journal_events', JOURNAL_COLUMNS, cut.slice(50).map(journalValues));
    for (const view of VIEWS.filter((v) => v !== 'slice_totals_from_journal')) await inner.exec(`ATTACH TABLE ${view}`);
    expect(await count(inner, 'SELECT count() AS n FROM plays')).toBe(25);

    const s = shipper();
    s.start();
    await s.waitFor(last);
    await expectConsistent(engine, 300, plays, NOW);
    const got = await activity(engine, { limit: 100, now: NOW, bankroll: BANKROLL });
    const want = modelActivity(plays, 'all', 100, NOW);
    expect(got.topWagers).toEqual(want.topWagers);
    expect(got.topActors).toEqual(want.topActors);
    expect(got.latestPlays).toEqual(want.latestPlays);
  });

  it('while ClickHouse is down events wait in the stream, nothing is trimmed, and they arrive exactly once', async () => {
    const { engine, journal, plays, appendNext, shipper } = await setup(200, 4);
    const { seen, logger } = countingLogger();
    const s = shipper(logger);
    s.start();
    await s.waitFor(await appendNext(50));
    // Trimming keeps whatever a caller still needs (here: from seq 41 on), and never what is unshipped.
    const id41 = (await redis.xrange(journal.streamKey, '-', '+', 'COUNT', 41))[40]?.[0] as string;
    expect(await s.trim(id41)).toBe(40);
    engine.down = true;
    let last = await appendNext(50);
    await until(() => seen.errors > 0, 'the shipper to notice the outage');
    last = await appendNext(50);
    const before = await journal.length();
    await expect(s.trim()).rejects.toThrow(EngineError);
    expect(await journal.length()).toBe(before);
    engine.down = false;
    await s.waitFor(last);
    expect(await s.trim()).toBe(300 - 40 - 1);
    expect(await journal.length()).toBe(1);
    last = await appendNext(50);
    await s.waitFor(last);
    await expectConsistent(engine, 400, plays, NOW);
  });

  // A real outage needs a real server; chDB runs in this process and has no outage of its own.
  if (kind === 'server')
    it('survives clickhouse-server being killed mid-stream and restarted', async () => {
      const { engine, plays, appendNext, shipper } = await setup(300, 5);
      const { seen, logger } = countingLogger();
      const s = shipper(logger, 25);
      s.start();
      await s.waitFor(await appendNext(60));
      const appending = (async () => {
        for (let i = 0; i < 8; i++) await appendNext(20);
      })();
      await env.server().stop();
      await appending;
      const last = await appendNext(20);
      await until(() => seen.errors > 0, 'the shipper to notice the outage');
      expect(s.checkpoint?.seq ?? 0).toBeLessThan(last);
      await env.server().start();
      await s.waitFor(last);
      await expectConsistent(engine, 2 * plays.length, plays, NOW);
      expect(plays).toHaveLength(240);
    });
});
