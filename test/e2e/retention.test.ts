// Settled plays leave Redis once the archive and the tiles hold them and the retention window has passed, and
// journal events once manifests cover them: Redis memory stays bounded, yet every receipt, tile, receipt bundle and
// journal event answers as before (from the archive and the files), `pfws-verify all` passes the whole history, and
// a re-sent reveal of a dropped bet is refused without a second settlement.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseBetLogItem } from '../../store/anchor-tree.ts';
import { Player, http } from '../helpers/player.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { expectVerifiedAll } from '../helpers/verify-all.ts';
import { buildApp } from '../../api/app.ts';
import { engineArchive } from '../../analytics/reader.ts';
import { Receipts } from '../../games/receipts.ts';
import { apiDepsOf } from '../../wiring.ts';

const RETENTION_MS = 600_000;
/** One full entry bundle: what leaves Redis first. */
const BUNDLE = 256;
const PLAYS = BUNDLE + 24;

let svc: TestService;
let alice: Player;
let bob: Player;
let firstBet: { betPayloadHash: string; clientSeedRaw: string; revealMessage: string; prepared: any };
let ticketId: string;
/** The first bundle's receipt ids, in log order. */
let ids: string[];
const before = new Map<string, unknown>();
let eventsBefore: unknown[];
const tilesBefore = new Map<string, Buffer>();

const receipt = (id: string) => http('GET', `${svc.api}/receipts/${id}`);
const raw = async (p: string) => Buffer.from(await (await fetch(`${svc.api}${p}`)).arrayBuffer());
const settledGauge = async () => Number(/^pfws_redis_settled_entries (\S+)$/m.exec(await (await fetch(`${svc.apiUrl}/metrics`)).text())?.[1]);
const TILES = ['/protocol/v1/bet-log/tile/entries/000', '/protocol/v1/bet-log/tile/0/000', '/protocol/v1/bet-log/receipts/000'];

beforeAll(async () => {
  svc = await startTestService({
    SETTLED_RETENTION_MS: String(RETENTION_MS),
    // The test reads every dropped receipt back at once; test/analytics/reader.test.ts holds the budget.
    ARCHIVE_READS_PER_SEC: '100000',
    ANCHOR_MAX_DELAY_MS: '100',
    MANIFEST_MAX_DELAY_MS: '100',
  });
  [alice, bob] = await Promise.all([new Player(svc.api, svc.rpcUrl).onboard(100), new Player(svc.api, svc.rpcUrl).onboard(100)]);

  // A Sweeper ticket first, so it falls in the first bundle: one row, then cash out (or it ends on that row).
  const open = await bob.openTicket('easy', 1);
  ticketId = open.body.ticket.id;
  const choice = await bob.prepareChoice(ticketId, 0, 1);
  const c = await bob.commitSweeper(choice.res.body);
  const r = await bob.revealSweeper(choice.res.body.betPayloadHash, choice.clientSeedRaw, c.body.ack.revealMessage);
  if (r.body.ticket.status === 'running') {
    const cashout = await bob.prepareCashout(ticketId);
    const cc = await bob.commitSweeper(cashout.res.body);
    await bob.revealSweeper(cashout.res.body.betPayloadHash, cashout.clientSeedRaw, cc.body.ack.revealMessage);
  }
  const first = await alice.playDice({ wager: 0.1, target: 50 });
  firstBet = {
    betPayloadHash: first.prepared.betPayloadHash,
    clientSeedRaw: first.clientSeedRaw,
    revealMessage: first.commit.ack.revealMessage,
    prepared: first.prepared,
  };
  const rest = PLAYS - 2;
  await Promise.all([
    (async () => {
      for (let i = 0; i < rest / 2; i++) await alice.playDice({ wager: 0.1, target: 50 });
    })(),
    (async () => {
      for (let i = 0; i < rest / 2; i++) await bob.playDice({ wager: 0.1, target: 60 });
    })(),
  ]);
  const { redis, keys, stores } = svc.wiring;
  // Anchored, filled, archived and written into the files.
  await vi.waitFor(
    async () => {
      const [written, archived] = await Promise.all([stores.transparency.writtenSize(), stores.shipper.archiveProgress()]);
      expect(Math.min(written, archived.settled, archived.anchored)).toBeGreaterThanOrEqual(BUNDLE);
    },
    { timeout: 60_000, interval: 200 },
  );
  ids = (await redis.lrange(keys.betLog(), 0, BUNDLE - 1)).map((item, i) => parseBetLogItem(item, i).receiptId);
  for (const id of ids) before.set(id, (await receipt(id)).body.receipt);
  for (const p of TILES) tilesBefore.set(p, await raw(p));
  eventsBefore = await allEvents();
}, 240_000);

