// What each attack cost the attacker and what it gained beyond fair outcomes, the printed table and the verdict.
import { formatMicro } from '../../protocol/money.ts';

export interface Check {
  name: string;
  held: boolean;
  detail: string;
}

export interface AttackResult {
  /** The finding of issue 21 it replays (1–5). */
  finding: number;
  attack: string;
  /** What the attacker spent: USDC it no longer holds (negative when fair luck paid it), and SOL. */
  cost: { usdcMicro: bigint; lamports: bigint };
  /**
   * What it gained beyond what fair outcomes explain: USDC, SOL taken from the operator's keys, seconds of delay it
   * put on someone else's play or payout.
   */
  gain: { usdcMicro: bigint; lamports: bigint; delaySec: number | null };
  /** The play or exit it stopped, when it stopped one. */
  blocked: string | null;
  /** The service's answers as the contract and the fix say they must be (code, details, nothing moved). */
  checks: Check[];
  /** Figures behind the numbers, one line each. */
  notes: string[];
  durationMs: number;
  /** The attempt could not run to its end. */
  error?: string;
}

export type Verdict = 'held' | 'PAYS' | 'BLOCKS' | 'WRONG ANSWER' | 'ERROR';

export function verdictOf(r: AttackResult): Verdict {
  if (r.error) return 'ERROR';
  if (r.gain.usdcMicro > 0n || r.gain.lamports > 0n) return 'PAYS';
  if (r.blocked) return 'BLOCKS';
  if (r.checks.some((c) => !c.held)) return 'WRONG ANSWER';
  return 'held';
}

export interface AttackReport {
  profile: string;
  results: AttackResult[];
  durationMs: number;
  serviceStartMs: number;
  workDir: string;
}

export const passed = (report: AttackReport): boolean => report.results.length > 0 && report.results.every((r) => verdictOf(r) === 'held');

export const emptyResult = (finding: number, attack: string): AttackResult => ({
  finding,
  attack,
  cost: { usdcMicro: 0n, lamports: 0n },
  gain: { usdcMicro: 0n, lamports: 0n, delaySec: null },
  blocked: null,
  checks: [],
  notes: [],
  durationMs: 0,
});

/** USDC with all 6 decimals, so that a gain of one micro-USDC shows. */
export const usdc = (micro: bigint): string => {
  const text = formatMicro(micro);
  const [whole, fraction = ''] = text.split('.');
  return `${whole}.${fraction.padEnd(6, '0')}`;
};

function table(rows: string[][], rightAligned: Set<number>): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (rightAligned.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}

export function formatReport(report: AttackReport): string {
  const rows = [
    ['#', 'attack', 'cost USDC', 'cost SOL (lamports)', 'gain USDC', 'gain lamports', 'delay s', 'verdict', 's'],
    ...report.results.map((r) => [
      String(r.finding),
      r.attack,
      usdc(r.cost.usdcMicro),
      String(r.cost.lamports),
      usdc(r.gain.usdcMicro),
      String(r.gain.lamports),
      r.gain.delaySec === null ? '-' : r.gain.delaySec.toFixed(1),
      verdictOf(r),
      (r.durationMs / 1000).toFixed(1),
    ]),
  ];
  const out = [
    `attacks: profile ${report.profile}, ${(report.durationMs / 1000).toFixed(1)} s (service started in ${(report.serviceStartMs / 1000).toFixed(1)} s), work dir ${report.workDir}`,
    '',
    table(rows, new Set([2, 3, 4, 5, 6, 8])),
    '',
    'cost: what the attacker spent (negative: fair luck paid it); gain: beyond what fair outcomes explain, taken from others;',
    'delay: extra seconds its play put on someone else. An attack that gains anything or blocks play fails the run.',
    '',
  ];
  for (const r of report.results) {
    out.push(`${r.finding} ${r.attack} — ${verdictOf(r)}`);
    if (r.error) out.push(`    error: ${r.error}`);
    if (r.blocked) out.push(`    blocked: ${r.blocked}`);
    for (const c of r.checks) out.push(`    ${c.held ? 'holds' : 'FAILS'}  ${c.name}: ${c.detail}`);
    for (const n of r.notes) out.push(`    ${n}`);
  }
  out.push('', passed(report) ? 'RESULT: no attack paid or blocked play' : 'RESULT: FAILED');
  return out.join('\n');
}
