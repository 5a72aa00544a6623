// Public analytics end to end, on both engines: real plays (REST and MCP) through the real service, shipped by the
// worker into ClickHouse, read back over HTTP and held to a model built from the ledger's own journal: totals,
// rankings per metric and source, stats buckets across day, month and year boundaries (an injected clock), activity
// ordering and limit clamping, bad and hostile parameters, no wallet address anywhere, the receipt and manifest
// archive, and (server) a ClickHouse outage in the middle of play.
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archivedReceipt } from '../../analytics/archive.ts';
import { GAMES, METRICS, PERIODS, SOURCES } from '../../analytics/params.ts';
import { ENGINE_KINDS } from '../analytics/engines.ts';
import { modelActivity, modelRankings, modelStats, modelTotals, type FixturePlay } from '../analytics/fixture.ts';
import { startClickHouse, type ClickHouseServer } from '../helpers/clickhouse.ts';
import { Player, http } from '../helpers/player.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

/** Just before a new year, so later plays land in another hour, day, month and year. */
const T0 = Date.parse('2027-12-31T23:20:00.000Z');
const T1 = Date.parse('2028-01-01T00:10:00.000Z');

async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(last).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 100));
    last = await read();
  }
  return last;
}

interface Answer {
  status: number;
  cacheControl: string | null;
  body: any;
  text: string;
}

async function get(url: string): Promise<Answer> {
  const res = await fetch(url);
  const text = await res.text();
  return { status: res.status, cacheControl: res.headers.get('cache-control'), body: JSON.parse(text), text };
}

/** The settled plays as the ledger journaled them: the ground truth analytics must reproduce. */
async function ledgerPlays(svc: TestService): Promise<FixturePlay[]> {
  const plays: FixturePlay[] = [];
  let after = 0;
  for (;;) {
    const page = (await http('GET', `${svc.api}/protocol/v1/journal/events?afterSeq=${after}&limit=1000`)).body;
    for (const e of page.events as { seq: number; type: string; at: string; data: any }[]) {
      if (e.type !== 'bet_settled' && e.type !== 'ticket_settled') continue;
      plays.push({
        receiptId: e.data.receiptId,
        game: e.data.game,
        player: e.data.player,
        sourceField: e.data.source ?? null,
        wager: BigInt(e.data.wager),
        payout: BigInt(e.data.payout),
        won: e.data.status === 'won',
        atMs: Date.parse(e.at),
        seq: e.seq,
      });
    }
    if (page.events.length < 1000) return plays;
    after = page.events[page.events.length - 1].seq;
  }
}

