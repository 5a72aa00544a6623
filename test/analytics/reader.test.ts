// The reader the API serves from: parameters checked before any query, one computation per query per cache period,
// an engine failure as SERVICE_UNAVAILABLE (and not kept); the same answers across cluster IPC, with timeouts; the
// engine opened lazily with a pause between failed attempts; and one shipper among several worker processes.
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IpcReader, serveAnalytics } from '../../analytics/cluster-ipc.ts';
import { clusterPair } from '../helpers/cluster-ipc.ts';
import { archiveAnchors, archiveReceipts } from '../../analytics/archive.ts';
import { EngineError, type AnalyticsEngine, type Row } from '../../analytics/engine.ts';
import { EngineHolder } from '../../analytics/engine-holder.ts';
import { migrate } from '../../analytics/migrations.ts';
import { EngineReader, engineArchive } from '../../analytics/reader.ts';
import { startAnalyticsWorker, type AnalyticsWorker } from '../../anchor-worker/analytics.ts';
import type { Bankroll } from '../../protocol/analytics.ts';
import { PfwsError } from '../../protocol/errors.ts';
import { JournalStream, ShipperStore } from '../../store/analytics.ts';
import { HeartbeatStore } from '../../store/heartbeats.ts';
import { Keys } from '../../store/keys.ts';
import { createRedis } from '../../store/redis.ts';
import { defineScripts } from '../../store/scripts.ts';
import { engineEnv } from './engines.ts';
import { alias, Journal, playEntry, recentPlays } from './fixture.ts';
import { JOURNAL_COLUMNS, journalRowOf, journalValues } from '../../analytics/journal-rows.ts';

const NOW = new Date('2027-03-10T15:20:00.000Z');
const BANKROLL = { totalValue: 42 };

/** Counts the queries that reach the engine, and fails them on demand. */
function counting(inner: AnalyticsEngine) {
  const state = { queries: 0, down: false };
  const engine: AnalyticsEngine = {
    kind: inner.kind,
    database: inner.database,
    query: async <T extends Row = Row>(text: string) => {
      state.queries++;
      if (state.down) throw new EngineError('down (injected)');
      return inner.query<T>(text);
    },
    exec: (text) => inner.exec(text),
    insert: (t, c, r) => inner.insert(t, c, r),
    settle: () => inner.settle(),
    close: () => inner.close(),
  };
  return { engine, state };
}

const codeOf = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PfwsError);
  return (err as PfwsError).code;
};

