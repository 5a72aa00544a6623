// GET /api/activity/stream through the real service: real bets publish their public play with the seq of the
// settle event; clients get a snapshot, then the plays of their game, resume with Last-Event-ID, and are fanned
// out to by one Redis subscription per API instance; a client that stops reading is dropped, the others go on.
import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player } from '../helpers/player.ts';
import { openSse, stalledClient, type SseClient } from '../helpers/sse.ts';
import { createRedis, type Redis } from '../../store/redis.ts';
import { journalRowOf } from '../../analytics/journal-rows.ts';
import { playOfJournalRow } from '../../analytics/shapes.ts';
import { playOfSettleEvent } from '../../protocol/plays.ts';
import { PfwsError } from '../../protocol/errors.ts';
import { buildApp } from '../../api/app.ts';
import type { ApiDeps } from '../../api/deps.ts';
import { apiDepsOf } from '../../wiring.ts';
import { LedgerPlays } from '../helpers/ledger-plays.ts';

// The memory this process keeps, after a full collection: what a leak would hold, without the native memory the
// in-process ClickHouse and the allocator keep (RSS), which the anchoring and archiving of the plays move.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
function keptMemory(): number {
  gc();
  // Compiled code is not data: the JIT's output grows with the paths a run warms, not with the plays it sends.
  const data = v8.getHeapSpaceStatistics().filter((s) => !s.space_name.startsWith('code_'));
  return data.reduce((sum, s) => sum + s.space_used_size, 0) + process.memoryUsage().arrayBuffers;
}

const BUFFER_BYTES = 16_384;
const KEEPALIVE_MS = 250;
const REPLAY_MAX = 200;

let svc: TestService;
let player: Player;
/** A second API instance in this process, on the same Redis prefix, with its own stream and subscriber. */
let second: FastifyInstance;
let secondDeps: ApiDeps;
let secondUrl: string;
const clients: SseClient[] = [];

beforeAll(async () => {
  svc = await startTestService({
    SSE_KEEPALIVE_MS: String(KEEPALIVE_MS),
    SSE_CLIENT_BUFFER_BYTES: String(BUFFER_BYTES),
    SSE_REPLAY_MAX_EVENTS: String(REPLAY_MAX),
    // The flood below waits for each batch to reach its reader: at the default 50 ms a flush, filling the stalled
    // client's socket buffers (several MB) took 35 s of this file's time.
    SSE_FLUSH_MS: '10',
    RATE_LIMIT_MAX: '1000000',
    // This file floods the journal with plays; anchoring them would only load the machine under its timing tests.
    ANCHOR_MAX_DELAY_MS: '3600000',
    ANCHOR_MAX_ENTRIES: '1000000',
  });
  player = await new Player(svc.api, svc.rpcUrl).onboard(50);
  ledger = new LedgerPlays(svc.wiring.redis, svc.wiring.keys);
  secondDeps = apiDepsOf(svc.wiring);
  second = await buildApp(secondDeps);
  secondUrl = `${await second.listen({ port: 0, host: '127.0.0.1' })}/api`;
}, 120_000);
afterAll(async () => {
  for (const c of clients) c.close();
  await second?.close();
  await svc?.cleanup();
});

/** Opens a stream and keeps it for cleanup. */
async function stream(query = '', headers: Record<string, string> = {}, base = svc.api): Promise<SseClient> {
  const c = await openSse(`${base}/activity/stream${query}`, headers);
  clients.push(c);
  return c;
}

