// Structured verification results: every check passes, fails with a reason, or is skipped with a reason.

export type CheckStatus = 'pass' | 'fail' | 'skip';

/** One named check; `reason` says why it failed or was skipped. */
export interface Check {
  name: string;
  status: CheckStatus;
  reason?: string;
}

/** All checks about one subject (a receipt, the manifest chain, the commit log, a state proof). */
export interface Report {
  subject: string;
  /** True when no check failed. */
  ok: boolean;
  checks: Check[];
}

/** Collects checks in order; names are stable identifiers that tools may match on. */
export class Checks {
  readonly list: Check[] = [];

  pass(name: string): void {
    this.list.push({ name, status: 'pass' });
  }

  fail(name: string, reason: string): void {
    this.list.push({ name, status: 'fail', reason });
  }

  skip(name: string, reason: string): void {
    this.list.push({ name, status: 'skip', reason });
  }

  /** Records `result`: true or `{ ok: true }` passes; otherwise fails with the given or returned reason. */
  add(name: string, result: boolean | { ok: true } | { ok: false; reason: string }, reason = 'check failed'): boolean {
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

/**
 * One check over many items (every commit, every manifest): passes when no item failed, else fails
 * naming the first few failures and how many there were.
 */
export class Tally {
  readonly #reasons: string[] = [];
  #items = 0;

  constructor(readonly name: string) {}

  /** Counts an item; a string is its failure reason. */
  item(failure?: string | null): void {
    this.#items++;
    if (failure) this.#reasons.push(failure);
  }

  get failed(): boolean {
    return this.#reasons.length > 0;
  }

  record(checks: Checks, emptyReason = 'nothing to check'): void {
    if (this.#items === 0) {
      checks.skip(this.name, emptyReason);
      return;
    }
    if (!this.#reasons.length) {
      checks.pass(this.name);
      return;
    }
    const shown = this.#reasons.slice(0, 5).join('; ');
    const more = this.#reasons.length > 5 ? ` (and ${this.#reasons.length - 5} more)` : '';
    checks.fail(this.name, `${this.#reasons.length} of ${this.#items} failed: ${shown}${more}`);
  }
}
