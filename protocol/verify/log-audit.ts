/**
 * The whole bet log, entry by entry, in log order: each entry's leaf (from the published entry bundles)
 * must be the leaf rebuilt from its receipt, the log's root at every size the chain commits must be
 * reproduced (so a fork or a rewritten entry shows), each RNG index is used once, every reveal links to
 * a committed chain head, and every receipt passes its own checks.
 *
 * It extends a {@link CompactRange}: from empty for a full audit, or from a saved state, so a monitor
 * verifies only what is new and still proves consistency with everything it verified before.
 * @module
 */
import type { CompactRange } from '../compact-range.ts';
import { fromHex, toHex } from '../encoding.ts';
import type { CheckName } from './check-names.ts';
import { Checks, Tally, type Check, type Report } from './report.ts';
import { chainChecks, receiptReport, type ReceiptContext, type ReceiptInspection } from './receipt.ts';
import { checkSessionKey, type SessionKeyLookup } from './session-key.ts';
import { IndexSet } from './index-set.ts';

/** A root the log must have at a size: an on-chain commit, or a signed checkpoint. */
export interface ExpectedRoot {
  rootHex: string;
  /** What named it, for the message: `the commit in <signature>`, `the checkpoint`. */
  source: string;
}

export interface LogAuditOptions {
  /** The verified range this audit extends (empty for a full audit). */
  range: CompactRange;
  /** Roots to reproduce, by size. */
  roots: ReadonlyMap<number, ExpectedRoot>;
  /** RNG indices already used, per chain head (a monitor's saved state); updated in place. */
  used?: Map<string, IndexSet>;
  /** Chain state for each receipt's remaining checks (RNG links, its anchor's commit memo). */
  context: Omit<ReceiptContext, 'ackPublicKey' | 'sessionKey'>;
  /**
   * Full reports kept for failing receipts, at most.
   * @defaultValue 200
   */
  maxReports?: number;
}

/** One log entry as read: its leaf from the entry bundle, and its receipt's inspection (null when not served). */
export interface AuditEntry {
  index: number;
  leafHex: string;
  inspection: ReceiptInspection | null;
  /** Why the receipt is missing: withheld by the service (a violation) or not reachable. */
  problem?: { reason: string; withheld: boolean } | null;
}

// `turn[3].commitment` and `commitment` count as one check across receipts. Names are few and repeat on
// every receipt: each is stripped once.
const baseNames = new Map<CheckName, CheckName>();
const baseName = (name: CheckName): CheckName => {
  let base = baseNames.get(name);
  if (base === undefined) {
    base = name.replace(/^turn\[\d+\]\./, '') as CheckName;
    if (baseNames.size < 4096) baseNames.set(name, base);
  }
  return base;
};

/**
 * The bets one session key committed, checked against its on-chain history once it is looked up, after the run.
 * Columns rather than an object per bet: a run holds one row per entry until the end, and its audit of millions
 * of entries should not hold millions of objects.
 */
interface KeyUses {
  /** One bet's payload hash: the service's pointer to the key's setup is looked up by it. */
  betPayloadHash: string;
  checks: CheckName[];
  receiptIds: string[];
  committedAt: string[];
}

export class LogAudit {
  readonly range: CompactRange;
  readonly used: Map<string, IndexSet>;
  readonly #opts: LogAuditOptions;
  readonly #from: number;
  readonly #served = new Tally('entries-served');
  readonly #leaves = new Tally('entry-leaves');
  readonly #roots = new Tally('commit-roots');
  readonly #unique = new Tally('rng-index-unique');
  readonly #receipts = new Tally('receipts');
  readonly #byName = new Map<CheckName, { pass: number; fail: string[]; error: string[] }>();
  /** Check lists with no failure, and how many receipts had each (see #tallyReceipt). */
  readonly #cleanLists = new Map<readonly Check[], number>();
  readonly #failed: Report[] = [];
  #failedCount = 0;
  readonly #keys = new Map<string, KeyUses>();
  /** Roots reproduced, by size (for the caller's saved state). */
  readonly reproduced = new Map<number, string>();

  constructor(options: LogAuditOptions) {
    this.#opts = options;
    this.range = options.range.clone();
    this.#from = this.range.size;
    this.used = options.used ?? new Map();
  }

  get size(): number {
    return this.range.size;
  }

