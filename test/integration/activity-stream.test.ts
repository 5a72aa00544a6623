// The activity stream over real Redis, below HTTP: the journal reads a resume uses, and what a lost subscription
// does (every client is ended, and resumes from the journal once the stream has subscribed again).
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ActivityStream, type ActivityStreamDeps } from '../../analytics/activity-stream.ts';
import type { Activity } from '../../protocol/analytics.ts';
import { playOfSettleEvent } from '../../protocol/plays.ts';
import { Keys } from '../../store/keys.ts';
import { LivePlayStore, type SubscriptionHandlers } from '../../store/live-plays.ts';
import { createRedis } from '../../store/redis.ts';
import { LedgerPlays } from '../helpers/ledger-plays.ts';
import { emptyActivity, emptySnapshot } from '../helpers/sse.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const keys = new Keys(`test-${randomBytes(6).toString('hex')}`);
const redis = createRedis(REDIS_URL);
const store = new LivePlayStore(redis, keys, REDIS_URL);
const streams: ActivityStream[] = [];

afterAll(async () => {
  for (const s of streams) await s.stop();
  const found = await redis.keys(`${keys.prefix}:*`);
  if (found.length) await redis.unlink(...found);
  await redis.quit();
});

const ledger = new LedgerPlays(redis, keys);
let n = 0;
/** A journal event written by the ledger's scripts; a settled play is also published (test/helpers/ledger-plays.ts). */
async function journal(settles = true): Promise<{ seq: number; receiptId: string }> {
  const receiptId = `dice_it${++n}`;
  if (!settles) return { seq: (await ledger.commit()).seq, receiptId };
  const at = new Date().toISOString();
  const data = { game: 'dice', player: 'p_Test1', receiptId, wager: '2000000', payout: '0', status: 'lost' };
  const play = JSON.stringify(playOfSettleEvent('bet_settled', JSON.stringify(data), at) ?? expect.fail('not a play'));
  return { seq: await ledger.settle({ type: 'bet_settled', at, data }, play), receiptId };
}
/** One journal entry and nothing more (ledger recovery's path, restore_record.lua), published nowhere. */
async function entry(settles = true): Promise<{ seq: number }> {
  const data = { game: 'dice', player: 'p_Test1', receiptId: `dice_it${++n}`, wager: '2000000', payout: '0', status: 'lost' };
  const [seq] = await ledger.append([{ type: settles ? 'bet_settled' : 'bet_committed', at: new Date().toISOString(), data }]);
  return { seq: seq! };
}

function newStream(clientBufferBytes = 65_536, snapshot: ActivityStreamDeps['snapshot'] = emptySnapshot): ActivityStream {
  const s = new ActivityStream({
    journal: store,
    subscribe: (handlers) => store.subscribe(handlers),
    snapshot,
    settings: { keepAliveMs: 60_000, clientBufferBytes, replayMaxEvents: 100, flushMs: 0 },
  });
  streams.push(s);
  return s;
}

/** A client on a PassThrough: its frames as text, and whether the stream ended it. */
async function client(s: ActivityStream, lastEventId?: number) {
  const out = new PassThrough();
  let text = '';
  let ended = false;
  out.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  out.on('end', () => {
    ended = true;
  });
  (await s.connect('all', lastEventId)).attach(out);
  return {
    ids: () => [...text.matchAll(/^id: (\d+)\nevent: (\w+)$/gm)].map((m) => `${m[2]}:${m[1]}`),
    snapshot: (): Activity => JSON.parse(/^event: snapshot\ndata: (.*)$/m.exec(text)?.[1] ?? expect.fail('no snapshot')).snapshot,
    ended: () => ended,
  };
}

async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  for (const end = Date.now() + timeoutMs; !(await done()); ) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the journal a resume reads', () => {
  it('gives the entries after a seq, oldest first; null once trimmed past it or past the bound', async () => {
    const first = await entry();
    const rest = [await entry(false), await entry(), await entry()];
    const after = await store.entriesAfter(first.seq, 100);
    expect(after?.map(([, f]) => Number(f[1]))).toEqual(rest.map((r) => r.seq));
    expect(await store.entriesAfter(rest[2]!.seq, 100)).toEqual([]);
    expect(await store.entriesAfter(first.seq, 3)).toHaveLength(3);
    expect(await store.entriesAfter(first.seq, 2)).toBeNull();
    const firstTwo = await redis.xrange(keys.journal(), '-', '+', 'COUNT', 2);
    await redis.xtrim(keys.journal(), 'MINID', firstTwo[1]![0]);
    expect(await store.entriesAfter(first.seq - 1, 100)).toBeNull();
    expect((await store.entriesAfter(first.seq, 100))?.length).toBe(3);
  });
});

