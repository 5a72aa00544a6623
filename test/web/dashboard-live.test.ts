// The dashboard's live path against the analytics shapes pinned in design §8, served here by a stand-in API
// (the real routes are built elsewhere; pages.test.ts exercises them through the whole service once they exist):
// the SSE snapshot and plays, totals moving with each play, the day's top lists, rankings by metric and source,
// and the stats chart per period.
import type { ServerResponse } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import errorsPlugin from '../../api/plugins/errors.ts';
import webPlugin from '../../api/plugins/web.ts';
import { count, usdc } from '../../web/src/format.ts';
import type { Activity, Actor, Play, Rankings, Stats } from '../../web/src/types.ts';
import {
  CHROMIUM_PATH,
  DESKTOP,
  browserPresent,
  browserRequired,
  collectPageErrors,
  launchBrowser,
  screenshot,
  seriousA11yViolations,
  PHONE,
} from './browser.ts';

const now = Date.parse('2026-11-23T12:00:00Z');
const play = (n: number, game = 'dice', won = n % 2 === 0): Play => ({
  receiptId: `${game}_${String(n).padStart(32, '0')}`,
  game,
  player: `p_player${n % 3}`,
  source: n % 4 === 0 ? 'mcp' : 'api',
  betAmount: n,
  payout: won ? n * 1.98 : 0,
  profit: won ? n * 0.98 : -n,
  won,
  settledAt: new Date(now - n * 60_000).toISOString(),
});
const actor = (rank: number): Actor => ({
  rank,
  player: `p_rank${rank}`,
  plays: 40 - rank,
  wagered: 100 - rank,
  paidOut: 90 - rank,
  profit: -10,
  roi: -0.1,
  winRate: 0.45,
});
const totals = { plays: 1234, wagered: 5678.5, paidOut: 5500.25, houseNet: 178.25 };

const activity = (game: string): Activity => ({
  generatedAt: new Date(now).toISOString(),
  game: game as Activity['game'],
  latestPlays: [play(1), play(2, 'sweeper'), play(3)],
  latestEvents: [],
  topWagers: [play(30), play(20, 'sweeper')],
  topActors: [actor(1), actor(2)],
  totals,
  bankroll: { totalValue: 1_000_000 },
});
const house = {
  totalValue: 1_000_178.25,
  baseBankroll: 1_000_000,
  gameNet: 178.25,
  volume: 5678.5,
  apr: 0.01,
  maxExposure: 100_017.825,
  utilization: 0.25,
  totalStaked: 3,
  sharePrice: 1.000178,
  activeReserve: 25_000,
  idleReserve: 975_178.25,
  deployableToYield: 0,
  maxBet: 5000.89,
  maxPayout: 10_001.78,
  openExposure: 25_004.45,
  strategy: 'cash',
};

let app: FastifyInstance;
let origin: string;
let browser: Browser;
const streams: ServerResponse[] = [];
const seen: { path: string; query: Record<string, string> }[] = [];

async function standIn(): Promise<FastifyInstance> {
  const instance = Fastify({ forceCloseConnections: true });
  await instance.register(errorsPlugin);
  instance.addHook('onRequest', async (request) => {
    const url = new URL(request.url, 'http://x');
    seen.push({ path: url.pathname, query: Object.fromEntries(url.searchParams) });
  });
  await instance.register(
    async (api) => {
      api.get('/house', async () => ({ house }));
      api.get('/activity', async (request) => activity((request.query as { game?: string }).game ?? 'all'));
      api.get('/rankings', async (request): Promise<Rankings> => {
        const q = request.query as { game: Rankings['game']; source: Rankings['source']; metric: Rankings['metric'] };
        return { generatedAt: new Date(now).toISOString(), game: q.game, source: q.source, metric: q.metric, actors: [actor(1), actor(2), actor(3)], totals };
      });
      api.get('/stats', async (request): Promise<Stats> => {
        const period = (request.query as { period: Stats['period'] }).period;
        const n = period === 'day' ? 24 : period === 'month' ? 30 : 12;
        const step = period === 'day' ? 3_600_000 : 86_400_000 * (period === 'month' ? 1 : 30);
        const buckets = Array.from({ length: n }, (_, i) => ({
          start: new Date(now - (n - i) * step).toISOString(),
          plays: i,
          wagered: i * 2,
          paidOut: i * 1.5,
          houseNet: i * 0.5,
        }));
        return { generatedAt: new Date(now).toISOString(), game: 'all', period, totals, bankroll: { totalValue: 1_000_000 }, buckets };
      });
      api.get('/activity/stream', (request, reply) => {
        reply.hijack();
        reply.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
        const game = (request.query as { game?: string }).game ?? 'all';
        reply.raw.write(`id: 10\nevent: snapshot\ndata: ${JSON.stringify({ type: 'snapshot', snapshot: activity(game) })}\n\n`);
        streams.push(reply.raw);
        request.raw.on('close', () => streams.splice(streams.indexOf(reply.raw), 1));
      });
    },
    { prefix: '/api' },
  );
  await instance.register(webPlugin);
  return instance;
}