describe('the reader', () => {
  const env = engineEnv('chdb');
  let engine: AnalyticsEngine;
  let state: { queries: number; down: boolean };

  beforeAll(async () => {
    const inner = await env.open();
    await migrate(inner);
    ({ engine, state } = counting(inner));
  });

  it('checks parameters before any query, and computes one answer per query per cache period', async () => {
    const reader = new EngineReader({ engine: async () => engine, clock: () => NOW, bankroll: async () => BANKROLL, cacheMs: 60_000 });
    state.queries = 0;
    for (const bad of [
      reader.rankings({ metric: 'luck' }),
      reader.stats({ period: 'week' }),
      reader.activity({ limit: 'x' }),
      reader.activity({ game: ['dice'] }),
    ])
      expect(await codeOf(bad)).toBe('INVALID_REQUEST');
    expect(state.queries).toBe(0);

    const first = await reader.rankings({ metric: 'wagered' });
    const n = state.queries;
    expect(n).toBeGreaterThan(0);
    // The same query, spelled with its defaults or not, is one cache entry; concurrent callers share it.
    await Promise.all([reader.rankings({ metric: 'wagered', game: 'all' }), reader.rankings({ metric: 'wagered', source: 'all' })]);
    expect(state.queries).toBe(n);
    expect(await reader.rankings({ metric: 'wagered' })).toBe(first);
    await reader.rankings({ metric: 'plays' });
    expect(state.queries).toBeGreaterThan(n);
    const stats = await reader.stats({ period: 'year' });
    expect(stats.bankroll).toEqual(BANKROLL);
    expect(stats.buckets).toHaveLength(12);
  });

  it('with the cache off, shares a query in flight among identical requests, and keeps nothing once it answered', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The engine is slow to open: every request below arrives while the first one's query is in flight.
    const reader = new EngineReader({
      engine: async () => {
        await gate;
        return engine;
      },
      clock: () => NOW,
      bankroll: async () => BANKROLL,
      cacheMs: 0,
    });
    state.queries = 0;
    await new EngineReader({ engine: async () => engine, clock: () => NOW, bankroll: async () => BANKROLL, cacheMs: 0 }).shippedActivity({});
    const perAnswer = state.queries;
    state.queries = 0;
    const burst = Array.from({ length: 50 }, () => reader.shippedActivity({ game: 'sweeper' }));
    const other = reader.shippedActivity({ game: 'dice' });
    release();
    const answers = await Promise.all(burst);
    await other;
    // The burst cost one computation; the other game's snapshot is its own.
    expect(new Set(answers).size).toBe(1);
    expect(state.queries).toBe(2 * perAnswer);
    // Once answered, nothing is served from it: the next request queries again.
    expect(await reader.shippedActivity({ game: 'sweeper' })).not.toBe(answers[0]);
    expect(state.queries).toBe(3 * perAnswer);
  });

  it('stops sharing a query that has not answered within shareInFlightMs: the requests after it query afresh', async () => {
    let opened = 0;
    const reader = new EngineReader({
      // The first open never answers (a stuck engine); the ones after it do.
      engine: () => (opened++ === 0 ? new Promise<AnalyticsEngine>(() => {}) : Promise.resolve(engine)),
      clock: () => NOW,
      bankroll: async () => BANKROLL,
      cacheMs: 0,
      shareInFlightMs: 50,
    });
    const stuck = reader.stats({ period: 'day' });
    // Within the bound, a request shares the stuck query.
    const shared = reader.stats({ period: 'day' });
    expect(opened).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 80));
    const fresh = await reader.stats({ period: 'day' });
    expect(opened).toBe(2);
    expect(fresh.buckets).toHaveLength(24);
    for (const p of [stuck, shared]) expect(await Promise.race([p.then(() => 'answered'), Promise.resolve('waiting')])).toBe('waiting');
  });

  it("gives the stream's snapshot with the seq of the newest play it holds, read before the activity", async () => {
    const reader = new EngineReader({ engine: async () => engine, clock: () => NOW, bankroll: async () => BANKROLL, cacheMs: 0 });
    const before = await reader.shippedActivity({ game: 'dice' });
    const base = before.shippedSeq;
    const rows = [1, 2, 3].map((i) => {
      const e = playEntry({
        receiptId: `dice_shipped${i}`,
        game: 'dice',
        player: alias(i),
        sourceField: null,
        wager: 1_000_000n,
        payout: 0n,
        won: false,
        atMs: NOW.getTime() - 60_000 + i,
      });
      // The newest event settles nothing: the snapshot's seq is the newest play's.
      const type = i === 3 ? 'bet_committed' : e.type;
      return journalRowOf(`${base + i}-0`, ['seq', String(base + i), 'type', type, 'at', e.at, 'data', JSON.stringify(e.data)])!;
    });
    await engine.insert('journal_events', JOURNAL_COLUMNS, rows.map(journalValues));
    const after = await reader.shippedActivity({ game: 'dice' });
    expect(after.shippedSeq).toBe(base + 2);
    expect(after.activity.latestPlays.slice(0, 2).map((p) => p.receiptId)).toEqual(['dice_shipped2', 'dice_shipped1']);
  });

  it('reads the house value from the chain while the queries run, not before them', async () => {
    const answers = {
      stats: (r: EngineReader) => r.stats({ period: 'day' }),
      activity: (r: EngineReader) => r.activity({}),
      snapshot: async (r: EngineReader) => (await r.shippedActivity({})).activity,
    };
    for (const [name, ask] of Object.entries(answers)) {
      let release: (b: Bankroll) => void = () => {};
      const chainRead = new Promise<Bankroll>((resolve) => {
        release = resolve;
      });
      const before = state.queries;
      const answer = ask(new EngineReader({ engine: async () => engine, clock: () => NOW, bankroll: () => chainRead, cacheMs: 0 }));
      await vi.waitFor(() => expect(state.queries, name).toBeGreaterThan(before));
      release(BANKROLL);
      expect((await answer).bankroll, name).toEqual(BANKROLL);
    }
  });

  it('answers SERVICE_UNAVAILABLE when the house value cannot be read, also when a query failed first', async () => {
    const failing = () => Promise.reject(new PfwsError('SERVICE_UNAVAILABLE', 'the chain cannot be read (injected)'));
    const reader = new EngineReader({ engine: async () => engine, clock: () => NOW, bankroll: failing, cacheMs: 0 });
    expect(await codeOf(reader.stats({}))).toBe('SERVICE_UNAVAILABLE');
    state.down = true;
    try {
      // The query fails before the chain read is awaited: that read's rejection must not go unhandled.
      expect(await codeOf(reader.activity({}))).toBe('SERVICE_UNAVAILABLE');
      expect(await codeOf(reader.stats({}))).toBe('SERVICE_UNAVAILABLE');
    } finally {
      state.down = false;
    }
  });

  it('answers SERVICE_UNAVAILABLE while the engine fails, and does not keep the failure', async () => {
    const reader = new EngineReader({ engine: async () => engine, clock: () => NOW, bankroll: async () => BANKROLL, cacheMs: 60_000 });
    state.down = true;
    expect(await codeOf(reader.stats({}))).toBe('SERVICE_UNAVAILABLE');
    expect(await codeOf(reader.ping())).toBe('SERVICE_UNAVAILABLE');
    state.down = false;
    expect((await reader.stats({})).buckets).toHaveLength(24);
    await reader.ping();
  });

  it('gives cluster API processes the same answers over IPC, errors with their codes, and SERVICE_UNAVAILABLE when the owner is silent', async () => {
    const owner = new EngineReader({ engine: async () => engine, clock: () => NOW, bankroll: async () => BANKROLL });
    const { hub, channel } = clusterPair();
    const stop = serveAnalytics(hub, owner);
    const reader = new IpcReader(channel, 2_000);
    expect(await reader.rankings({ metric: 'wagered' })).toEqual(await owner.rankings({ metric: 'wagered' }));
    expect(await reader.activity({ limit: '1000' })).toEqual(await owner.activity({ limit: 100 }));
    expect(await reader.shippedActivity({ game: 'dice' })).toEqual(await owner.shippedActivity({ game: 'dice' }));
    expect(await reader.stats({ game: 'dice', period: 'month' })).toEqual(await owner.stats({ game: 'dice', period: 'month' }));
    await reader.ping();
    const sent: unknown[] = [];
    hub.on('message', (_p, m) => sent.push(m));
    expect(await codeOf(reader.rankings({ source: "api' --" }))).toBe('INVALID_REQUEST');
    expect(sent).toEqual([]);
    state.down = true;
    expect(await codeOf(new EngineReader({ engine: async () => engine, clock: () => NOW, bankroll: async () => BANKROLL }).stats({}))).toBe(
      'SERVICE_UNAVAILABLE',
    );
    const ownerDown = new EngineReader({ engine: async () => engine, clock: () => NOW, bankroll: async () => BANKROLL });
    stop();
    const stop2 = serveAnalytics(hub, ownerDown);
    expect(await codeOf(reader.stats({ period: 'day' }))).toBe('SERVICE_UNAVAILABLE');
    state.down = false;
    stop2();
    // Archived receipts, as the texts the archive holds; ids are checked before they cross.
    const body = '{"id":"dice_ipc","receiptId":"dice_ipc","note":"kept \\"as is\\""}';
    await archiveReceipts(engine, [
      { receiptId: 'dice_ipc', game: 'dice', player: 'p_1', status: 'won', anchorStatus: 'pending_commit', createdAt: NOW.toISOString(), body },
    ]);
    await archiveAnchors(engine, [{ receiptId: 'dice_ipc', anchorStatus: 'committed', anchor: '{"status":"committed"}' }]);
    const stop3 = serveAnalytics(hub, owner);
    expect(await reader.archivedReceipts({ receiptIds: ['dice_ipc', 'dice_unknown'] })).toEqual([
      { receiptId: 'dice_ipc', body, anchor: '{"status":"committed"}' },
    ]);
    for (const receiptIds of [[], 'dice_ipc', [7], ['x'.repeat(201)], Array.from({ length: 513 }, (_, i) => `r${i}`)]) {
      expect(await codeOf(reader.archivedReceipts({ receiptIds }))).toBe('INVALID_REQUEST');
    }
    expect(sent.filter((m) => (m as { method?: string }).method === 'archivedReceipts')).toHaveLength(1);
    // Archived journal events by seq range, checked before they cross too.
    const row = journalRowOf('5-0', ['seq', '900001', 'type', 'bet_committed', 'at', NOW.toISOString(), 'data', '{"x":1}'])!;
    await engine.insert('journal_events', JOURNAL_COLUMNS, [journalValues(row)]);
    expect(await reader.archivedEvents({ afterSeq: 900_000, toSeq: 900_001 })).toEqual([
      { seq: 900_001, id: '5-0', type: 'bet_committed', at: NOW.toISOString(), data: '{"x":1}' },
    ]);
    for (const range of [
      { afterSeq: 1, toSeq: 1 },
      { afterSeq: -1, toSeq: 3 },
      { afterSeq: 0, toSeq: 1001 },
      { afterSeq: '0', toSeq: 2 },
    ]) {
      expect(await codeOf(reader.archivedEvents(range))).toBe('INVALID_REQUEST');
    }
    expect(sent.filter((m) => (m as { method?: string }).method === 'archivedEvents')).toHaveLength(1);
    stop3();
    // The owner's archive budget is shared per client: each read crosses with the client that asked, and a refusal
    // with the Retry-After of that client's next read.
    const tick = 0;
    const budgeted = new EngineReader({
      engine: async () => engine,
      clock: () => NOW,
      bankroll: async () => BANKROLL,
      archive: engineArchive(
        async () => engine,
        1,
        () => tick,
      ),
    });
    const stop4 = serveAnalytics(hub, budgeted);
    const asClient = (client: string) => reader.archivedReceipts({ receiptIds: ['dice_ipc'], client });
    expect(await asClient('a')).toHaveLength(1);
    const refused = await asClient('a').catch((e: unknown) => e as PfwsError);
    expect(refused).toBeInstanceOf(PfwsError);
    expect([(refused as PfwsError).code, (refused as PfwsError).extras.headers]).toEqual(['SERVICE_UNAVAILABLE', { 'retry-after': '1' }]);
    expect(await asClient('b')).toHaveLength(1);
    expect(sent.filter((m) => (m as { method?: string }).method === 'archivedReceipts').map((m) => (m as { query: { client?: string } }).query.client)).toEqual(
      [undefined, 'a', 'a', 'b'],
    );
    stop4();
    // Nobody answers.
    const silent = new IpcReader(channel, 100);
    expect(await codeOf(silent.activity({}))).toBe('SERVICE_UNAVAILABLE');
    silent.close();
    reader.close();
  });
});