describe('the journal a snapshot reads', () => {
  it('walks the entries after a seq newest first, and stops where the visitor says', async () => {
    const from = (await entry()).seq;
    const rest = [await entry(), await entry(false), await entry(), await entry()];
    const seen: number[] = [];
    await store.walkNewest(from, ([, f]) => seen.push(Number(f[1])) > 0);
    expect(seen).toEqual(rest.map((r) => r.seq).reverse());
    const two: number[] = [];
    await store.walkNewest(from, ([, f]) => two.push(Number(f[1])) < 2);
    expect(two).toEqual(seen.slice(0, 2));
  });
});

describe('a resume', () => {
  it('replays what fits in the client buffer; more plays than that get a snapshot instead', async () => {
    const s = newStream(4096);
    const from = (await journal()).seq;
    const few = [await journal(), await journal(), await journal()];
    const replayed = await client(s, from);
    await until('the replay', () => replayed.ids().length === 3);
    expect(replayed.ids()).toEqual(few.map((p) => `play:${p.seq}`));
    // About 300 bytes a play: 20 of them do not fit in 4096 bytes.
    for (let i = 0; i < 20; i++) await journal();
    const seq = Number(await redis.get(keys.journalSeq()));
    const behind = await client(s, from);
    await until('the snapshot', () => behind.ids().length === 1);
    expect(behind.ids()).toEqual([`snapshot:${seq}`]);
    await s.stop();
  });
});

describe("a new client's snapshot", () => {
  it('holds the plays settled before connect that analytics has not shipped yet, then the live plays follow', async () => {
    const shipped = await journal();
    const shippedActivity = emptyActivity('all');
    shippedActivity.latestPlays = [
      playOfSettleEvent(
        'bet_settled',
        JSON.stringify({ game: 'dice', player: 'p_Test1', receiptId: shipped.receiptId, wager: '2000000', payout: '0', status: 'lost' }),
        new Date().toISOString(),
      )!,
    ];
    // Analytics holds everything up to `shipped`; the journal has two plays and an event more.
    const s = newStream(65_536, async () => ({ shippedSeq: shipped.seq, activity: shippedActivity }));
    try {
      const b = await journal();
      const other = await journal(false);
      const c = await journal();
      const seq = Number(await redis.get(keys.journalSeq()));
      const fresh = await client(s);
      await until('the snapshot', () => fresh.ids().length === 1);
      expect(fresh.ids()).toEqual([`snapshot:${seq}`]);
      expect(fresh.snapshot().latestPlays.map((p) => p.receiptId)).toEqual([c.receiptId, b.receiptId, shipped.receiptId]);
      // Every journal event after `shipped` (a settle journals more than one), newest first.
      const events = fresh.snapshot().latestEvents.map((e) => e.seq);
      expect(events).toEqual(Array.from({ length: seq - shipped.seq }, (_, i) => seq - i));
      expect(events).toEqual(expect.arrayContaining([c.seq, other.seq, b.seq]));
      const d = await journal();
      await until('the live play', () => fresh.ids().length === 2);
      expect(fresh.ids()).toEqual([`snapshot:${seq}`, `play:${d.seq}`]);
    } finally {
      await s.stop();
    }
  });

  it('takes only the newest plays when analytics lags far behind', async () => {
    const from = (await journal()).seq;
    const made: { seq: number; receiptId: string }[] = [];
    for (let i = 0; i < 30; i++) made.push(await journal());
    const s = newStream(65_536, async (game) => ({ shippedSeq: from, activity: emptyActivity(game) }));
    try {
      const fresh = await client(s);
      await until('the snapshot', () => fresh.ids().length === 1);
      expect(fresh.snapshot().latestPlays.map((p) => p.receiptId)).toEqual(
        made
          .slice(-20)
          .map((p) => p.receiptId)
          .reverse(),
      );
      expect(fresh.snapshot().latestEvents).toHaveLength(20);
    } finally {
      await s.stop();
    }
  });

  it('is left as analytics has it when analytics is up to date', async () => {
    const a = await journal();
    const s = newStream(65_536, async (game) => ({ shippedSeq: a.seq, activity: emptyActivity(game) }));
    try {
      const fresh = await client(s);
      await until('the snapshot', () => fresh.ids().length === 1);
      expect(fresh.snapshot()).toMatchObject({ latestPlays: [], latestEvents: [], topWagers: [] });
    } finally {
      await s.stop();
    }
  });
});