function broadcast(p: Play, seq: number): void {
  for (const s of streams) s.write(`id: ${seq}\nevent: play\ndata: ${JSON.stringify({ type: 'play', play: p })}\n\n`);
}

describe.skipIf(!browserPresent && !browserRequired)('dashboard with the analytics routes (design §8 shapes)', () => {
  beforeAll(async () => {
    if (!browserPresent) throw new Error(`PFWS_REQUIRE_BROWSER=1 but there is no browser at ${CHROMIUM_PATH}: apt-get install -y chromium`);
    app = await standIn();
    origin = await app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('follows the live stream, and shows the top lists, rankings and charts', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    await page.goto(`${origin}/`);
    await page.waitForSelector('#feed-status[data-state="live"]');
    expect(await page.locator('#analytics-notice').isVisible()).toBe(false);
    const ids = () => page.locator('#feed tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-receipt-id')));
    expect(await ids()).toEqual(activity('all').latestPlays.map((p) => p.receiptId));
    expect(await page.locator('[data-field="plays"]').textContent()).toBe(count(totals.plays));
    expect(await page.locator('#top-wagers tbody tr').count()).toBe(2);
    expect(await page.locator('#top-actors tbody tr[data-player="p_rank1"]').count()).toBe(1);

    const fresh = play(99, 'sweeper', true);
    expect(streams.length).toBeGreaterThan(0);
    broadcast(fresh, 11);
    await page.locator(`#feed tbody tr:first-child[data-receipt-id="${fresh.receiptId}"]`).waitFor();
    expect(await page.locator('#feed tbody tr').first().textContent()).toContain(usdc(fresh.betAmount));
    await page.waitForFunction((n) => document.querySelector('[data-field="plays"]')?.textContent === n, count(totals.plays + 1));

    // Rankings follow the metric and source; the chart and its table follow the period.
    await page.locator('#rankings tbody tr[data-player="p_rank3"]').waitFor();
    await page.selectOption('#metric', 'winRate');
    await page.selectOption('#source', 'mcp');
    await page.waitForFunction(
      () =>
        document.getElementById('rankings-caption')?.textContent?.includes('win rate') &&
        document.getElementById('rankings-caption')?.textContent?.includes('mcp'),
    );
    expect(seen.some((r) => r.path === '/api/rankings' && r.query.metric === 'winRate' && r.query.source === 'mcp')).toBe(true);
    expect(await page.locator('#rankings-note').textContent()).toContain('at least 10 plays');
    await page.locator('#stats-chart canvas').waitFor();
    expect(await page.locator('#stats-table tbody tr').count()).toBe(24);
    await page.selectOption('#period', 'month');
    await page.waitForFunction(() => document.querySelectorAll('#stats-table tbody tr').length === 30);

    // The game filter reaches every analytics read, the stream included.
    await page.selectOption('#game', 'dice');
    await page.waitForFunction(() => document.getElementById('feed-status')?.dataset.state === 'live');
    await expect.poll(() => seen.some((r) => r.path === '/api/activity/stream' && r.query.game === 'dice')).toBe(true);
    await expect.poll(() => seen.some((r) => r.path === '/api/stats' && r.query.game === 'dice' && r.query.period === 'month')).toBe(true);

    await screenshot(page, 'dashboard-analytics-desktop');
    await page.setViewportSize(PHONE);
    // The chart follows its box's width (ResizeObserver), then nothing on the page is wider than the phone.
    await page.waitForFunction(() => document.querySelector('#stats-chart canvas')!.getBoundingClientRect().width <= 375);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await screenshot(page, 'dashboard-analytics-375');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
