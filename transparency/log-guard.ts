/**
 * The log never forks (design §13): the ledger's bet log must hold the newest on-chain commit of this anchor key as
 * a prefix — at least as many entries, and the same RFC 6962 root over the first of them — before the anchor signs
 * anything. A ledger restored from an older backup fails this, and the service names both sides and the way out
 * instead of signing a second view of history.
 * @module
 */
import { RECOVER_COMMAND, StartupError } from '../config/startup.ts';

/** A commit the anchor trusts: the newest one on-chain at start, then its own. */
export interface TrustedCommit {
  entryCount: number;
  betLogRoot: string;
  /** The commit transaction. */
  signature: string;
}

/** What the check compares. */
export interface ForkFacts {
  anchorKey: string;
  ledgerSize: number;
  /** The ledger's root over min(its size, the chain's size) entries. */
  ledgerRoot: string;
  chain: TrustedCommit;
}

/** The one message of a refused start, a refused commit and the recovery tool. */
export function forkMessage(f: ForkFacts): string {
  const { chain } = f;
  const ledger =
    f.ledgerSize < chain.entryCount
      ? `the ledger's bet log holds ${f.ledgerSize} entries (root ${f.ledgerRoot})`
      : `the first ${chain.entryCount} of the ledger's ${f.ledgerSize} bet-log entries have root ${f.ledgerRoot}`;
  return (
    `the bet log does not hold the newest on-chain commit of the anchor key ${f.anchorKey} as a prefix: ${ledger}, ` +
    `but the commit ${chain.signature} covers ${chain.entryCount} entries (root ${chain.betLogRoot}). ` +
    'A new commit would fork the anchored log, so the anchor refuses (was Redis restored from an older backup?). ' +
    `The way out: stop the service and run \`${RECOVER_COMMAND}\`, which rebuilds the missing tail from the ClickHouse archive ` +
    'and checks it against the chain; or restore a newer Redis backup. See "Restoring the ledger" in the README.'
  );
}

/** The ledger's log does not extend the chain's newest commit; nothing may be signed on top of it. */
export class LedgerForkError extends StartupError {
  override readonly name = 'LedgerForkError';

  constructor(readonly facts: ForkFacts) {
    super(forkMessage(facts));
  }
}

/** How the check reads the ledger's log. */
export interface LogView {
  size(): Promise<number>;
  /** Roots of the first `size` entries (`size` ≤ the log's size), hex; each source must agree (e.g. the worker's tree and Redis's). */
  roots(size: number): Promise<string[]>;
}

/**
 * Checks that the log extends `trusted`.
 * @throws {LedgerForkError} naming both sizes and both roots
 */
export async function assertLogExtends(log: LogView, trusted: TrustedCommit | null, anchorKey: string): Promise<void> {
  if (!trusted || trusted.entryCount === 0) return;
  const size = await log.size();
  const at = Math.min(size, trusted.entryCount);
  const roots = await log.roots(at);
  const mismatch = roots.find((r) => r !== trusted.betLogRoot) ?? null;
  if (size >= trusted.entryCount && mismatch === null) return;
  throw new LedgerForkError({ anchorKey, ledgerSize: size, ledgerRoot: mismatch ?? roots[0] ?? '', chain: trusted });
}
