// Debian's chromium driven by playwright-core: found at /usr/bin/chromium (never downloaded), launched headless
// with a fresh profile. Without it the browser tests skip, except where PFWS_REQUIRE_BROWSER=1 (CI) makes that a failure.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.PFWS_CHROMIUM_PATH ?? '/usr/bin/chromium';
export const browserRequired = process.env.PFWS_REQUIRE_BROWSER === '1';
export const browserPresent = existsSync(CHROMIUM_PATH);

/** Where screenshots go (git-ignored), kept by CI as test artifacts. */
export const ARTIFACTS = path.resolve(import.meta.dirname, '../../test-artifacts/web');

// Headless and quiet: no GPU, no QUIC, no background traffic, no first-run or sync machinery.
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launches chromium; playwright gives each launch a fresh temporary user-data dir and removes it on close. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
}

export const PHONE = { width: 375, height: 812 };
export const DESKTOP = { width: 1280, height: 900 };

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/**
 * Runs axe-core in the page (its source evaluated over the DevTools protocol, so the page's CSP stays in force)
 * and returns the serious and critical violations of WCAG 2.1 A/AA and best practice.
 */
export async function seriousA11yViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Fails the page on any uncaught error or console error, which a user would see as a broken page. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    // The dashboard probes the analytics routes, and a 404 there is an answer it handles; the browser logs it anyway.
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) errors.push(`console: ${msg.text()}`);
  });
  page.on('response', (res) => {
    const url = new URL(res.url());
    const probe = /^\/api\/(activity|rankings|stats)$/.test(url.pathname) && res.status() === 404;
    if (res.status() >= 400 && !probe) errors.push(`${res.status()} ${url.pathname}`);
  });
  return errors;
}