describe('without Redis', () => {
  it('a new client is told SERVICE_UNAVAILABLE within seconds instead of waiting for the subscription', async () => {
    const unreachable = new LivePlayStore(redis, keys, 'redis://127.0.0.1:1');
    const s = new ActivityStream({
      journal: unreachable,
      subscribe: (handlers) => unreachable.subscribe(handlers),
      snapshot: emptySnapshot,
      settings: { keepAliveMs: 60_000, clientBufferBytes: 65_536, replayMaxEvents: 100, flushMs: 0 },
    });
    streams.push(s);
    await expect(s.connect('all')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(s.stats().clients).toBe(0);
  }, 20_000);
});

describe('a lost subscription', () => {
  it('ends every client; once subscribed again, a resume replays what was published meanwhile, then live', async () => {
    const s = newStream();
    const c = await client(s);
    const a = await journal();
    await until('play a', () => c.ids().includes(`play:${a.seq}`));
    const list = (await redis.call('CLIENT', 'LIST')) as string;
    const id = /id=(\d+) [^\n]*name=([^ ]+)/g;
    const ours = [...list.matchAll(id)].filter((m) => m[2] === `${keys.prefix}:plays-subscriber`).map((m) => m[1]!);
    expect(ours).toHaveLength(1);
    await redis.call('CLIENT', 'KILL', 'ID', ours[0]!);
    await until('the client ended', () => c.ended());
    const b = await journal();
    // A new client waits for the subscription to be back, and misses nothing from its Last-Event-ID on.
    const again = await client(s, a.seq);
    const d = await journal();
    await until('b and d', () => again.ids().includes(`play:${d.seq}`));
    expect(again.ids()).toEqual([`play:${b.seq}`, `play:${d.seq}`]);
    expect(s.stats().clients).toBe(1);
  });
});

describe('the fan-out', () => {
  it('writes each client the plays of a flush that its filter takes in one write, in order, and none twice', async () => {
    let handlers: SubscriptionHandlers | null = null;
    const s = new ActivityStream({
      journal: store,
      subscribe: (h) => {
        handlers = h;
        return { ready: async () => {}, close: async () => {} };
      },
      snapshot: emptySnapshot,
      settings: { keepAliveMs: 60_000, clientBufferBytes: 65_536, replayMaxEvents: 100, flushMs: 150 },
    });
    streams.push(s);
    const seq = (await journal()).seq;
    // Resumed at the current seq: no snapshot, nothing replayed, live from the next play.
    const clients = await Promise.all(
      (['all', 'all', 'dice', 'sweeper'] as const).map(async (game) => {
        const out = new PassThrough();
        const chunks: string[] = [];
        out.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
        (await s.connect(game, seq)).attach(out);
        return { chunks, ids: () => chunks.map((c) => [...c.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]) - seq)) };
      }),
    );
    const publish = (n: number, game: string) => handlers!.play({ seq: seq + n, play: { game, receiptId: `${game}_fan${n}` } });
    for (let n = 1; n <= 5; n++) publish(n, n % 2 ? 'dice' : 'sweeper');
    await until('the flush', () => clients.every((c) => c.chunks.length > 0));
    expect(clients.map((c) => c.ids())).toEqual([[[1, 2, 3, 4, 5]], [[1, 2, 3, 4, 5]], [[1, 3, 5]], [[2, 4]]]);
    // One already sent comes again with a new one: only the new one goes out.
    publish(3, 'dice');
    publish(6, 'dice');
    await until('the second flush', () => clients[0]!.chunks.length === 2);
    await new Promise((r) => setTimeout(r, 200));
    expect(clients.map((c) => c.ids())).toEqual([[[1, 2, 3, 4, 5], [6]], [[1, 2, 3, 4, 5], [6]], [[1, 3, 5], [6]], [[2, 4]]]);
    // A play after a quiet spell goes out at once; those within flushMs of that write wait for each other.
    publish(7, 'sweeper');
    await new Promise((r) => setTimeout(r, 5));
    publish(8, 'sweeper');
    await new Promise((r) => setTimeout(r, 5));
    publish(9, 'sweeper');
    await until('the fourth flush', () => clients[0]!.chunks.length === 4);
    await new Promise((r) => setTimeout(r, 200));
    expect(clients.map((c) => c.ids())).toEqual([
      [[1, 2, 3, 4, 5], [6], [7], [8, 9]],
      [[1, 2, 3, 4, 5], [6], [7], [8, 9]],
      [[1, 3, 5], [6]],
      [[2, 4], [7], [8, 9]],
    ]);
    await s.stop();
  });
});
