/**
 * Rebuild, don't copy: a receipt is compared with the one `protocol/` builds from its verifiable inputs,
 * field by field, so no copied field (a seed, a payout, `won`, a turn's reveal) goes unchecked. Each
 * difference is reported under the check its field belongs to.
 * @module
 */
import type { CheckName } from './check-names.ts';
import type { Checks } from './report.ts';

const MAX_SHOWN = 5;

/** A field's path as a difference names it: `result.payout`, `input.turns[1].clientSeedRaw`. */
const pathText = (path: readonly (string | number)[]): string => path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i ? `.${p}` : p)).join('') || '.';

// Records where two JSON values differ, with both values. Paths are built only for the fields that differ: the walk
// is on every receipt of a bulk audit.
function walk(got: unknown, want: unknown, path: (string | number)[], out: string[]): void {
  if (out.length >= 64 || got === want) return;
  const at = () => pathText(path);
  if (Array.isArray(got) && Array.isArray(want)) {
    if (got.length !== want.length) out.push(`${at()} has ${got.length} items, expected ${want.length}`);
    for (let i = 0; i < Math.min(got.length, want.length); i++) {
      path.push(i);
      walk(got[i], want[i], path, out);
      path.pop();
    }
    return;
  }
  if (isObj(got) && isObj(want)) return walkObject(got, want, path, out);
  if (!Object.is(got, want)) out.push(`${at()} is ${JSON.stringify(got) ?? 'undefined'}, expected ${JSON.stringify(want) ?? 'undefined'}`);
}

/** The fields of two objects, `except` aside (on both sides): no copy of either is made without it. */
function walkObject(got: Record<string, unknown>, want: Record<string, unknown>, path: (string | number)[], out: string[], except?: string): void {
  const at = () => pathText(path);
  for (const key in want) {
    if (key === except) continue;
    path.push(key);
    if (!Object.hasOwn(got, key)) out.push(`${at()} is missing`);
    else walk(got[key], want[key], path, out);
    path.pop();
  }
  for (const key in got) {
    if (key === except || Object.hasOwn(want, key)) continue;
    path.push(key);
    out.push(`${at()} is not part of the format`);
    path.pop();
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

type RebuiltCheck = Extract<CheckName, 'bet-log-entry' | 'outcome' | 'payout' | 'receipt-fields'>;

const CATEGORIES: [RebuiltCheck, RegExp][] = [
  ['bet-log-entry', /^verifierPayload\.betLogEntry\b/],
  ['outcome', /^(status|closedBy|result\.(roll|rollDisplay|won|status|outcome|rowsWon|resultColumns))\b/],
  ['payout', /^(betAmount|payout|profit|result\.(payout|payoutMicro|profit|multiplierBps))\b/],
];

const REBUILT_CHECKS: readonly RebuiltCheck[] = ['bet-log-entry', 'outcome', 'payout', 'receipt-fields'];

const WHAT: Record<RebuiltCheck, string> = {
  'bet-log-entry': 'the bet-log entry is not the one rebuilt from the verified bet',
  outcome: 'the recorded outcome differs from the recomputed one',
  payout: 'the recorded amounts differ from the recomputed ones',
  'receipt-fields': 'the receipt shows values other than the verified ones',
};

/**
 * Compares a served receipt (its anchor aside) with the rebuilt one and records `bet-log-entry`,
 * `outcome`, `payout` and `receipt-fields`, each failing with the fields of its kind that differ.
 */
export function compareRebuilt(checks: Checks, served: Record<string, unknown>, rebuilt: Record<string, unknown>): boolean {
  const diffs: string[] = [];
  walkObject(served, rebuilt, [], diffs, 'anchor');
  if (diffs.length === 0) {
    for (const check of REBUILT_CHECKS) checks.pass(check);
    return true;
  }
  const byCheck = new Map<RebuiltCheck, string[]>([
    ['bet-log-entry', []],
    ['outcome', []],
    ['payout', []],
    ['receipt-fields', []],
  ]);
  for (const d of diffs) {
    const check = CATEGORIES.find(([, re]) => re.test(d))?.[0] ?? 'receipt-fields';
    byCheck.get(check)!.push(d);
  }
  for (const [check, list] of byCheck) {
    if (list.length === 0) {
      checks.pass(check);
      continue;
    }
    const more = list.length > MAX_SHOWN ? ` (and ${list.length - MAX_SHOWN} more)` : '';
    checks.fail(check, `${WHAT[check]}: ${list.slice(0, MAX_SHOWN).join('; ')}${more}`);
  }
  return false;
}