describe('the archive reads', () => {
  it('are held to their budget a second: past it SERVICE_UNAVAILABLE, before any query; the budget refills', async () => {
    let queries = 0;
    const engine = { query: async () => (queries++, []) } as unknown as AnalyticsEngine;
    const archive = engineArchive(async () => engine, 2);
    expect(await archive.archivedReceipts({ receiptIds: ['dice_a'] })).toEqual([]);
    expect(await archive.archivedEvents({ afterSeq: 0, toSeq: 5 })).toEqual([]);
    const used = queries;
    expect(await codeOf(archive.archivedReceipts({ receiptIds: ['dice_b'] }))).toBe('SERVICE_UNAVAILABLE');
    expect(await codeOf(archive.archivedEvents({ afterSeq: 0, toSeq: 5 }))).toBe('SERVICE_UNAVAILABLE');
    expect(queries).toBe(used);
    // A bad request spends nothing.
    expect(await codeOf(archive.archivedReceipts({ receiptIds: [] }))).toBe('INVALID_REQUEST');
    await new Promise((r) => setTimeout(r, 600));
    expect(await archive.archivedReceipts({ receiptIds: ['dice_c'] })).toEqual([]);
    expect(await codeOf(archive.archivedReceipts({ receiptIds: ['dice_d'] }))).toBe('SERVICE_UNAVAILABLE');
  });

  it('share the budget among the clients reading: one that asks for everything leaves the others their share', async () => {
    const engine = { query: async () => [] } as unknown as AnalyticsEngine;
    let t = 0;
    const archive = engineArchive(
      async () => engine,
      10,
      () => t,
    );
    const read = (client: string) =>
      archive.archivedReceipts({ receiptIds: ['dice_a'], client }).then(
        () => 'ok',
        (err: PfwsError) => `${err.code} ${err.extras.headers?.['retry-after']}`,
      );
    // Alone, a client has the whole budget, then waits.
    const alone = [];
    for (let i = 0; i < 12; i++) alone.push(await read('greedy'));
    expect(alone.filter((r) => r === 'ok')).toHaveLength(10);
    expect(alone.at(-1)).toBe('SERVICE_UNAVAILABLE 1');
    // Another client's reads go through at once, though the greedy one spent everything it had.
    expect(await read('auditor')).toBe('ok');
    // From then on the two share it evenly: over 5 s of both asking 20 times a second, about 25 reads each (50 at
    // the budget's rate, and the auditor's first bucket of 5).
    const got = { greedy: 0, auditor: 0 };
    for (let step = 0; step < 100; step++) {
      t += 50;
      for (const client of ['greedy', 'auditor'] as const) if ((await read(client)) === 'ok') got[client]++;
    }
    expect(got.greedy + got.auditor).toBeLessThanOrEqual(55);
    expect(got.auditor).toBeGreaterThanOrEqual(23);
    expect(got.greedy).toBeLessThanOrEqual(27);
    expect(got.auditor - got.greedy).toBeLessThanOrEqual(5);
    // Journal events spend the same shares; reads that name no client share one bucket.
    t += 1_000;
    expect(await archive.archivedEvents({ afterSeq: 0, toSeq: 1, client: 'auditor' }).then(() => 'ok')).toBe('ok');
    t += 60_000;
    for (let i = 0; i < 10; i++) expect(await archive.archivedEvents({ afterSeq: 0, toSeq: 1 }).then(() => 'ok')).toBe('ok');
    expect(await codeOf(archive.archivedReceipts({ receiptIds: ['dice_a'] }))).toBe('SERVICE_UNAVAILABLE');
  });
});

