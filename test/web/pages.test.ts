// The pages in a real browser (Debian's chromium through playwright-core) against the whole running service:
// real Dice and Sweeper plays show up on the dashboard, read well on their receipt pages, verify on /verify, and a
// tampered receipt fails there by name. Every page is also shot at 375 px and checked with axe-core.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, http } from '../helpers/player.ts';
import { usdc } from '../../web/src/format.ts';
import {
  CHROMIUM_PATH,
  DESKTOP,
  PHONE,
  browserPresent,
  browserRequired,
  collectPageErrors,
  launchBrowser,
  screenshot,
  seriousA11yViolations,
} from './browser.ts';

let svc: TestService;
let browser: Browser;
let player: Player;
let diceId: string;
let sweeperId: string;
const contexts: BrowserContext[] = [];

/** Opens a ticket and plays it to its end: a choice, then a cashout if the row was safe. */
async function playSweeper(p: Player): Promise<string> {
  const open = await p.openTicket('easy', 1);
  if (open.status !== 200) throw new Error(`ticket: ${JSON.stringify(open.body)}`);
  const turn = async (prepared: Awaited<ReturnType<Player['prepareCashout']>>) => {
    if (prepared.res.status !== 200) throw new Error(`prepare: ${JSON.stringify(prepared.res.body)}`);
    const c = await p.commitSweeper(prepared.res.body);
    if (c.status !== 200) throw new Error(`commit: ${JSON.stringify(c.body)}`);
    const r = await p.revealSweeper(prepared.res.body.betPayloadHash, prepared.clientSeedRaw, c.body.ack.revealMessage);
    if (r.status !== 200) throw new Error(`reveal: ${JSON.stringify(r.body)}`);
    return r.body as { receiptId: string | null };
  };
  const first = await turn(await p.prepareChoice(open.body.ticket.id, 0, 0));
  return first.receiptId ?? (await turn(await p.prepareCashout(open.body.ticket.id))).receiptId!;
}

async function receipt(id: string) {
  return (await http('GET', `${svc.api}/receipts/${id}`)).body.receipt;
}

/** Waits until the receipt's bet-log entry is committed on-chain (the worker anchors every 200 ms here). */
async function anchored(id: string) {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    const r = await receipt(id);
    if (r?.anchor.status === 'committed') return r;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`receipt ${id} was not anchored in time`);
}

async function until(what: string, ok: () => Promise<boolean>, ms = 30_000) {
  for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
    if (await ok()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function open(path: string, viewport = DESKTOP): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport });
  contexts.push(context);
  const page = await context.newPage();
  const errors = collectPageErrors(page);
  const res = await page.goto(`${svc.apiUrl}${path}`);
  expect(res?.status(), path).toBe(200);
  return { page, errors };
}

/** A 375 px wide screenshot kept as an artifact, no sideways scrolling of the page itself, and no serious axe finding. */
async function phoneCheck(page: Page, name: string): Promise<void> {
  await page.setViewportSize(PHONE);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, `${name} scrolls sideways on a phone`).toBeLessThanOrEqual(0);
  await screenshot(page, `${name}-375`);
  expect(await seriousA11yViolations(page)).toEqual([]);
}

const text = async (page: Page, selector: string) => ((await page.locator(selector).first().textContent()) ?? '').trim();

