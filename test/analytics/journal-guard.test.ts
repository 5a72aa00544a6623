// The journal's seq never goes backwards for analytics (design §13): a ledger that hands out seqs ClickHouse already
// holds — Redis restored from an older backup, at start or under a running shipper — stops the shipper with an error
// that names both seqs and the way out; nothing is dropped or inserted twice, and shipping resumes once the ledger's
// journal is past the archive again (as `npm run ledger -- recover` leaves it).
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { createRedis } from '../../store/redis.ts';
import { JournalStream } from '../../store/analytics.ts';
import { JournalRewoundError, JournalShipper } from '../../analytics/shipper.ts';
import { migrate } from '../../analytics/migrations.ts';
import { bigIntOf, type AnalyticsEngine } from '../../analytics/engine.ts';
import { ENGINE_KINDS, engineEnv } from './engines.ts';
import { Journal, alias, playEntry, receiptIdFor } from './fixture.ts';

const silent = pino({ level: 'silent' });

const plays = (n: number, from: number) =>
  Array.from({ length: n }, (_, i) =>
    playEntry({
      receiptId: receiptIdFor('dice'),
      game: 'dice',
      player: alias(from + i),
      sourceField: null,
      wager: 1_000_000n,
      payout: 0n,
      won: false,
      atMs: Date.parse('2027-01-01T00:00:00Z') + (from + i) * 1000,
    }),
  );

describe.each(ENGINE_KINDS)('the journal guard on %s', (kind) => {
  const env = engineEnv(kind);
  let redis: Redis;
  const journals: Journal[] = [];

  beforeAll(() => {
    redis = createRedis('redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    for (const j of journals) await j.cleanup();
    await redis.quit();
  });

  const setup = async () => {
    const engine = await env.open();
    await migrate(engine);
    const journal = new Journal(redis);
    journals.push(journal);
    const shipper = () =>
      new JournalShipper({ stream: new JournalStream(redis, journal.streamKey, journal.seqKey), engine, logger: silent, retry: { minMs: 10, maxMs: 50 } });
    return { engine, journal, shipper };
  };
  const count = async (engine: AnalyticsEngine, table: 'journal_events' | 'plays') =>
    Number(bigIntOf((await engine.query<{ n: unknown }>(`SELECT count() AS n FROM ${table}`))[0]!.n));

  it('a ledger behind ClickHouse at start: the shipper stops instead of reusing seqs', async () => {
    const { engine, journal, shipper } = await setup();
    await journal.append(plays(5, 0));
    expect(await shipper().shipAvailable()).toBe(5);

    // Redis comes back at seq 2 and the ledger hands out 3 and 4 again, to other plays.
    await redis.set(journal.seqKey, '2');
    await journal.appendRewound(plays(2, 100));
    const fresh = shipper();
    const err = await fresh.shipAvailable().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JournalRewoundError);
    expect((err as Error).message).toMatch(/the ledger's journal is at seq 4, but ClickHouse already holds the journal up to seq 5 \(event \d+-\d+\)/);
    expect((err as Error).message).toContain('npm run ledger -- recover');
    expect(fresh.stopped).toBe((err as Error).message);
    expect(await count(engine, 'journal_events')).toBe(5);
    expect(await count(engine, 'plays')).toBe(5);
  });

  it('a ledger going back under a running shipper: it stops at the first reused seq, then resumes once the journal is past', async () => {
    const { engine, journal, shipper } = await setup();
    const s = shipper();
    await journal.append(plays(4, 0));
    expect(await s.shipAvailable()).toBe(4);

    await redis.set(journal.seqKey, '1');
    await journal.appendRewound(plays(3, 200));
    const err = await s.shipAvailable().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JournalRewoundError);
    expect((err as Error).message).toMatch(/journal entry \d+-\d+ has seq 2, but ClickHouse already holds the journal up to seq 4/);
    expect(s.stopped).not.toBeNull();
    expect(await count(engine, 'plays')).toBe(4);

    // Recovery leaves the journal past every archived seq; new plays then ship, and nothing reused ever does.
    await redis.xtrim(journal.streamKey, 'MAXLEN', 0);
    await redis.set(journal.seqKey, '4');
    await journal.append(plays(2, 300));
    expect(await s.shipAvailable()).toBe(2);
    expect(s.stopped).toBeNull();
    const seqs = await engine.query<{ seq: unknown }>('SELECT seq FROM journal_events ORDER BY seq');
    expect(seqs.map((r) => Number(bigIntOf(r.seq)))).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
