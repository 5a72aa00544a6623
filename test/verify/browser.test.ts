// The verifier's core runs in a browser: bundled for `platform: 'browser'` (a Node built-in anywhere in its
// imports fails the build) and run in a bare V8 context that has only web-standard globals.
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/verify/v1.json', import.meta.url), 'utf8'));

async function bundle(): Promise<string> {
  const out = await build({
    entryPoints: [new URL('./fixture-check.ts', import.meta.url).pathname],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    globalName: 'pfwsVerify',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return out.outputFiles[0]!.text;
}

function browserLike() {
  // What a page offers (atob and btoa are in every browser and worker); deliberately no process, Buffer, require or node:crypto.
  const context = vm.createContext({
    TextEncoder,
    TextDecoder,
    URL,
    atob,
    btoa,
    console,
    crypto: { getRandomValues: crypto.getRandomValues.bind(crypto) },
  });
  expect(vm.runInContext('typeof process + typeof Buffer + typeof require', context)).toBe('undefinedundefinedundefined');
  return context;
}

describe('verifier core in a browser', () => {
  it('bundles with no Node built-in and verifies the saved receipts, manifests and commit log', async () => {
    const context = browserLike();
    vm.runInContext(await bundle(), context);
    context.input = structuredClone(fixture);
    const result = vm.runInContext('pfwsVerify.verifyFixture(input)', context);
    expect(result.backend).toBe('noble');
    expect(result.receipts).toHaveLength(fixture.receipts.length);
    for (const r of result.receipts) expect(r.failed).toEqual([]);
    expect(result.receipts.every((r: { ok: boolean }) => r.ok)).toBe(true);
    expect(result.manifestsOk).toBe(true);
    expect(result.logFailures).toEqual([]);
  });

  it('catches a changed payout there too', async () => {
    const context = browserLike();
    vm.runInContext(await bundle(), context);
    const tampered = structuredClone(fixture);
    const won = tampered.receipts.find((r: { game: string; status: string }) => r.game === 'dice' && r.status === 'won');
    won.verifierPayload.betLogEntry.payout = String(BigInt(won.verifierPayload.betLogEntry.payout) + 1n);
    context.input = tampered;
    const result = vm.runInContext('pfwsVerify.verifyFixture(input)', context);
    expect(result.receipts.filter((r: { ok: boolean }) => !r.ok)).toHaveLength(1);
  });
});