/** Waits for a condition, polling. */
async function until<T>(what: string, get: () => T | Promise<T>, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await get();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Plays a ticket's first row, then cashes out if it survived: either way the ticket ends. */
async function endTicket(id: string): Promise<void> {
  const choice = await player.prepareChoice(id, 0, 0);
  const c = await player.commitSweeper(choice.res.body);
  const r = await player.revealSweeper(choice.res.body.betPayloadHash, choice.clientSeedRaw, c.body.ack.revealMessage);
  if (r.body.ticket.status !== 'running') return;
  const out = await player.prepareCashout(id);
  const oc = await player.commitSweeper(out.res.body);
  const done = await player.revealSweeper(out.res.body.betPayloadHash, out.clientSeedRaw, oc.body.ack.revealMessage);
  expect(done.body.ticket.status).toBe('settled');
}

const PLAY_KEYS = ['receiptId', 'game', 'player', 'source', 'betAmount', 'payout', 'profit', 'won', 'settledAt'].sort();

describe('the plays channel', () => {
  let sub: Redis;
  const messages: { seq: number; play: Record<string, unknown> }[] = [];
  beforeAll(async () => {
    sub = createRedis(svc.config.REDIS_URL);
    sub.on('message', (_channel: string, text: string) => messages.push(JSON.parse(text)));
    await sub.subscribe(svc.wiring.keys.playsChannel());
  });
  afterAll(async () => {
    await sub?.quit();
  });

  it('carries each settled play in the public shape, with the seq of its settle event in the journal', async () => {
    const dice = await player.playDice({ wager: 2, target: 50 });
    const ticket = await player.openTicket('easy', 1);
    const id = ticket.body.ticket.id as string;
    await endTicket(id);
    await until('both plays published', () => messages.length >= 2);
    expect(messages).toHaveLength(2);
    const [m1, m2] = messages as [(typeof messages)[0], (typeof messages)[0]];
    expect(m1.play).toMatchObject({ receiptId: dice.reveal.receiptId, game: 'dice', source: 'api', betAmount: 2 });
    expect(m2.play).toMatchObject({ receiptId: `sweeper_${id}`, game: 'sweeper', source: 'api', betAmount: 1 });
    const entries = await svc.wiring.redis.xrange(svc.wiring.keys.journal(), '-', '+');
    for (const m of messages) {
      expect(Object.keys(m.play).sort()).toEqual(PLAY_KEYS);
      expect(m.play.profit).toBeCloseTo((m.play.payout as number) - (m.play.betAmount as number), 6);
      expect(m.play.player).toMatch(/^p_/);
      expect(JSON.stringify(m)).not.toContain(player.address);
      // The seq is the settle event's, and a replay from the journal rebuilds the very same play.
      const entry = entries.map(([eid, fields]) => journalRowOf(eid, fields)).find((row) => row?.seq === m.seq);
      expect(entry?.type).toMatch(/^(bet|ticket)_settled$/);
      expect(playOfJournalRow(entry!)).toEqual(m.play);
    }
    expect(m2.seq).toBeGreaterThan(m1.seq);
  }, 60_000);
});

// Settled plays written by the ledger's own scripts (test/helpers/ledger-plays.ts: settle_turn.lua journals the
// settle event and publishes the play), for volumes real bets cannot reach in a test; the public play comes from the
// same function the games use.
let ledger: LedgerPlays;
let fakeCount = 0;
async function fakePlay(game: 'dice' | 'sweeper' = 'dice', settles = true): Promise<{ seq: number; receiptId: string }> {
  const receiptId = `${game}_fake${++fakeCount}`;
  if (!settles) return { seq: (await ledger.commit()).seq, receiptId };
  const at = new Date().toISOString();
  const type = game === 'dice' ? 'bet_settled' : 'ticket_settled';
  const data = { game, player: 'p_Fake1Payer', receiptId, wager: '1000000', payout: '1980000', status: 'won', source: 'api' };
  const play = JSON.stringify(playOfSettleEvent(type, JSON.stringify(data), at) ?? expect.fail('not a play'));
  return { seq: await ledger.settle({ type, at, data }, play), receiptId };
}

/** How many connections subscribe to the plays channel: one per API instance with clients. */
const subscriptions = async () => Number(((await svc.wiring.redis.call('PUBSUB', 'NUMSUB', svc.wiring.keys.playsChannel())) as [string, number])[1]);
const currentSeq = async () => Number(await svc.wiring.redis.get(svc.wiring.keys.journalSeq()));
const plays = (c: SseClient) => c.events.filter((e) => e.event === 'play');
const receiptsOf = (c: SseClient) => plays(c).map((e) => e.data.play.receiptId as string);

describe('GET /api/activity/stream', () => {
  it('sends the snapshot first, with the journal seq as its id, as text/event-stream', async () => {
    const seq = await currentSeq();
    const c = await stream('?game=dice');
    expect(c.status).toBe(200);
    expect(c.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(c.headers['cache-control']).toContain('no-cache');
    const [first] = await c.until('the snapshot', (e) => e.length >= 1);
    expect(first!.event).toBe('snapshot');
    expect(Number(first!.id)).toBeGreaterThanOrEqual(seq);
    expect(first!.data.type).toBe('snapshot');
    expect(first!.data.snapshot).toMatchObject({ game: 'dice', latestPlays: expect.any(Array), totals: expect.any(Object) });
    const next = await fakePlay('dice');
    await c.until('the play', (e) => e.length >= 2);
    expect(c.events[1]).toMatchObject({ id: String(next.seq), event: 'play', data: { type: 'play', play: { receiptId: next.receiptId } } });
  });

  it('real bets through the service reach the streams of their game only, with no wallet address', async () => {
    const [all, dice, sweeper] = [await stream(), await stream('?game=dice'), await stream('?game=sweeper')];
    await Promise.all([all, dice, sweeper].map((c) => c.until('the snapshot', (e) => e.length >= 1)));
    const bet = await player.playDice({ wager: 1, target: 50 });
    const ticket = await player.openTicket('easy', 1);
    const id = ticket.body.ticket.id as string;
    await endTicket(id);
    await all.until('both plays', () => plays(all).length >= 2);
    await dice.until('the dice play', () => plays(dice).length >= 1);
    await sweeper.until('the ticket', () => plays(sweeper).length >= 1);
    expect(receiptsOf(all)).toEqual([bet.reveal.receiptId, `sweeper_${id}`]);
    expect(receiptsOf(dice)).toEqual([bet.reveal.receiptId]);
    expect(receiptsOf(sweeper)).toEqual([`sweeper_${id}`]);
    expect(plays(all)[0]!.data.play).toMatchObject({ game: 'dice', source: 'api', betAmount: 1, player: expect.stringMatching(/^p_/) });
    expect(Number(plays(all)[1]!.id)).toBeGreaterThan(Number(plays(all)[0]!.id));
    for (const c of [all, dice, sweeper]) expect(JSON.stringify(c.events)).not.toContain(player.address);
  }, 60_000);

  it('resumes with Last-Event-ID: the plays made while away, in order, none twice, then live again', async () => {
    const c = await stream('?game=dice');
    await c.until('the snapshot', (e) => e.length >= 1);
    const a = await fakePlay('dice');
    await c.until('play a', () => plays(c).length >= 1);
    c.close();
    const lastId = c.lastEventId!;
    expect(lastId).toBe(String(a.seq));
    // While away: dice plays, a sweeper play and events that settle nothing.
    const b = await fakePlay('dice');
    await fakePlay('sweeper');
    await fakePlay('dice', false);
    const d = await fakePlay('dice');
    const again = await stream('?game=dice', { 'last-event-id': lastId });
    await again.until('the missed plays', () => plays(again).length >= 2);
    const e = await fakePlay('dice');
    await again.until('the live play', () => plays(again).length >= 3);
    expect(again.events.map((x) => x.event)).toEqual(['play', 'play', 'play']);
    expect(receiptsOf(again)).toEqual([b.receiptId, d.receiptId, e.receiptId]);
    expect(plays(again).map((x) => Number(x.id))).toEqual([b.seq, d.seq, e.seq]);
    // The query parameter does the same for clients that cannot set the header.
    const viaQuery = await stream(`?game=dice&lastEventId=${a.seq}`);
    await viaQuery.until('the missed plays', () => plays(viaQuery).length >= 3);
    expect(receiptsOf(viaQuery)).toEqual([b.receiptId, d.receiptId, e.receiptId]);
    // Nothing missed: nothing replayed, and the next play follows.
    const upToDate = await stream('?game=dice', { 'last-event-id': String(await currentSeq()) });
    const f = await fakePlay('dice');
    await upToDate.until('the next play', () => plays(upToDate).length >= 1);
    expect(upToDate.events.map((x) => x.data.play?.receiptId)).toEqual([f.receiptId]);
  });

  it('sends a fresh snapshot when the missed plays are no longer in the journal, or too many, or the id is not ours', async () => {
    const old = await fakePlay('dice');
    await fakePlay('dice');
    const k = svc.wiring.keys;
    // Trim everything up to the newest entry, as the shipper may once ClickHouse holds it.
    const newest = (await svc.wiring.redis.xrevrange(k.journal(), '+', '-', 'COUNT', 1)) as [string, string[]][];
    await svc.wiring.redis.xtrim(k.journal(), 'MINID', newest[0]![0]);
    const trimmed = await stream('', { 'last-event-id': String(old.seq - 1) });
    await trimmed.until('a snapshot', (e) => e.length >= 1);
    expect(trimmed.events[0]).toMatchObject({ event: 'snapshot', id: String(await currentSeq()) });

    const behind = await currentSeq();
    for (let i = 0; i <= REPLAY_MAX; i++) await fakePlay('dice', false);
    const tooFar = await stream('', { 'last-event-id': String(behind) });
    await tooFar.until('a snapshot', (e) => e.length >= 1);
    expect(tooFar.events[0]!.event).toBe('snapshot');

    for (const id of ['abc', String(Number.MAX_SAFE_INTEGER), '-1']) {
      const c = await stream('', { 'last-event-id': id });
      await c.until('a snapshot', (e) => e.length >= 1);
      expect(c.events[0]!.event, id).toBe('snapshot');
    }
  });

  it('refuses a bad game or lastEventId with INVALID_REQUEST before streaming', async () => {
    for (const query of ['?game=poker', '?game=DICE', "?game=dice'--", '?lastEventId=abc', '?lastEventId=-1']) {
      const c = await stream(query);
      expect(c.status, query).toBe(400);
      expect(c.headers['content-type']).toMatch(/json/);
      expect(c.body.error.code, query).toBe('INVALID_REQUEST');
    }
  });

  it('sends a keep-alive comment periodically', async () => {
    const c = await stream('?game=sweeper');
    await c.until('two keep-alives', () => c.comments.filter((x) => x === 'keepalive').length >= 2, 10_000);
  });

  it('fans out across two API instances on one Redis prefix, each with one subscription however many clients', async () => {
    const onMain = [await stream(), await stream('?game=dice')];
    const onSecond = [await stream('', {}, secondUrl), await stream('?game=dice', {}, secondUrl), await stream('?game=sweeper', {}, secondUrl)];
    await Promise.all([...onMain, ...onSecond].map((c) => c.until('the snapshot', (e) => e.length >= 1)));
    expect(await subscriptions()).toBe(2);
    const p = await fakePlay('dice');
    for (const c of [...onMain, ...onSecond.slice(0, 2)]) await c.until('the play', () => plays(c).length >= 1);
    for (const c of [...onMain, ...onSecond.slice(0, 2)]) expect(receiptsOf(c)).toEqual([p.receiptId]);
    expect(plays(onSecond[2]!)).toEqual([]);
  });
});

describe('under load', () => {
  const secondStream = () => secondDeps.activityStream;

  it('1,000 concurrent subscribers all receive a play; closed clients are let go', { timeout: 180_000 }, async () => {
    const seq = String(await currentSeq());
    const before = secondStream().stats().clients;
    const many: SseClient[] = [];
    // Resuming at the current seq: the stream starts with nothing to replay, as after a reconnect storm.
    for (let i = 0; i < 1000; i += 100) {
      many.push(
        ...(await Promise.all(
          Array.from({ length: 100 }, (_, j) => openSse(`${(i + j) % 2 ? svc.api : secondUrl}/activity/stream`, { 'last-event-id': seq })),
        )),
      );
    }
    expect(many.every((c) => c.status === 200)).toBe(true);
    await until('every client registered', () => secondStream().stats().clients >= before + 500);
    expect(await subscriptions()).toBe(2);
    const p = await fakePlay('sweeper');
    await Promise.all(many.map((c) => c.until('the play', () => plays(c).length >= 1)));
    for (const c of many) expect(c.events.map((e) => [e.id, e.data.play?.receiptId])).toEqual([[String(p.seq), p.receiptId]]);
    for (const c of many) c.close();
    await until('the closed clients let go', () => secondStream().stats().clients === before);
  });

  it('drops a subscriber that stops reading once its buffer is full; the others get every play, and memory stays bounded', { timeout: 180_000 }, async () => {
    // The streams of earlier tests are let go: each would keep every play of the flood in this process.
    for (const c of clients.splice(0)) c.close();
    await until('the earlier streams let go', () => secondStream().stats().clients === 0);
    const seq = await currentSeq();
    const before = secondStream().stats().clients;
    const url = `${secondUrl}/activity/stream?lastEventId=${seq}`;
    const stalled = await stalledClient(url);
    const reader = await stream(`?lastEventId=${seq}`, {}, secondUrl);
    await until('both registered', () => secondStream().stats().clients === before + 2);
    const keptBefore = keptMemory();
    let sent = 0;
    let maxBuffered = 0;
    let lastSeq = seq;
    // The reader's ids only: the events it parsed are let go, so what this process keeps is the server's.
    const ids: number[] = [];
    const took = () => {
      ids.push(...plays(reader).map((e) => Number(e.id)));
      reader.events.length = 0;
      return ids.length;
    };
    while (secondStream().stats().dropped === 0) {
      if (sent > 50_000) throw new Error('the stalled client was never dropped');
      // Batches a reader in this same process can take while the server writes them (it reads between batches).
      const batch = await Promise.all(Array.from({ length: 25 }, () => fakePlay('dice')));
      sent += batch.length;
      lastSeq = batch[batch.length - 1]!.seq;
      maxBuffered = Math.max(maxBuffered, secondStream().stats().bufferedBytes);
      await reader.until('the batch', () => took() >= sent, 60_000);
    }
    expect(secondStream().stats().clients).toBe(before + 1);
    // Operators see it: the drop is counted, and the clients gauge follows both instances of this process.
    const metrics = await (await fetch(`${secondUrl.replace(/\/api$/, '')}/metrics`)).text();
    expect(Number(/^pfws_activity_stream_dropped_total (\d+)$/m.exec(metrics)?.[1])).toBe(1);
    expect(Number(/^pfws_activity_stream_clients (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(before + 1);
    // Whatever waits in this process for the two is within their bounds (plus the frame that crossed it).
    expect(maxBuffered).toBeLessThanOrEqual((before + 2) * (BUFFER_BYTES + 1024));
    // The stalled client was sent more than its buffer and every socket buffer between could hold.
    const frameBytes = 200;
    expect(sent * frameBytes).toBeGreaterThan(1024 * 1024);
    // Nor does anything else keep it: what the heap holds after a collection grew by less than 16 MB (a few MB are
    // the run's own noise, at about one copy of what was sent; the RSS would count in-process ClickHouse's memory).
    expect(keptMemory() - keptBefore).toBeLessThan(16 * 1024 * 1024);
    // The reader was never held up: it gets every play, in order, and more after the drop.
    const after = await fakePlay('dice');
    await reader.until('every play', () => took() >= sent + 1, 60_000);
    expect(ids).toHaveLength(sent + 1);
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);
    expect(ids.at(-2)).toBe(lastSeq);
    expect(ids.at(-1)).toBe(after.seq);
    stalled.destroy();
  });

  it('a long stream outlives the server timeouts, kept alive by its comments', { timeout: 60_000 }, async () => {
    // A server as a hardened deployment may run it: short request, header, keep-alive and idle-socket timeouts.
    const server = http.createServer({ requestTimeout: 500, headersTimeout: 400, keepAliveTimeout: 200, connectionsCheckingInterval: 50 }, (req, res) =>
      second.routing(req, res),
    );
    server.timeout = 150;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
      const c = await openSse(`${base}/activity/stream?lastEventId=${await currentSeq()}`);
      expect(c.status).toBe(200);
      // Well past every timeout above.
      await c.until('12 keep-alives', () => c.comments.length >= 12, 20_000);
      const p = await fakePlay('dice');
      await c.until('the play', () => plays(c).length >= 1);
      expect(receiptsOf(c)).toEqual([p.receiptId]);
      expect(c.closed).toBe(false);
      c.close();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('answers SERVICE_UNAVAILABLE when no snapshot can be read, and still resumes from the journal', async () => {
    const downDeps = apiDepsOf({
      ...svc.wiring,
      activitySnapshot: async () => {
        throw new PfwsError('SERVICE_UNAVAILABLE', 'analytics are down');
      },
    });
    const down = await buildApp(downDeps);
    const base = `${await down.listen({ port: 0, host: '127.0.0.1' })}/api`;
    try {
      const fresh = await openSse(`${base}/activity/stream`);
      expect(fresh.status).toBe(503);
      expect(fresh.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(downDeps.activityStream.stats().clients).toBe(0);
      const seq = await currentSeq();
      const resumed = await openSse(`${base}/activity/stream`, { 'last-event-id': String(seq) });
      clients.push(resumed);
      const p = await fakePlay('dice');
      await resumed.until('the play', () => plays(resumed).length >= 1);
      expect(receiptsOf(resumed)).toEqual([p.receiptId]);
    } finally {
      await down.close();
    }
  });

  it('a resumed client with nothing missed gets its 200 at once, not at the first keep-alive', async () => {
    const quiet = await buildApp(apiDepsOf({ ...svc.wiring, config: { ...svc.wiring.config, SSE_KEEPALIVE_MS: 60_000 } }));
    const base = `${await quiet.listen({ port: 0, host: '127.0.0.1' })}/api`;
    try {
      // Nothing to replay and no play coming: only the head tells the client it is connected.
      const opened = openSse(`${base}/activity/stream`, { 'last-event-id': String(await currentSeq()) });
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no response head within 10 s')), 10_000);
      });
      const resumed = await Promise.race([opened, late]).finally(() => clearTimeout(timer));
      clients.push(resumed);
      expect(resumed.status).toBe(200);
      expect(resumed.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(resumed.events).toEqual([]);
      const p = await fakePlay('dice');
      await resumed.until('the play', () => plays(resumed).length >= 1);
      expect(receiptsOf(resumed)).toEqual([p.receiptId]);
    } finally {
      await quiet.close();
    }
  });
});
