// The verifier installs and runs on its own: `npm pack` in verifier/ builds plain JavaScript, the tarball is
// installed into an empty directory, and its `pfws-verify` bin (no tsx, no repository) verifies a running
// service, tells a violation from a verified log, and says when it could not check.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, http } from '../helpers/player.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
let svc: TestService;
let tmp: string;
let bin: string;
let receiptId: string;

async function waitAnchored(): Promise<void> {
  const { redis, keys } = svc.wiring;
  for (let i = 0; i < 300; i++) {
    const [size, state] = await Promise.all([redis.llen(keys.betLog()), redis.hmget(keys.anchor(), 'committedSize', 'filled')]);
    if (size > 0 && Number(state[0]) === size && Number(state[1]) === size) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the bet log was not anchored in time');
}

/** Runs the installed bin; resolves with the exit code instead of rejecting on a non-zero one. */
async function verify(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [bin, ...args], { cwd: tmp, env: { PATH: process.env.PATH ?? '', HOME: tmp } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'pfws-verify-pkg-'));
  svc = await startTestService({ ANCHOR_MAX_DELAY_MS: '100', ANCHOR_MAX_ENTRIES: '2', MANIFEST_MAX_DELAY_MS: '100' });
  const player = await new Player(svc.api, svc.rpcUrl).onboard(50);
  for (let i = 0; i < 3; i++) receiptId = (await player.playDice({ wager: 1, target: 40 + i })).reveal.receiptId;
  await waitAnchored();
  // Pack from the repository (prepack builds), then install the tarball into an empty project.
  await run('npm', ['pack', '--pack-destination', tmp], { cwd: path.join(root, 'verifier') });
  const tarball = readdirSync(tmp).find((f) => f.endsWith('.tgz'))!;
  const app = path.join(tmp, 'app');
  mkdirSync(app);
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', path.join(tmp, tarball)], { cwd: app });
  bin = path.join(app, 'node_modules', 'pfws-verify', 'dist', 'pfws-verify.mjs');
}, 240_000);

afterAll(async () => {
  await svc?.cleanup();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('the packed verifier', () => {
  it('is plain JavaScript with a bin, and nothing of the repository', () => {
    const pkg = JSON.parse(readFileSync(path.join(tmp, 'app/node_modules/pfws-verify/package.json'), 'utf8'));
    expect(pkg.bin).toEqual({ 'pfws-verify': 'dist/pfws-verify.mjs' });
    expect(Object.keys(pkg.dependencies ?? {})).toEqual([]);
    expect(readdirSync(path.join(tmp, 'app/node_modules/pfws-verify')).sort()).toEqual(['README.md', 'dist', 'package.json']);
    const code = readFileSync(bin, 'utf8');
    expect(code.startsWith('#!/usr/bin/env node')).toBe(true);
    // Nothing is loaded from TypeScript sources or through tsx.
    expect(code).not.toMatch(/(from|import\()\s*["'][^"']*(\.ts|tsx[^"']*)["']/);
  });

  it('verifies the running service from outside the repository, on worker threads: exit 0', async () => {
    const r = await verify(['all', '--api', svc.api, '--rpc', svc.rpcUrl, '--state', path.join(tmp, 'state'), '--workers', '2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.verdict).toBe('verified');
    expect(out.results.map((x: { subject: string }) => x.subject)).toContain('bet log entries 0…2 (3 verified)');
    expect(r.stderr).toContain("pinned the service's trust root on first use");
    const monitor = await verify(['monitor', '--once', '--api', svc.api, '--rpc', svc.rpcUrl, '--state', path.join(tmp, 'state')]);
    expect(monitor.code, monitor.stdout).toBe(0);
    expect(JSON.parse(monitor.stdout.trim().split('\n').pop()!)).toMatchObject({ type: 'poll', verdict: 'verified', newEntries: 0, size: 3 });
  });

  it('exits 1 on a violation, 2 when it cannot check, 64 on a usage error', async () => {
    const receipt = (await http('GET', `${svc.api}/receipts/${receiptId}`)).body.receipt;
    receipt.result.won = !receipt.result.won;
    const file = path.join(tmp, 'tampered.json');
    writeFileSync(file, JSON.stringify(receipt));
    const tampered = await verify(['receipt', file, '--api', svc.api, '--rpc', svc.rpcUrl, '--state', path.join(tmp, 'state')]);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toMatch(/✗ outcome: .*result\.won/);
    const unreachable = await verify(['log', '--api', 'http://127.0.0.1:1/api', '--rpc', svc.rpcUrl, '--state', path.join(tmp, 'state')]);
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toContain('could not check');
    expect((await verify(['all', '--workers', 'many'])).code).toBe(64);
  });
});
