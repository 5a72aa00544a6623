// Withdrawals in Redis: the atomic request (balance → pending withdrawals), the keeper's stored transaction, and
// the finish that takes the paid amount out of the books.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';
import { noDeadline, type NotAfter } from './redis.ts';
import type { Scripts } from './scripts.ts';
import { replayArg, type JournalRecord } from './journal-records.ts';
import { storedTxOf, storeKeeperTx, type StoreTxResult, type StoredKeeperTx } from './keeper-jobs.ts';

export type WithdrawalStatus = 'pending' | 'sent' | 'finalized';

export interface WithdrawalRecord {
  id: string;
  wallet: string;
  alias: string;
  amount: bigint;
  status: WithdrawalStatus;
  createdAt: string;
  createdAtMs: number;
  /** The transaction stored before sending (or found on-chain); null until the keeper signs one. */
  stored: StoredKeeperTx | null;
  signature: string | null;
  finalizedAt: string | null;
  /** Why the keeper gave up (a landed transaction failed); the withdrawal waits for an operator. */
  stuck: string | null;
}

export type WithdrawalRequestResult =
  | { kind: 'ok' | 'existing'; id: string }
  | { kind: 'err'; reason: 'insufficient_balance'; balance: bigint }
  /** Redis ran it after the API stopped waiting: nothing was written. */
  | { kind: 'err'; reason: 'late' };

const idempotencyHash = (key: string) => createHash('sha256').update(key).digest('hex');

export class WithdrawalStore {
  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    readonly scripts: Scripts,
    /** When a money-moving script sent now must no longer run (store/redis.ts). */
    readonly notAfter: NotAfter = noDeadline,
  ) {}

  /**
   * Moves `amount` from the balance to pending withdrawals under `id`, once per `idempotencyKey` (per wallet).
   * @returns `existing` with the first withdrawal's id when the key was used before
   */
  async request(
    wallet: string,
    w: { id: string; amount: bigint; at: string; atMs: number; alias: string; idempotencyKey: string },
    /** Ledger recovery only: the archived journal entry of this request, written instead of a new one. */
    replay?: readonly JournalRecord[],
  ): Promise<WithdrawalRequestResult> {
    const k = this.keys;
    const reply = (await this.scripts.requestWithdrawal(
      [
        k.player(wallet),
        k.withdrawalIdempotency(wallet, idempotencyHash(w.idempotencyKey)),
        k.withdrawal(w.id),
        k.withdrawals(wallet),
        k.openWithdrawals(),
        k.house(),
        k.journal(),
        k.journalSeq(),
      ],
      [w.id, wallet, w.amount.toString(), w.at, String(w.atMs), w.alias, this.notAfter(), replayArg(replay)],
    )) as string[];
    if (reply[0] === 'err' && reply[1] === 'late') return { kind: 'err', reason: 'late' };
    if (reply[0] === 'err') return { kind: 'err', reason: 'insufficient_balance', balance: BigInt(reply[2] ?? '0') };
    return { kind: reply[0] as 'ok' | 'existing', id: reply[1] as string };
  }

  async get(id: string): Promise<WithdrawalRecord | null> {
    const r = await this.redis.hgetall(this.keys.withdrawal(id));
    if (!r.wallet) return null;
    return {
      id,
      wallet: r.wallet,
      alias: r.alias ?? '',
      amount: BigInt(r.amount ?? '0'),
      status: (r.status ?? 'pending') as WithdrawalStatus,
      createdAt: r.createdAt ?? '',
      createdAtMs: Number(r.createdAtMs ?? 0),
      stored: storedTxOf(r),
      signature: r.signature || null,
      finalizedAt: r.finalizedAt || null,
      stuck: r.stuck || null,
    };
  }

  /** A wallet's withdrawals, newest first. */
  async ofWallet(wallet: string, limit = 50): Promise<WithdrawalRecord[]> {
    const ids = await this.redis.zrevrange(this.keys.withdrawals(wallet), 0, limit - 1);
    const records = await Promise.all(ids.map((id) => this.get(id)));
    return records.filter((r): r is WithdrawalRecord => r !== null);
  }

  /** Withdrawals not yet finalized (nor stuck), oldest first. */
  async open(limit = 100): Promise<string[]> {
    return this.redis.zrange(this.keys.openWithdrawals(), '0', String(limit - 1));
  }

  storeSigned(id: string, expectedSignature: string | null, tx: StoredKeeperTx): Promise<StoreTxResult> {
    return storeKeeperTx(this.scripts, this.keys.withdrawal(id), expectedSignature, tx);
  }

  /** @returns false when it was finished before */
  async finish(id: string, wallet: string, signature: string, at: string, replay?: readonly JournalRecord[]): Promise<boolean> {
    const k = this.keys;
    const reply = (await this.scripts.finishWithdrawal(
      [k.withdrawal(id), k.player(wallet), k.house(), k.openWithdrawals(), k.journal(), k.journalSeq()],
      [signature, at, replayArg(replay)],
    )) as string[];
    if (reply[0] === 'err') throw new Error(`withdrawal ${id} is not in the ledger`);
    return reply[0] === 'ok';
  }

  async markStuck(id: string, reason: string, at: string): Promise<void> {
    await this.scripts.keeperStuck([this.keys.withdrawal(id), this.keys.openWithdrawals(), this.keys.stuckKeeperJobs()], [id, reason, at]);
  }
}