describe.each(ENGINE_KINDS)('analytics over HTTP on %s', (kind) => {
  let svc: TestService;
  let clickhouse: ClickHouseServer | null = null;
  let heavy: Player;
  let regular: Player;
  let light: Player;
  let agentOwner: Player;
  const clients: Client[] = [];
  const wallets: string[] = [];

  const url = (path: string) => `${svc.api}${path}`;
  /**
   * The answer at `path` once `pick(body)` equals `want(body)`: the materialized views of one INSERT are filled one
   * after another, so an answer computed in between may show one table ahead of another for a moment.
   */
  const converged = async (path: string, pick: (body: any) => unknown, want: (body: any) => unknown): Promise<Answer> => {
    let last: Answer | null = null;
    try {
      return await until(
        path,
        async () => (last = await get(url(path))),
        (a) => a.status === 200 && isDeepStrictEqual(pick(a.body), want(a.body)),
        20_000,
      );
    } catch {
      expect(last && pick((last as Answer).body), path).toEqual(last && want((last as Answer).body));
      throw new Error(`${path}: never converged`);
    }
  };
  /** Waits until the answer at `path` reflects every play the ledger holds (shipped, and past the 1 s cache). */
  const settled = async (path: string, plays: FixturePlay[], count: (body: any) => number) =>
    until(
      `${path} to count ${plays.length} plays`,
      () => get(url(path)),
      (a) => a.status === 200 && count(a.body) === plays.length,
    );

  beforeAll(async () => {
    const env: Record<string, string> = { ANCHOR_MAX_DELAY_MS: '200', MANIFEST_MAX_DELAY_MS: '200', AGENT_MAX_WAGERED: '100' };
    if (kind === 'server') {
      clickhouse = await startClickHouse();
      env.CLICKHOUSE_URL = `${clickhouse.url}/e2e_${randomBytes(4).toString('hex')}`;
    }
    svc = await startTestService(env);
    svc.clock.offsetMs = T0 - Date.now();

    heavy = await new Player(svc.api, svc.rpcUrl).onboard(200);
    regular = await new Player(svc.api, svc.rpcUrl).onboard(50);
    light = await new Player(svc.api, svc.rpcUrl).onboard(20);
    agentOwner = await new Player(svc.api, svc.rpcUrl).onboard(20);
    wallets.push(heavy.address, regular.address, light.address, agentOwner.address);

    // REST plays: a heavy player (large stakes, 12 plays), a regular one (10 plays, ranked by roi), a light one (3).
    for (let i = 0; i < 12; i++) await heavy.playDice({ wager: 5, target: 50 });
    for (let i = 0; i < 10; i++) await regular.playDice({ wager: 1, target: 30 + i * 5 });
    for (let i = 0; i < 3; i++) await light.playDice({ wager: 0.5, target: 90 });
    // A Sweeper ticket: one row, then cash out (or it ends on the first row).
    const ticket = await regular.openTicket('easy', 1);
    expect(ticket.status).toBe(200);
    const choice = await regular.prepareChoice(ticket.body.ticket.id, 0, 1);
    const c = await regular.commitSweeper(choice.res.body);
    const r = await regular.revealSweeper(choice.res.body.betPayloadHash, choice.clientSeedRaw, c.body.ack.revealMessage);
    if (r.body.ticket.status === 'running') {
      const cashout = await regular.prepareCashout(ticket.body.ticket.id);
      const cc = await regular.commitSweeper(cashout.res.body);
      await regular.revealSweeper(cashout.res.body.betPayloadHash, cashout.clientSeedRaw, cc.body.ack.revealMessage);
    }
    // MCP plays: source mcp.
    const key = await agentOwner.get('/protocol/v1/player/agent-key');
    await agentOwner.setup(0, key.body.sessionPubkey);
    const agent = new Client({ name: 'analytics-agent', version: '1.0.0' });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.api}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agentOwner.token}` } } }),
    );
    clients.push(agent);
    for (let i = 0; i < 3; i++) {
      const res = await agent.callTool({ name: 'play_dice', arguments: { betAmount: 0.05, target: 50, direction: 'under' } });
      expect(res.isError, JSON.stringify(res)).toBeFalsy();
    }

    // An hour later, in a new year: the heavy player plays on.
    svc.clock.offsetMs = T1 - Date.now();
    for (let i = 0; i < 4; i++) await heavy.playDice({ wager: 2, target: 60 });
  }, 300_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await svc?.cleanup();
    await clickhouse?.cleanup();
  });

  it('rankings hold to the ledger for every game, source and metric; the heavy player leads by wagered; fewer than 10 plays are not ranked by ratios', async () => {
    const plays = await ledgerPlays(svc);
    expect(plays.length).toBe(12 + 10 + 3 + 1 + 3 + 4);
    await settled('/rankings?metric=plays', plays, (b) => b.totals.plays);
    const alias = async (p: Player) => (await p.get('/protocol/v1/player/status')).body.alias as string;
    const [heavyAlias, lightAlias, agentAlias] = [await alias(heavy), await alias(light), await alias(agentOwner)];

    for (const game of GAMES)
      for (const source of SOURCES)
        for (const metric of METRICS) {
          const want = modelRankings(plays, game, source, metric);
          const a = await converged(
            `/rankings?game=${game}&source=${source}&metric=${metric}`,
            (b) => ({ game: b.game, source: b.source, metric: b.metric, actors: b.actors, totals: b.totals }),
            () => ({ game, source, metric, ...want }),
          );
          expect(a.cacheControl).toBe('public, max-age=5');
        }

    const wagered = (await get(url('/rankings?metric=wagered'))).body;
    expect(wagered.actors[0].player).toBe(heavyAlias);
    expect(wagered.actors.map((a: any) => a.player)).toContain(lightAlias);
    for (const metric of ['roi', 'winRate']) {
      const ranked = (await get(url(`/rankings?metric=${metric}`))).body.actors.map((a: any) => a.player);
      expect(ranked).not.toContain(lightAlias);
      expect(ranked).toHaveLength(2);
    }
    // Only the agent played through MCP.
    const mcp = (await get(url('/rankings?source=mcp&metric=plays'))).body;
    expect(mcp.actors.map((a: any) => a.player)).toEqual([agentAlias]);
    expect(mcp.totals.plays).toBe(3);
    // The defaults: all games and sources, by profit.
    expect((await get(url('/rankings'))).body).toMatchObject({ game: 'all', source: 'all', metric: 'profit' });
  });

  it('stats buckets split the plays across the hour, day, month and year boundary, oldest first, with empty buckets', async () => {
    const plays = await ledgerPlays(svc);
    await settled('/stats?period=year', plays, (b) => b.totals.plays);
    for (const game of GAMES)
      for (const period of PERIODS) {
        const a = await converged(
          `/stats?game=${game}&period=${period}`,
          (b) => ({ buckets: b.buckets, totals: b.totals }),
          (b) => modelStats(plays, game, period, new Date(b.generatedAt)),
        );
        expect(a.cacheControl).toBe('public, max-age=5');
        expect(Math.abs(Date.parse(a.body.generatedAt) - (Date.now() + svc.clock.offsetMs))).toBeLessThan(60_000);
        expect(a.body.bankroll.totalValue).toBeGreaterThan(0);
      }
    const byPeriod = async (period: string) => (await get(url(`/stats?period=${period}`))).body.buckets as { start: string; plays: number }[];
    const last2 = (buckets: { start: string; plays: number }[]) => buckets.slice(-2).map((b) => [b.start, b.plays]);
    const early = plays.filter((p) => p.atMs < T1).length;
    expect(last2(await byPeriod('day'))).toEqual([
      ['2027-12-31T23:00:00.000Z', early],
      ['2028-01-01T00:00:00.000Z', 4],
    ]);
    expect(last2(await byPeriod('month'))).toEqual([
      ['2027-12-31T00:00:00.000Z', early],
      ['2028-01-01T00:00:00.000Z', 4],
    ]);
    const year = await byPeriod('year');
    expect(year).toHaveLength(12);
    expect(year[0]!.start).toBe('2027-02-01T00:00:00.000Z');
    expect(last2(year)).toEqual([
      ['2027-12-01T00:00:00.000Z', early],
      ['2028-01-01T00:00:00.000Z', 4],
    ]);
    expect((await byPeriod('day')).length).toBe(24);
    expect((await byPeriod('month')).length).toBe(30);
  });

  it('activity: newest first, limit defaulted and clamped to 1..100, top wagers and players of the last 24 h, all-time totals', async () => {
    const plays = await ledgerPlays(svc);
    await settled('/activity?limit=100', plays, (b) => b.totals.plays);
    const events = (await http('GET', url('/protocol/v1/journal/events?limit=1000'))).body.events as { seq: number }[];
    for (const [asked, served] of [
      ['', 20],
      ['1', 1],
      ['7', 7],
      ['0', 1],
      ['-5', 1],
      ['100', 100],
      ['1000', 100],
    ] as const) {
      for (const game of GAMES) {
        const a = await converged(
          `/activity?game=${game}${asked === '' ? '' : `&limit=${asked}`}`,
          (b) => ({ latestPlays: b.latestPlays, topWagers: b.topWagers, topActors: b.topActors, totals: b.totals }),
          (b) => modelActivity(plays, game, served, new Date(b.generatedAt)),
        );
        expect(a.cacheControl).toBe('public, max-age=1');
        expect(a.body.latestPlays.length).toBe(Math.min(served, plays.filter((p) => game === 'all' || p.game === game).length));
        if (game === 'all') {
          const seqs = a.body.latestEvents.map((e: { seq: number }) => e.seq);
          expect(seqs).toEqual(
            events
              .map((e) => e.seq)
              .sort((x, y) => y - x)
              .slice(0, served),
          );
        }
      }
    }
    // The ticket counts under sweeper only.
    expect((await get(url('/activity?game=sweeper'))).body.totals).toEqual(modelTotals(plays.filter((p) => p.game === 'sweeper')));
  });

  it('bad and hostile parameters get INVALID_REQUEST, change nothing and leak nothing; no answer names a wallet', async () => {
    const plays = await ledgerPlays(svc);
    const before = await settled('/rankings?metric=wagered', plays, (b) => b.totals.plays);
    const bad = [
      '/activity?game=poker',
      '/activity?limit=abc',
      '/activity?limit=1.5',
      '/activity?limit=1e400',
      '/activity?game=dice&game=sweeper',
      '/rankings?source=web',
      '/rankings?metric=luck',
      '/rankings?game=DICE',
      '/stats?period=week',
      '/stats?game=',
      `/activity?game=${encodeURIComponent("dice' OR 1=1 --")}`,
      `/activity?limit=${encodeURIComponent('1; DROP TABLE plays')}`,
      `/rankings?metric=${encodeURIComponent('wagered DESC, (SELECT count() FROM system.tables)')}`,
      `/rankings?source=${encodeURIComponent("api') UNION ALL SELECT * FROM system.users --")}`,
      `/stats?period=${encodeURIComponent('day\\u0027; TRUNCATE TABLE journal_events')}`,
    ];
    for (const path of bad) {
      const a = await get(url(path));
      if (path === '/stats?game=') {
        // An empty value means "not given", as everywhere in the API.
        expect(a.status, path).toBe(200);
        continue;
      }
      expect(a.status, path).toBe(400);
      expect(a.body.error.code, path).toBe('INVALID_REQUEST');
      expect(a.cacheControl, path).toBe('no-store');
      expect(a.text, path).not.toMatch(/SELECT|ClickHouse|chDB|DB::|Exception|system\./i);
    }
    const after = await get(url('/rankings?metric=wagered'));
    expect(after.body.totals).toEqual(before.body.totals);
    expect(after.body.actors).toEqual(before.body.actors);

    // Only aliases: no wallet address in any analytics answer.
    const answers = await Promise.all(['/activity?limit=100', '/rankings', '/rankings?metric=wagered', '/stats?period=year'].map((p) => get(url(p))));
    for (const a of answers) for (const wallet of wallets) expect(a.text).not.toContain(wallet);
  });

  it('archives every receipt (its anchor joined once it lands) and every manifest into ClickHouse', async () => {
    const plays = await ledgerPlays(svc);
    await svc.worker!.anchoring.flush();
    const engine = await svc.wiring.analyticsEngine!.get();
    for (const p of [plays[0]!, plays[plays.length - 1]!]) {
      const got = await until(
        `receipt ${p.receiptId} archived as anchored`,
        () => archivedReceipt(engine, p.receiptId),
        (r) => (r?.receipt as any)?.anchor?.status === 'committed',
      );
      const live = (await http('GET', url(`/receipts/${p.receiptId}`))).body.receipt;
      expect(got!.receipt).toMatchObject({ receiptId: p.receiptId, player: p.player, status: live.status, anchor: live.anchor });
      expect(got!.anchored).toBe(true);
    }
    const latest = (await http('GET', url('/protocol/v1/journal/manifest/latest'))).body.manifest;
    await until(
      'the latest manifest archived',
      async () => engine.query(`SELECT count() AS n FROM manifests WHERE manifestHash = '${latest.manifestHash}'`),
      (rows) => Number(rows[0]?.n) === 1,
    );
  });

  it('reports ClickHouse ready and the shipper caught up', async () => {
    const ready = await http('GET', url('/../ready'));
    expect(ready.body.checks.clickhouse.status).toBe('ok');
    expect(ready.body.checks.clickhouse.reason).toBeUndefined();
    const seq = await svc.wiring.stores.manifests.journalSeq();
    await until(
      'the shipper heartbeat',
      () => svc.wiring.stores.heartbeats.read('shipper'),
      (beat) => Number(beat?.fields.shippedSeq) === seq,
    );
  });

  if (kind === 'server')
    it('ClickHouse killed mid-play: play goes on, the routes answer SERVICE_UNAVAILABLE, and after the restart the counts match the ledger exactly', async () => {
      const server = clickhouse!;
      await server.stop();
      // Play on while it is down, the journal keeps the events.
      for (let i = 0; i < 3; i++) await light.playDice({ wager: 0.5, target: 50 });
      const down = await until(
        'the routes to notice the outage',
        () => get(url('/rankings?metric=plays')),
        (a) => a.status === 503,
      );
      expect(down.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(down.cacheControl).toBe('no-store');
      expect(down.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
      // Not a reason to go unready (the other checks settle on their own).
      const ready = await until(
        '/ready',
        () => http('GET', url('/../ready')),
        (r) => r.status === 200,
      );
      expect(ready.body.checks.clickhouse).toMatchObject({ status: 'degraded', reason: expect.stringMatching(/SERVICE_UNAVAILABLE/) });
      for (let i = 0; i < 2; i++) await regular.playDice({ wager: 1, target: 50 });
      await server.start();
      for (let i = 0; i < 2; i++) await heavy.playDice({ wager: 1, target: 50 });

      const plays = await ledgerPlays(svc);
      await converged(
        '/rankings?metric=plays',
        (b) => ({ actors: b.actors, totals: b.totals }),
        () => modelRankings(plays, 'all', 'all', 'plays'),
      );
      const engine = await svc.wiring.analyticsEngine!.get();
      const [row] = await engine.query('SELECT count() AS n, uniqExact(seq) AS u, max(seq) AS m FROM journal_events');
      const seq = await svc.wiring.stores.manifests.journalSeq();
      expect([Number(row!.n), Number(row!.u), Number(row!.m)]).toEqual([seq, seq, seq]);
      const [p] = await engine.query('SELECT count() AS n, uniqExact(receiptId) AS u FROM plays');
      expect([Number(p!.n), Number(p!.u)]).toEqual([plays.length, plays.length]);
    });
});

describe.skipIf(!ENGINE_KINDS.includes('server'))('a service started while ClickHouse is down', () => {
  let svc: TestService | null = null;
  let clickhouse: ClickHouseServer | null = null;
  afterAll(async () => {
    await svc?.cleanup();
    await clickhouse?.cleanup();
  });

  it('starts and plays without it, answers SERVICE_UNAVAILABLE, and ships every play once it is up', async () => {
    clickhouse = await startClickHouse();
    await clickhouse.stop();
    svc = await startTestService({ CLICKHOUSE_URL: `${clickhouse.url}/late_${randomBytes(4).toString('hex')}` });
    const player = await new Player(svc.api, svc.rpcUrl).onboard(20);
    for (let i = 0; i < 3; i++) await player.playDice({ wager: 1 });
    const down = await get(`${svc.api}/rankings`);
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('SERVICE_UNAVAILABLE');
    // Not a reason to go unready (the roles' first heartbeats may take a moment under load).
    const ready = await until(
      '/ready',
      () => http('GET', `${svc!.api}/../ready`),
      (r) => r.status === 200,
    );
    expect(ready.body.checks.clickhouse).toMatchObject({ status: 'degraded', reason: expect.stringMatching(/ClickHouse cannot answer/) });

    await clickhouse.start();
    const plays = await ledgerPlays(svc);
    const back = await until(
      'the plays shipped after ClickHouse came up',
      () => get(`${svc!.api}/rankings?metric=plays`),
      (a) => a.status === 200 && a.body.totals.plays === 3,
    );
    expect(back.body.totals).toEqual(modelTotals(plays));
  });
});
