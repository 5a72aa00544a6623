// Readable and JSON renderings of verification reports.
import type { Report } from '../protocol/verify/report.ts';

export interface Summary {
  ok: boolean;
  reports: number;
  passed: number;
  failed: number;
}

export function summarize(reports: readonly Report[]): Summary {
  const failed = reports.filter((r) => !r.ok).length;
  return { ok: failed === 0, reports: reports.length, passed: reports.length - failed, failed };
}

/**
 * One line per report; failed reports list every failed check with its reason. `verbose` lists every
 * check, skipped ones with why.
 */
export function formatText(reports: readonly Report[], verbose = false): string {
  const lines: string[] = [];
  for (const r of reports) {
    const failed = r.checks.filter((c) => c.status === 'fail');
    const passed = r.checks.filter((c) => c.status === 'pass').length;
    lines.push(`${r.ok ? 'PASS' : 'FAIL'}  ${r.subject}  (${passed} passed${failed.length ? `, ${failed.length} failed` : ''})`);
    for (const c of r.checks) {
      if (c.status === 'fail') lines.push(`      ✗ ${c.name}: ${c.reason ?? 'failed'}`);
      else if (verbose && c.status === 'skip') lines.push(`      - ${c.name}: skipped (${c.reason ?? ''})`);
      else if (verbose) lines.push(`      ✓ ${c.name}`);
    }
  }
  const s = summarize(reports);
  lines.push('', `${s.ok ? 'All checks passed' : 'Verification FAILED'}: ${s.passed} of ${s.reports} reports passed${s.failed ? `, ${s.failed} failed` : ''}.`);
  return lines.join('\n');
}

export const formatJson = (reports: readonly Report[]): string => JSON.stringify({ ...summarize(reports), results: reports }, null, 2);
