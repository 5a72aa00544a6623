// The independent verifier CLI (`pfws-verify all`) over the whole history, as a third party runs it.
import { spawn } from 'node:child_process';
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

export async function runVerifier(api: string, expectedReceipts: number): Promise<{ checks: Check[]; ms: number }> {
  const t0 = Date.now();
  const child = spawn(process.execPath, [BIN, 'all', '--api', api, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  const ms = Date.now() - t0;
  let parsed: VerifierJson | null = null;
  try {
    parsed = JSON.parse(out) as VerifierJson;
  } catch {
    // reported below with the exit code and stderr
  }
  if (!parsed) return { checks: [{ name: 'verifier: pfws-verify all passes', held: false, detail: `exit ${code}: ${err.slice(0, 400) || out.slice(0, 400)}` }], ms };
  const failures = parsed.results.flatMap((r) => r.checks.filter((c) => c.status === 'fail').map((c) => `${r.subject}: ${c.name}: ${c.reason ?? ''}`));
  const receiptReports = parsed.results.filter((r) => r.subject.startsWith('receipt')).length;
  return {
    checks: [
      {
        name: 'verifier: pfws-verify all passes',
        held: code === 0 && parsed.ok,
        detail: `exit ${code}, ${parsed.passed}/${parsed.reports} reports passed in ${ms} ms${failures.length ? `; e.g. ${failures.slice(0, 3).join(' | ')}` : ''}`,
      },
      {
        name: 'verifier: every settled play verified',
        held: receiptReports >= expectedReceipts,
        detail: `${receiptReports} receipts verified, ${expectedReceipts} settled plays in the bet log`,
      },
    ],
    ms,
  };
}