  /**
   * Adds the next entry (entries must come in log order, without gaps).
   * @throws {RangeError} when `entry.index` is not the next index
   */
  add(entry: AuditEntry): void {
    if (entry.index !== this.range.size) throw new RangeError(`entry ${entry.index} is not the next entry (${this.range.size})`);
    this.range.append(fromHex(entry.leafHex, 32));
    const expected = this.#opts.roots.get(this.range.size);
    if (expected) {
      const root = toHex(this.range.root());
      this.reproduced.set(this.range.size, root);
      this.#roots.item(
        root === expected.rootHex
          ? null
          : `${expected.source} names root ${expected.rootHex.slice(0, 12)}… for size ${this.range.size}, the published entries give ${root.slice(0, 12)}… (a fork or a rewritten entry)`,
      );
    }
    const { inspection } = entry;
    if (!inspection) {
      const reason = `entry ${entry.index} has no receipt${entry.problem ? `: ${entry.problem.reason}` : ''}`;
      if (entry.problem && !entry.problem.withheld) this.#served.unchecked(reason);
      else this.#served.item(reason);
      return;
    }
    this.#served.item(null);
    const id = inspection.receiptId ?? `#${entry.index}`;
    this.#leaves.item(inspection.leafHex === entry.leafHex ? null : `entry ${entry.index} (${id}) is not the entry rebuilt from its receipt`);
    const chain = chainChecks(inspection, this.#opts.context);
    if (inspection.anchor && inspection.anchor.betLogIndex !== entry.index) {
      chain.push({
        name: 'log-entry',
        status: 'fail',
        reason: `the receipt says index ${inspection.anchor.betLogIndex}, the log has it at ${entry.index}`,
      });
    }
    for (const use of inspection.rngUses) {
      let set = this.used.get(use.head);
      if (!set) {
        set = new IndexSet();
        this.used.set(use.head, set);
      }
      const fresh = set.add(use.index);
      this.#unique.item(fresh ? null : `rng index ${use.index} of chain ${use.head.slice(0, 12)}… is used again by ${id} (entry ${entry.index})`);
      if (!fresh) chain.push({ name: 'rng-index-unique', status: 'fail', reason: `rng index ${use.index} was used by an earlier entry` });
    }
    for (const use of inspection.sessionKeys) {
      let uses = this.#keys.get(use.sessionPubkey);
      if (!uses) {
        uses = { betPayloadHash: use.betPayloadHash, checks: [], receiptIds: [], committedAt: [] };
        this.#keys.set(use.sessionPubkey, uses);
      }
      uses.checks.push(use.check);
      uses.receiptIds.push(id);
      uses.committedAt.push(use.committedAt);
    }
    this.#tallyReceipt(id, inspection, chain);
  }

  /** Entries `[from, to)` that the chain commits but that could not be read (`fail`: withheld; `error`: unreachable). */
  missing(from: number, to: number, reason: string, kind: 'fail' | 'error'): void {
    if (kind === 'fail') this.#served.item(`entries ${from}…${to - 1}: ${reason}`);
    else this.#served.unchecked(`entries ${from}…${to - 1}: ${reason}`);
  }

  /** Each session key the audited entries used, with one bet that names it (for the service's pointer). */
  sessionKeys(): { sessionPubkey: string; betPayloadHash: string }[] {
    return [...this.#keys].map(([sessionPubkey, uses]) => ({ sessionPubkey, betPayloadHash: uses.betPayloadHash }));
  }

  /**
   * Tallies a receipt's checks by name. A list of checks that all pass is usually shared by many receipts
   * (a bulk run's inspections share them): it is counted per list, and expanded by name only at the end.
   */
  #tallyReceipt(id: string, inspection: ReceiptInspection, chain: readonly Check[]): void {
    const own = inspection.checks;
    const clean = own.every((c) => c.status === 'pass' || c.status === 'skip');
    if (clean) {
      this.#cleanLists.set(own, (this.#cleanLists.get(own) ?? 0) + 1);
      if (this.#cleanLists.size > 1024) this.#expandCleanLists();
    }
    const bad = this.#tallyChecks(id, clean ? [] : own) | this.#tallyChecks(id, chain);
    // Nothing failed or erred (bad is 0) on nearly every receipt: the list of failures is built only when one may be.
    const failed = bad ? [...(clean ? [] : own), ...chain].filter((c) => c.status === 'fail').map((c) => c.name) : [];
    this.#receipts.item(failed.length ? `${id}: ${failed.join(', ')}` : null);
    if (bad) {
      this.#failedCount++;
      if (this.#failed.length < (this.#opts.maxReports ?? 200)) {
        const report = receiptReport(inspection, chain);
        this.#failed.push(Object.assign(report, { ok: !report.checks.some((c) => c.status === 'fail') }));
      }
    }
  }

  /** @returns 1 when a check failed or could not be done, else 0 */
  #tallyChecks(id: string, checks: readonly Check[]): number {
    let bad = 0;
    for (const c of checks) {
      if (c.status === 'skip') continue;
      const counts = this.#countsOf(c.name);
      if (c.status === 'pass') counts.pass++;
      else {
        (c.status === 'fail' ? counts.fail : counts.error).push(id);
        bad = 1;
      }
    }
    return bad;
  }

