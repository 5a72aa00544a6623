// What a run tried and what held: checks per round, figures, the printed table and the exit verdict.
import { FINDINGS, OPEN_FINDINGS, type FindingId } from './findings.ts';

export interface Check {
  name: string;
  held: boolean;
  detail: string;
  /** Set only on checks of a known, not yet fixed finding (see findings.ts). */
  finding?: FindingId;
}

export interface RoundFigures {
  /** Bets whose commit was acknowledged (signed ack received) in this round. */
  acked: number;
  /** Bets settled by the players' own reveals in this round. */
  settled: number;
  /** Bets resolved by the recovery pass after the fault: requests replayed, pending bets revealed from stored seeds. */
  recovered: number;
  /** Acknowledged bets of this round with no settled receipt at the end of the run. */
  lost: number;
  status5xx: number;
  /** From the fault to the first complete bet after it, in ms. */
  recoverMs: number | null;
  requests: number;
}

export interface RoundReport {
  round: number;
  kind: string;
  tried: string;
  figures: RoundFigures;
  checks: Check[];
  notes: string[];
  /** Wall time of the round. */
  durationMs?: number;
}

export interface FindingStatus {
  finding: FindingId;
  checks: number;
  failing: number;
  /** known: fails as expected; fixed: every check holds, so remove it from OPEN_FINDINGS. */
  state: 'known' | 'fixed-flip-switch' | 'violated' | 'held';
}

export interface ChaosReport {
  seed: string;
  profile: string;
  rounds: RoundReport[];
  durationMs: number;
  workDir: string;
}

export const emptyFigures = (): RoundFigures => ({ acked: 0, settled: 0, recovered: 0, lost: 0, status5xx: 0, recoverMs: null, requests: 0 });

/** Violations: failed checks that belong to no open finding. */
export function violations(report: ChaosReport, open: readonly FindingId[] = OPEN_FINDINGS): { round: number; check: Check }[] {
  return report.rounds.flatMap((r) => r.checks.filter((c) => !c.held && !(c.finding && open.includes(c.finding))).map((check) => ({ round: r.round, check })));
}

/** Each finding with checks in the run: known (still failing), fixed (flip the switch), or held/violated once fixed. */
export function findingStatuses(report: ChaosReport, open: readonly FindingId[] = OPEN_FINDINGS): FindingStatus[] {
  const all = report.rounds.flatMap((r) => r.checks).filter((c) => c.finding);
  const ids = [...new Set(all.map((c) => c.finding!))];
  return ids.map((finding) => {
    const checks = all.filter((c) => c.finding === finding);
    const failing = checks.filter((c) => !c.held).length;
    const isOpen = open.includes(finding);
    const state = isOpen ? (failing ? 'known' : 'fixed-flip-switch') : failing ? 'violated' : 'held';
    return { finding, checks: checks.length, failing, state };
  });
}

export function passed(report: ChaosReport, open: readonly FindingId[] = OPEN_FINDINGS): boolean {
  const lost = report.rounds.reduce((n, r) => n + r.figures.lost, 0);
  return lost === 0 && violations(report, open).length === 0 && !findingStatuses(report, open).some((f) => f.state === 'fixed-flip-switch');
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (i >= 3 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}

export function formatReport(report: ChaosReport, open: readonly FindingId[] = OPEN_FINDINGS): string {
  const held = (r: RoundReport) => {
    const bad = r.checks.filter((c) => !c.held);
    const known = bad.filter((c) => c.finding && open.includes(c.finding)).length;
    const real = bad.length - known;
    return `${r.checks.length - bad.length}/${r.checks.length}${real ? ` ✗${real}` : ''}${known ? ` (known ${known})` : ''}`;
  };
  const rows = [
    ['round', 'tried', 'held', 'acked', 'settled', 'recovered', 'lost', '5xx', 'recover ms', 'requests', 'round s'],
    ...report.rounds.map((r) => [
      String(r.round),
      r.tried,
      held(r),
      String(r.figures.acked),
      String(r.figures.settled),
      String(r.figures.recovered),
      String(r.figures.lost),
      String(r.figures.status5xx),
      r.figures.recoverMs === null ? '-' : String(r.figures.recoverMs),
      String(r.figures.requests),
      r.durationMs === undefined ? '-' : (r.durationMs / 1000).toFixed(1),
    ]),
  ];
  const sum = (f: keyof RoundFigures) => report.rounds.reduce((n, r) => n + (r.figures[f] ?? 0), 0);
  rows.push([
    'total',
    '',
    '',
    String(sum('acked')),
    String(sum('settled')),
    String(sum('recovered')),
    String(sum('lost')),
    String(sum('status5xx')),
    '',
    String(sum('requests')),
    (report.durationMs / 1000).toFixed(1),
  ]);
  const out = [
    `chaos: profile ${report.profile}, seed ${report.seed} (replay with --seed ${report.seed}), ${(report.durationMs / 1000).toFixed(1)} s, work dir ${report.workDir}`,
    '',
    table(rows),
    '',
  ];
  const bad = violations(report, open);
  if (bad.length) {
    out.push('VIOLATIONS:');
    for (const { round, check } of bad) out.push(`  round ${round}: ${check.name}: ${check.detail}`);
    out.push('');
  }
  const findings = findingStatuses(report, open);
  if (findings.length) {
    out.push('findings (switch: chaos/findings.ts OPEN_FINDINGS):');
    for (const f of findings) {
      const label = {
        known: 'still open, fails as expected',
        'fixed-flip-switch': 'EVERY CHECK HOLDS: remove it from OPEN_FINDINGS',
        violated: 'FIXED BUT FAILS AGAIN',
        held: 'fixed, holds',
      }[f.state];
      out.push(`  ${f.finding}: ${label} (${f.checks - f.failing}/${f.checks} checks hold) — ${FINDINGS[f.finding]}`);
      for (const r of report.rounds)
        for (const c of r.checks) if (c.finding === f.finding) out.push(`    ${c.held ? 'holds ' : 'fails '} ${c.name}: ${c.detail}`);
    }
    out.push('');
  }
  for (const r of report.rounds) for (const n of r.notes) out.push(`round ${r.round}: ${n}`);
  out.push('', passed(report, open) ? 'RESULT: every loss and violation check held' : 'RESULT: FAILED');
  return out.join('\n');
}
