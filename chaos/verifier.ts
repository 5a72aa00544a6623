// The independent verifier CLI (`pfws-verify all`) over the whole history, as a third party runs it.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Check } from './report.ts';

const BIN = path.resolve(import.meta.dirname, '..', 'bin', 'pfws-verify.mjs');

interface VerifierJson {
  ok: boolean;
  reports: number;
  passed: number;
  failed: number;
  results: { subject: string; ok: boolean; checks: { name: string; status: string; reason?: string }[] }[];
}

/**
 * Runs `pfws-verify all` against `api`, reading the chain through `rpcUrl` and pinning the trust root in its own
 * home, as an outside auditor would; every entry the chain commits must be verified.
 */
export async function runVerifier(api: string, rpcUrl: string, expectedEntries: number): Promise<{ checks: Check[]; ms: number }> {
  const t0 = Date.now();
  const home = await mkdtemp(path.join(os.tmpdir(), 'pfws-chaos-verify-'));
  const child = spawn(process.execPath, [BIN, 'all', '--api', api, '--rpc', rpcUrl, '--json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PFWS_VERIFY_HOME: home },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  // 'close', not 'exit': the report must be read to its end.
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  const ms = Date.now() - t0;
  await rm(home, { recursive: true, force: true });
  let parsed: VerifierJson | null = null;
  try {
    parsed = JSON.parse(out) as VerifierJson;
  } catch {
    // reported below with the exit code and stderr
  }
  if (!parsed)
    return { checks: [{ name: 'verifier: pfws-verify all passes', held: false, detail: `exit ${code}: ${err.slice(0, 400) || out.slice(0, 400)}` }], ms };
  const failures = parsed.results.flatMap((r) =>
    r.checks.filter((c) => c.status !== 'pass' && c.status !== 'skip').map((c) => `${r.subject}: ${c.name}: ${c.reason ?? ''}`),
  );
  // The log audit reports "bet log entries 0…N-1 (N verified)".
  const verified = parsed.results.map((r) => /\((\d+) verified\)/.exec(r.subject)?.[1]).find((n) => n !== undefined);
  return {
    checks: [
      {
        name: 'verifier: pfws-verify all passes',
        held: code === 0 && parsed.ok,
        detail: `exit ${code}, ${parsed.passed}/${parsed.reports} reports passed in ${ms} ms${failures.length ? `; e.g. ${failures.slice(0, 3).join(' | ')}` : ''}`,
      },
      {
        name: 'verifier: every settled play verified',
        held: Number(verified ?? 0) >= expectedEntries,
        detail: `${verified ?? 0} bet-log entries verified, ${expectedEntries} settled plays in the bet log`,
      },
    ],
    ms,
  };
}