describe.skipIf(!browserPresent && !browserRequired)('pages in a real browser', () => {
  beforeAll(async () => {
    if (!browserPresent) throw new Error(`PFWS_REQUIRE_BROWSER=1 but there is no browser at ${CHROMIUM_PATH}: apt-get install -y chromium`);
    [svc, browser] = await Promise.all([startTestService({ ANCHOR_MAX_DELAY_MS: '200' }), launchBrowser()]);
    player = await new Player(svc.api, svc.rpcUrl).onboard(50);
    diceId = (await player.playDice({ wager: 1, target: 50 })).reveal.receiptId;
    sweeperId = await playSweeper(player);
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await svc?.cleanup();
  });

  it('the dashboard shows the house and the plays, and a new play appears without a reload', async () => {
    const { page, errors } = await open('/');
    const house = (await http('GET', `${svc.api}/house`)).body.house;
    await page.locator('[data-field="totalValue"]').waitFor();
    expect(await text(page, '[data-field="totalValue"]')).toBe(usdc(house.totalValue));
    expect(await text(page, '[data-field="maxBet"]')).toBe(usdc(house.maxBet));
    for (const id of [diceId, sweeperId]) await page.locator(`#feed tr[data-receipt-id="${id}"]`).waitFor({ timeout: 10_000 });
    expect(await page.locator(`#feed tr[data-receipt-id="${diceId}"] a`).getAttribute('href')).toBe(`/receipts/${diceId}`);

    // The analytics routes exist: the feed is the live stream, and no notice says analytics are missing.
    expect((await http('GET', `${svc.api}/activity`)).status).toBe(200);
    await page.waitForSelector('#feed-status[data-state="live"]', { timeout: 10_000 });
    const notice = page.locator('#analytics-notice');
    expect((await notice.isVisible()) ? await notice.textContent() : '').not.toContain('/api/activity');
    // Rankings and stats come from the real pipeline: the player's two plays once shipped to ClickHouse.
    const alias = (await receipt(diceId)).player as string;
    await until('the plays in the rankings', async () => (await http('GET', `${svc.api}/rankings?metric=wagered`)).body.actors?.length > 0);
    // The page asks for its own game and metric, which may ship a batch later, or still be answered from the analytics
    // cache of its first load (ANALYTICS_CACHE_MS): reloaded until it shows the player.
    await until("the player in the page's rankings", async () => {
      await page.reload();
      await page.locator('#rankings tbody tr').first().waitFor({ timeout: 15_000 });
      return ((await page.locator('#rankings tbody').textContent()) ?? '').includes(alias);
    });
    await page.locator('#stats-table tbody tr').first().waitFor({ state: 'attached', timeout: 15_000 });
    expect(await page.locator('#stats-table tbody tr').count()).toBe(24);
    expect(await page.locator('#stats-chart canvas').count()).toBeGreaterThan(0);

    const next = (await player.playDice({ wager: 2, target: 60, direction: 'over' })).reveal.receiptId as string;
    const row = page.locator(`#feed tr[data-receipt-id="${next}"]`);
    await row.waitFor({ timeout: 15_000 });
    expect(await row.textContent()).toContain(usdc(2));
    expect(await page.locator('#feed tbody tr').first().getAttribute('data-receipt-id')).toBe(next);
    await screenshot(page, 'dashboard-desktop');
    await phoneCheck(page, 'dashboard');
    expect(errors).toEqual([]);
  });

  it('/receipts/:id shows the play, its proofs and explorer links, also on a hard reload', async () => {
    const r = await anchored(diceId);
    const { page, errors } = await open(`/receipts/${diceId}`);
    await page.locator('[data-field="anchor-status"]').waitFor();
    const check = async () => {
      expect(await text(page, 'h1')).toContain(diceId);
      expect(await text(page, '[data-field="status"]')).toBe(r.status === 'won' ? 'Won' : 'Lost');
      expect(await text(page, '[data-field="roll"]')).toBe(r.result.rollDisplay.toFixed(2));
      expect(await text(page, '[data-field="rngIndex"]')).toBe(String(r.proof.rngIndex));
      expect(await text(page, '[data-field="anchor-status"]')).toBe('committed');
      expect(await page.locator('main').textContent()).toContain(r.anchor.betLogRoot);
      expect(await page.locator('main').textContent()).toContain(r.verifierPayload.clientSeedRaw);
      expect(await page.locator('[data-link="commit-tx"]').getAttribute('href')).toBe(r.anchor.commitTransactionUrl);
      expect(await page.locator('[data-link="anchor-account"]').getAttribute('href')).toBe(r.anchor.commitExplorerUrl);
      expect(await page.locator('[data-link="verify"]').getAttribute('href')).toBe(`/verify?id=${diceId}`);
    };
    await check();
    await page.reload();
    await page.locator('[data-field="anchor-status"]').waitFor();
    await check();
    await screenshot(page, 'receipt-dice-desktop');
    await phoneCheck(page, 'receipt-dice');

    const ticket = await anchored(sweeperId);
    await page.goto(`${svc.apiUrl}/receipts/${sweeperId}`);
    await page.locator('[data-field="outcome"]').waitFor();
    expect(await text(page, '[data-field="outcome"]')).toBe(ticket.result.outcome.replace('_', ' '));
    expect(await page.locator('table tbody tr').count()).toBe(ticket.verifierPayload.turns.length);
    await phoneCheck(page, 'receipt-sweeper');
    expect(errors).toEqual([]);
  });

  it('/verify verifies real receipts in the browser, every step and check passing', async () => {
    await anchored(diceId);
    const { page, errors } = await open('/verify');
    await page.waitForFunction(() => (document.getElementById('rpc-input') as HTMLInputElement).value !== '');
    expect(await page.inputValue('#rpc-input')).toBe((await http('GET', `${svc.api}/protocol/v1/config`)).body.rpcUrl);
    // By keyboard: type the id, tab past the RPC field to the button, press Enter.
    await page.focus('#receipt-input');
    await page.keyboard.type(diceId);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('verify-button');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#verdict[data-ok="true"], #verdict[data-ok="false"]', { timeout: 20_000 });
    expect(await text(page, '#verdict')).toContain('Verified');
    expect(await page.locator('#verdict').getAttribute('data-ok')).toBe('true');
    const steps = await page.locator('#steps li').evaluateAll((els) => els.map((e) => [e.getAttribute('data-step'), e.getAttribute('data-status')]));
    expect(steps).toEqual(['config', 'receipt', 'rpc', 'commit-tx', 'rng-heads', 'checks'].map((s) => [s, 'pass']));
    const checks = await page.locator('#checks li').evaluateAll((els) => els.map((e) => [e.getAttribute('data-check'), e.getAttribute('data-status')]));
    expect(checks.filter(([, s]) => s === 'fail')).toEqual([]);
    for (const name of ['session-signature', 'ack-signature', 'commitment', 'rng-reveal', 'outcome', 'payout', 'inclusion', 'on-chain-commit']) {
      expect(checks).toContainEqual([name, 'pass']);
    }
    await screenshot(page, 'verify-pass-desktop');
    await phoneCheck(page, 'verify-pass');

    // A Sweeper ticket, pasted as the API's JSON body.
    const ticket = await anchored(sweeperId);
    await page.fill('#receipt-input', JSON.stringify({ receipt: ticket }, null, 2));
    await page.click('#verify-button');
    await page.waitForSelector('#verdict[data-ok="true"], #verdict[data-ok="false"]', { timeout: 20_000 });
    expect(await text(page, '#verdict')).toContain(`Verified: all`);
    expect(await text(page, '#verdict')).toContain(sweeperId);
    expect(await page.locator('#checks li[data-check="turn[0].rng-reveal"][data-status="pass"]').count()).toBe(1);
    expect(errors).toEqual([]);
  });

  it('/verify fails a tampered receipt and names the failing check', async () => {
    const real = await anchored(diceId);
    const { page, errors } = await open(`/verify`);
    const cases: [string, (r: any) => void, string][] = [
      ['payout', (r) => (r.payout = r.payout + 5), 'payout'],
      [
        'seed',
        (r) => (r.verifierPayload.clientSeedRaw = `${r.verifierPayload.clientSeedRaw[0] === 'a' ? 'b' : 'a'}${r.verifierPayload.clientSeedRaw.slice(1)}`),
        'commitment',
      ],
    ];
    for (const [what, tamper, name] of cases) {
      const tampered = structuredClone(real);
      tamper(tampered);
      await page.fill('#receipt-input', JSON.stringify(tampered));
      await page.click('#verify-button');
      await page.waitForSelector('#verdict[data-ok="false"]', { timeout: 20_000 });
      expect(await text(page, '#verdict'), what).toContain('Not verified');
      expect(await text(page, '#verdict'), what).toContain(name);
      expect(await page.locator(`#checks li[data-check="${name}"]`).getAttribute('data-status'), what).toBe('fail');
      expect(await page.locator('#steps li[data-step="checks"]').getAttribute('data-status')).toBe('fail');
      await screenshot(page, `verify-tampered-${what}-desktop`);
    }
    await phoneCheck(page, 'verify-tampered');
    expect(errors).toEqual([]);
  });

  it('the page routes stay out of the API document', async () => {
    const doc = (await http('GET', `${svc.api}/docs/json`)).body;
    expect(Object.keys(doc.paths)).not.toEqual(expect.arrayContaining(['/']));
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/api/'))).toEqual([]);
  });
});
