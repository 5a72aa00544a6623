/**
 * The keeper pays only from a ledger that is not behind the journal archive (design §13). A Redis restored from an
 * older backup can have lost withdrawals whose payouts already landed on-chain: its balances are from before their
 * debits, so a new request for the same money would be paid a second time. ClickHouse proves it: it holds journal
 * seqs the ledger has not handed out yet.
 *
 * The verdict is read fresh from the archive before every keeper pass (never from a record the restore may have put
 * back), and a payout cannot be taken back, so the keeper pays only on a verdict known now: while the archive cannot
 * be read the verdict is `unknown` and nothing is paid either. The shipper's own verdict (its heartbeat's `stopped`)
 * counts too, since the shipper may read another engine than this process. Each verdict is reported in the `keeper`
 * heartbeat, which `/ready` and the withdrawal request read.
 * @module
 */
import type { Logger } from 'pino';
import { RECOVER_COMMAND } from '../config/startup.ts';
import type { HeartbeatStore } from '../store/heartbeats.ts';

export interface PayoutGateDeps {
  /** The highest journal seq the archive (ClickHouse) holds, 0 when empty. Throws while it cannot be read. */
  archivedSeq: () => Promise<number>;
  /** The seq of the newest journal event the ledger handed out. */
  ledgerSeq: () => Promise<number>;
  heartbeats: Pick<HeartbeatStore, 'read' | 'beat'>;
  clock: () => Date;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /**
   * How often the keeper checks (the heartbeat's interval).
   * @defaultValue 500
   */
  everyMs?: number;
}

export type PayoutVerdict =
  | { state: 'clear'; archiveSeq: number; ledgerSeq: number }
  | { state: 'behind'; archiveSeq: number; ledgerSeq: number; reason: string }
  | { state: 'unknown'; reason: string };

export const behindMessage = (ledgerSeq: number, archiveSeq: number): string =>
  `the ledger's journal is at seq ${ledgerSeq}, behind the archive in ClickHouse, which holds it up to seq ${archiveSeq}: ` +
  'Redis was restored from an older backup, and what it lost may include payouts that already landed on-chain. ' +
  `The keeper pays nothing (withdrawals and LP jobs wait) until the ledger is rebuilt: stop the service and run \`${RECOVER_COMMAND}\`.`;

export class PayoutGate {
  #reported: string | null = null;

  constructor(readonly deps: PayoutGateDeps) {}

  /** The verdict now, reported in the `keeper` heartbeat and logged when it changes. Throws while Redis cannot be read. */
  async check(): Promise<PayoutVerdict> {
    const verdict = await this.#verdict();
    this.#log(verdict);
    const { heartbeats, clock, everyMs = 500 } = this.deps;
    const seqs = verdict.state === 'unknown' ? { archiveSeq: '', ledgerSeq: '' } : { archiveSeq: verdict.archiveSeq, ledgerSeq: verdict.ledgerSeq };
    await heartbeats.beat('keeper', everyMs, { payouts: verdict.state, reason: verdict.state === 'clear' ? '' : verdict.reason, ...seqs }, clock().getTime());
    return verdict;
  }

  async #verdict(): Promise<PayoutVerdict> {
    let archiveSeq: number;
    try {
      archiveSeq = await this.deps.archivedSeq();
    } catch (err) {
      return {
        state: 'unknown',
        reason: `the journal archive (ClickHouse) cannot be read (${(err as Error).message}), so nothing proves the ledger is not behind it: payouts wait until it can be read`,
      };
    }
    // Read after the archive: the ledger only grows, so a ledger seq read later is never below an honest archive's.
    const ledgerSeq = await this.deps.ledgerSeq();
    if (ledgerSeq < archiveSeq) return { state: 'behind', archiveSeq, ledgerSeq, reason: behindMessage(ledgerSeq, archiveSeq) };
    const stopped = (await this.deps.heartbeats.read('shipper'))?.fields.stopped;
    if (stopped) return { state: 'behind', archiveSeq, ledgerSeq, reason: `the analytics shipper stopped: ${stopped}` };
    return { state: 'clear', archiveSeq, ledgerSeq };
  }

  #log(verdict: PayoutVerdict): void {
    const key = verdict.state === 'clear' ? 'clear' : `${verdict.state}:${verdict.reason}`;
    if (key === this.#reported) return;
    const first = this.#reported === null;
    this.#reported = key;
    const { logger } = this.deps;
    if (verdict.state === 'behind') logger.error({ archiveSeq: verdict.archiveSeq, ledgerSeq: verdict.ledgerSeq }, `keeper: payouts halted: ${verdict.reason}`);
    else if (verdict.state === 'unknown') logger.warn(`keeper: payouts wait: ${verdict.reason}`);
    else if (!first)
      logger.info({ archiveSeq: verdict.archiveSeq, ledgerSeq: verdict.ledgerSeq }, 'keeper: the ledger is not behind the archive; payouts go on');
  }
}