describe('the engine holder', () => {
  it('opens on first use, pauses after a failed attempt, then opens', async () => {
    let attempts = 0;
    let fail = true;
    const fake = { kind: 'server', close: async () => {} } as unknown as AnalyticsEngine;
    const holder = new EngineHolder(async () => {
      attempts++;
      if (fail) throw new Error('ECONNREFUSED');
      return fake;
    }, 200);
    expect(holder.current()).toBeNull();
    await expect(holder.get()).rejects.toThrow(EngineError);
    await expect(holder.get()).rejects.toThrow(EngineError);
    expect(attempts).toBe(1);
    fail = false;
    const deadline = Date.now() + 5_000;
    while (holder.current() === null && Date.now() < deadline) await holder.get().catch(() => new Promise((r) => setTimeout(r, 20)));
    expect(holder.current()).toBe(fake);
    expect(attempts).toBe(2);
    await holder.close();
    await expect(holder.get()).rejects.toThrow(/closed/);
  });
});

describe('one shipper among worker processes', () => {
  const env = engineEnv('chdb');
  let redis: Redis;
  const journal: { j?: Journal } = {};
  const workers: AnalyticsWorker[] = [];

  beforeAll(() => {
    redis = createRedis('redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    for (const w of workers) await w.stop();
    await journal.j?.cleanup();
    const keys = await redis.keys(`${journal.j?.prefix ?? 'none'}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('holds a lease: one ships and beats; when it stops, another takes over without doubling anything', async () => {
    const inner = await env.open();
    const j = new Journal(redis);
    journal.j = j;
    const keys = new Keys(j.prefix);
    const scripts = defineScripts(redis);
    const heartbeats = new HeartbeatStore(redis, keys);
    const holder = new EngineHolder(async () => inner);
    const logger = { info() {}, warn() {}, error() {} };
    const noArchive = {
      anchors: { logSize: async () => 0, filledSize: async () => 0, logItems: async () => [], receiptFieldBytes: async () => [] },
      manifests: { recordsAfterSeq: async () => [] },
      progress: { archiveProgress: async () => ({ settled: 0, anchored: 0, manifestSeq: 0 }), setArchiveProgress: async () => {} },
    };
    const start = () => {
      const w = startAnalyticsWorker({
        engine: holder,
        stream: new JournalStream(redis, j.streamKey),
        lease: new ShipperStore(redis, keys, scripts).lease,
        archive: noArchive,
        heartbeats,
        clock: () => NOW,
        logger,
        passMs: 50,
        shipper: { blockMs: 50, retry: { minMs: 20, maxMs: 100 } },
      });
      workers.push(w);
      return w;
    };
    const plays = recentPlays(40, 9, NOW);
    const seqs = await j.append(plays.slice(0, 20).map(playEntry));
    const [a, b, c] = [start(), start(), start()];
    const shipping = async () => {
      for (let i = 0; i < 200; i++) {
        const on = [a, b, c].filter((w) => w.shipper !== null);
        if (on.length === 1) return on[0]!;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error('no single shipper');
    };
    const first = await shipping();
    await first.shipper!.waitFor(seqs[19]!);
    for (let i = 0; i < 10; i++) {
      expect([a, b, c].filter((w) => w.shipper !== null)).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 30));
    }
    const beat = await heartbeats.read('shipper');
    expect(beat?.fields).toMatchObject({ shippedSeq: String(seqs[19]), engine: 'chdb' });

    await first.stop();
    const more = await j.append(plays.slice(20).map(playEntry));
    const second = await shipping();
    expect(second).not.toBe(first);
    await second.shipper!.waitFor(more[19]!);
    const [row] = await inner.query('SELECT count() AS n, uniqExact(seq) AS u FROM journal_events');
    expect([Number(row!.n), Number(row!.u)]).toEqual([40, 40]);
  });
});
