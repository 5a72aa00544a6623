// Readable and JSON renderings of verification reports, and the exit codes that tell them apart.
import { verdictOf, type Report, type Verdict } from '../protocol/verify/report.ts';

/** Exit codes: verified, violation found, could not check, and a usage error (sysexits' EX_USAGE). */
export const EXIT = { verified: 0, violation: 1, unverified: 2, usage: 64 } as const;

export const exitCodeOf = (verdict: Verdict): number => EXIT[verdict];

export interface Summary {
  verdict: Verdict;
  ok: boolean;
  reports: number;
  passed: number;
  failed: number;
  unchecked: number;
}

export function summarize(reports: readonly Report[]): Summary {
  const failed = reports.filter((r) => r.checks.some((c) => c.status === 'fail')).length;
  const unchecked = reports.filter((r) => !r.checks.some((c) => c.status === 'fail') && r.checks.some((c) => c.status === 'error')).length;
  const verdict = verdictOf(reports);
  return { verdict, ok: verdict === 'verified', reports: reports.length, passed: reports.length - failed - unchecked, failed, unchecked };
}

const HEADLINE: Record<Verdict, string> = {
  verified: 'Verified: every check passed',
  violation: 'VIOLATION FOUND',
  unverified: 'NOT VERIFIED: some checks could not be done',
};

/**
 * One line per report; failed and unchecked ones list their failing checks with the reason. `verbose`
 * lists every check, skipped ones with why.
 */
export function formatText(reports: readonly Report[], verbose = false): string {
  const lines: string[] = [];
  for (const r of reports) {
    const failed = r.checks.filter((c) => c.status === 'fail').length;
    const errors = r.checks.filter((c) => c.status === 'error').length;
    const passed = r.checks.filter((c) => c.status === 'pass').length;
    const tag = failed ? 'FAIL' : errors ? '????' : 'PASS';
    lines.push(`${tag}  ${r.subject}  (${passed} passed${failed ? `, ${failed} failed` : ''}${errors ? `, ${errors} not checked` : ''})`);
    for (const c of r.checks) {
      if (c.status === 'fail') lines.push(`      ✗ ${c.name}: ${c.reason ?? 'failed'}`);
      else if (c.status === 'error') lines.push(`      ? ${c.name}: could not check: ${c.reason ?? ''}`);
      else if (verbose && c.status === 'skip') lines.push(`      - ${c.name}: skipped (${c.reason ?? ''})`);
      else if (verbose) lines.push(`      ✓ ${c.name}`);
    }
  }
  const s = summarize(reports);
  lines.push(
    '',
    `${HEADLINE[s.verdict]}: ${s.passed} of ${s.reports} reports passed${s.failed ? `, ${s.failed} failed` : ''}${s.unchecked ? `, ${s.unchecked} not fully checked` : ''}.`,
  );
  return lines.join('\n');
}

export const formatJson = (reports: readonly Report[], extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ ...summarize(reports), ...extra, results: reports }, null, 2);
