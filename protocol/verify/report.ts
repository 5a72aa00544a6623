// Structured verification results: every check passes, fails with a reason (a violation), could not be
// done (`error`: data missing or unreachable), or is skipped with a reason.

import type { CheckName } from './check-names.ts';

export type CheckStatus = 'pass' | 'fail' | 'error' | 'skip';

/** One named check; `reason` says why it failed or was skipped. */
export interface Check {
  name: CheckName;
  status: CheckStatus;
  reason?: string;
}

/** All checks about one subject (a receipt, the manifest chain, the commit log, a state proof). */
export interface Report {
  subject: string;
  /** True when no check failed (an `error` check is not a violation, but neither is it verified). */
  ok: boolean;
  checks: Check[];
}

/** Collects checks in order; names are stable identifiers that tools may match on. */
export class Checks {
  readonly list: Check[] = [];

  pass(name: CheckName): void {
    this.list.push({ name, status: 'pass' });
  }

  fail(name: CheckName, reason: string): void {
    this.list.push({ name, status: 'fail', reason });
  }

  skip(name: CheckName, reason: string): void {
    this.list.push({ name, status: 'skip', reason });
  }

  /** The check could not be done: the data it needs is missing or unreachable. */
  error(name: CheckName, reason: string): void {
    this.list.push({ name, status: 'error', reason });
  }

  /** Records `result`: true or `{ ok: true }` passes; otherwise fails with the given or returned reason. */
  add(name: CheckName, result: boolean | { ok: true } | { ok: false; reason: string }, reason = 'check failed'): boolean {
    const ok = typeof result === 'boolean' ? result : result.ok;
    if (ok) this.pass(name);
    else this.fail(name, typeof result === 'object' && !result.ok ? result.reason : reason);
    return ok;
  }

  get ok(): boolean {
    return this.list.every((c) => c.status !== 'fail');
  }

  report(subject: string): Report {
    return { subject, ok: this.ok, checks: this.list };
  }
}

/** The failed checks of a report, for summaries. */
export const failures = (report: Report): Check[] => report.checks.filter((c) => c.status === 'fail');

/** What a run established: every check passed, a violation was found, or something could not be checked. */
export type Verdict = 'verified' | 'violation' | 'unverified';

/** A violation anywhere wins; then anything that could not be checked; else verified. */
export function verdictOf(reports: readonly Report[]): Verdict {
  if (reports.some((r) => r.checks.some((c) => c.status === 'fail'))) return 'violation';
  if (reports.some((r) => r.checks.some((c) => c.status === 'error'))) return 'unverified';
  return 'verified';
}

/**
 * One check over many items (every commit, every manifest): passes when no item failed, else fails
 * naming the first few failures and how many there were.
 */
export class Tally {
  readonly #reasons: string[] = [];
  readonly #errors: string[] = [];
  #items = 0;

  constructor(readonly name: CheckName) {}

  /** Counts an item; a string is its failure reason. */
  item(failure?: string | null): void {
    this.#items++;
    if (failure) this.#reasons.push(failure);
  }

  /** Counts an item that could not be checked. */
  unchecked(reason: string): void {
    this.#items++;
    this.#errors.push(reason);
  }

  get failed(): boolean {
    return this.#reasons.length > 0;
  }

  get count(): number {
    return this.#items;
  }

  record(checks: Checks, emptyReason = 'nothing to check'): void {
    if (this.#items === 0) return checks.skip(this.name, emptyReason);
    const summary = (list: string[]) => {
      const shown = list.slice(0, 5).join('; ');
      const more = list.length > 5 ? ` (and ${list.length - 5} more)` : '';
      return `${list.length} of ${this.#items} ${list === this.#reasons ? 'failed' : 'could not be checked'}: ${shown}${more}`;
    };
    if (this.#reasons.length) return checks.fail(this.name, summary(this.#reasons));
    if (this.#errors.length) return checks.error(this.name, summary(this.#errors));
    checks.pass(this.name);
  }
}