  #countsOf(name: CheckName): { pass: number; fail: string[]; error: string[] } {
    const base = baseName(name);
    let counts = this.#byName.get(base);
    if (!counts) {
      counts = { pass: 0, fail: [], error: [] };
      this.#byName.set(base, counts);
    }
    return counts;
  }

  #expandCleanLists(): void {
    for (const [list, receipts] of this.#cleanLists) for (const c of list) if (c.status === 'pass') this.#countsOf(c.name).pass += receipts;
    this.#cleanLists.clear();
  }

  /**
   * Checks each bet's session key against its on-chain history, then returns the audit's summary
   * report followed by a report per failing receipt.
   */
  finish(lookup: (sessionPubkey: string) => SessionKeyLookup | undefined, subject?: string): Report[] {
    const keys = new Tally('session-key');
    for (const [sessionPubkey, uses] of this.#keys) {
      const found = lookup(sessionPubkey);
      for (let i = 0; i < uses.receiptIds.length; i++) {
        const receiptId = uses.receiptIds[i] as string;
        const use = { check: uses.checks[i] as CheckName, sessionPubkey, committedAt: uses.committedAt[i] as string };
        const checks = new Checks();
        checkSessionKey(use, found, checks);
        const c = checks.list[0] as Check;
        if (c.status === 'fail') keys.item(`${receiptId}: ${c.reason}`);
        else if (c.status === 'error') keys.unchecked(`${receiptId}: ${c.reason}`);
        else if (c.status === 'pass') keys.item(null);
        if (c.status === 'fail' || c.status === 'error') {
          const existing = this.#failed.find((r) => r.subject === `receipt ${receiptId}`);
          if (existing) {
            existing.checks.push(c);
            existing.ok = existing.ok && c.status !== 'fail';
          } else if (this.#failed.length < (this.#opts.maxReports ?? 200)) {
            this.#failed.push({ subject: `receipt ${receiptId}`, ok: c.status !== 'fail', checks: [c] });
          }
        }
      }
    }
    this.#expandCleanLists();
    const checks = new Checks();
    this.#served.record(checks, 'no entries to read');
    this.#leaves.record(checks, 'no entries to read');
    this.#roots.record(checks, 'no commit or checkpoint size in this range');
    this.#unique.record(checks, 'no RNG index used');
    keys.record(checks, 'no session key used');
    this.#receipts.record(checks, 'no receipts');
    for (const [name, counts] of [...this.#byName].sort(([a], [b]) => a.localeCompare(b))) {
      const total = counts.pass + counts.fail.length + counts.error.length;
      const list = (ids: string[]) => `${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ` (and ${ids.length - 5} more)` : ''}`;
      if (counts.fail.length) checks.fail(name, `${counts.fail.length} of ${total} receipts fail it: ${list(counts.fail)}`);
      else if (counts.error.length) checks.error(name, `${counts.error.length} of ${total} receipts could not be checked: ${list(counts.error)}`);
      else checks.pass(name);
    }
    const extra = this.#failedCount > this.#failed.length ? ` (${this.#failedCount - this.#failed.length} more failing receipts not listed)` : '';
    const summary = checks.report(subject ?? `bet log entries ${this.#from}…${this.range.size - 1} (${this.range.size - this.#from} verified)${extra}`);
    return [summary, ...this.#failed];
  }
}