/** Every journal event, page by page (pages of 250, so pages straddle what the stream and the archive hold). */
async function allEvents(): Promise<unknown[]> {
  const out: { seq: number }[] = [];
  for (;;) {
    const page = await http('GET', `${svc.api}/protocol/v1/journal/events?afterSeq=${out.at(-1)?.seq ?? 0}&limit=250`);
    expect(page.status).toBe(200);
    out.push(...page.body.events);
    if (page.body.events.length < 250) return out;
  }
}

afterAll(async () => {
  await svc?.cleanup();
});

describe('settled plays leaving Redis', () => {
  it('stay while the retention window lasts', async () => {
    const { stores, redis, keys } = svc.wiring;
    // Two archive passes (2 s each) at least: still nothing dropped.
    await new Promise((r) => setTimeout(r, 4_500));
    expect(await stores.retention.prunedSize()).toBe(0);
    expect(await redis.exists(keys.receipt(ids[0] as string))).toBe(1);
    expect(await redis.xlen(keys.journal())).toBeGreaterThanOrEqual(eventsBefore.length);
  });

  it('leave once it has passed: receipts, bets, recovery seeds and the ended ticket, for full bundles only', async () => {
    const { stores, redis, keys } = svc.wiring;
    await alice.post('/protocol/v1/dice/recovery-seed', { betPayloadHash: firstBet.betPayloadHash, clientSeedRaw: firstBet.clientSeedRaw });
    expect(await redis.exists(keys.recoverySeed(firstBet.betPayloadHash))).toBe(1);
    expect(await settledGauge()).toBe(PLAYS);
    const memoryBefore = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
    svc.clock.offsetMs = RETENTION_MS + 60_000;
    await vi.waitFor(async () => expect(await stores.retention.prunedSize()).toBe(BUNDLE), { timeout: 20_000, interval: 200 });

    const left = await Promise.all(ids.map((id) => redis.exists(keys.receipt(id))));
    expect(left.filter((n) => n === 1)).toEqual([]);
    const bet = await redis.exists(keys.bet(firstBet.betPayloadHash), keys.recoverySeed(firstBet.betPayloadHash), keys.ticket(ticketId));
    expect(bet).toBe(0);
    // Past the first full bundle, everything is still here.
    const next = (await redis.lrange(keys.betLog(), BUNDLE, PLAYS - 1)).map((item, i) => parseBetLogItem(item, BUNDLE + i).receiptId);
    expect(next).toHaveLength(PLAYS - BUNDLE);
    expect((await Promise.all(next.map((id) => redis.exists(keys.receipt(id))))).every((n) => n === 1)).toBe(true);
    // The log itself and its tree stay.
    expect(await redis.llen(keys.betLog())).toBe(PLAYS);
    const memoryAfter = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
    expect(memoryBefore - memoryAfter).toBeGreaterThan(BUNDLE * 5_000);
    expect(await settledGauge()).toBe(PLAYS - BUNDLE);
  });

  it('answer every receipt as before, from the archive; an unknown id is still RECEIPT_NOT_FOUND', async () => {
    for (const id of ids) {
      const res = await receipt(id);
      expect(res.status, id).toBe(200);
      expect(res.body.receipt, id).toEqual(before.get(id));
    }
    expect((before.get(ids[0] as string) as { anchor: { status: string } }).anchor.status).toBe('committed');
    const unknown = await receipt('dice_00000000000000000000000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('RECEIPT_NOT_FOUND');
  });

  it("share the archive's read budget among clients: one asking for everything leaves another its share", async () => {
    // Another API on this service, its archive held to 4 reads a second, behind a proxy that names each client.
    const engine = svc.wiring.analyticsEngine!;
    const deps = apiDepsOf(svc.wiring);
    const archive = engineArchive(() => engine.get(), 4);
    const app = await buildApp({
      ...deps,
      config: { ...deps.config, TRUST_PROXY: 'true' },
      receipts: new Receipts({ bets: svc.wiring.stores.bets, retention: svc.wiring.stores.retention, archive }),
    });
    try {
      const read = async (client: string, i: number) => {
        const res = await app.inject({ method: 'GET', url: `/api/receipts/${ids[i % ids.length]}`, headers: { 'x-forwarded-for': client } });
        return res.statusCode === 503 ? `503 ${res.headers['retry-after']}` : String(res.statusCode);
      };
      const greedy = [];
      for (let i = 0; i < 6; i++) greedy.push(await read('198.51.100.7', i));
      expect(greedy).toEqual(['200', '200', '200', '200', '503 1', '503 1']);
      expect(await read('203.0.113.9', 10)).toBe('200');
    } finally {
      await app.close();
    }
  });

  it('trim the journal stream once manifests cover it, and serve the same events from the archive', async () => {
    const { redis, keys } = svc.wiring;
    expect(eventsBefore.length).toBeGreaterThan(2 * PLAYS);
    await vi.waitFor(async () => expect(await redis.xlen(keys.journal())).toBeLessThan(eventsBefore.length / 4), { timeout: 20_000, interval: 200 });
    const after = await allEvents();
    expect(after.slice(0, eventsBefore.length)).toEqual(eventsBefore);
    // One page that starts in the archive and ends in the stream.
    const [first] = await redis.xrange(keys.journal(), '-', '+', 'COUNT', 1);
    const firstSeq = Number(first![1][first![1].indexOf('seq') + 1]);
    const page = await http('GET', `${svc.api}/protocol/v1/journal/events?afterSeq=${firstSeq - 3}&limit=5`);
    const want = [0, 1, 2, 3, 4].map((i) => firstSeq - 2 + i).filter((seq) => seq <= page.body.lastSeq);
    expect(want.length).toBeGreaterThan(2);
    expect(page.body.events.map((e: { seq: number }) => e.seq)).toEqual(want);
  });

  it('serve the same tiles and receipt bundles, and the session key that committed each dropped bet', async () => {
    for (const p of TILES) expect((await raw(p)).equals(tilesBefore.get(p)!), p).toBe(true);
    const pointer = await http('GET', `${svc.api}/protocol/v1/session-keys/by-bet/${firstBet.betPayloadHash}`);
    expect(pointer.status).toBe(200);
    expect(pointer.body).toMatchObject({ betPayloadHash: firstBet.betPayloadHash, sessionPubkey: alice.session.publicKey });
    expect(pointer.body.signature).toEqual(expect.any(String));
  });

  it('refuse a re-sent commit or reveal of a dropped bet, and stake or settle nothing twice', async () => {
    const balance = (await alice.get('/protocol/v1/dice/session')).body.balance;
    const commit = await alice.commitDice(firstBet.prepared);
    expect(commit.status).toBe(400);
    expect(commit.body.error.code).toBe('GAME_INPUT_REJECTED');
    const again = await alice.revealDice(firstBet.betPayloadHash, firstBet.clientSeedRaw, firstBet.revealMessage);
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('GAME_INPUT_REJECTED');
    expect((await alice.get('/protocol/v1/dice/session')).body.balance).toBe(balance);
    expect(await svc.wiring.redis.llen(svc.wiring.keys.betLog())).toBe(PLAYS);
  });

  it('leave a history `pfws-verify all` passes', async () => {
    await expectVerifiedAll(svc);
  });
});
