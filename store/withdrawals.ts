// Withdrawals in Redis: the atomic request (balance → pending withdrawals), the keeper's work list in fair order, its
// stored transactions, and the two ends: the finish that takes the paid amount out of the books, or the return of
// an amount the keeper could not pay to the balance.
import type { Address } from '../protocol/address.ts';
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';
import { noDeadline, pipelineReplies, type NotAfter } from './redis.ts';
import type { Scripts } from './scripts.ts';
import { replayArg, type JournalRecord } from './journal-records.ts';
import { sentSignaturesOf, storedTxOf, storeKeeperTx, type StoreTxResult, type StoredKeeperTx } from './keeper-jobs.ts';

/** `returned`: the keeper could not pay it (design §3: it never pays rent for the wallet's token account). */
export type WithdrawalStatus = 'pending' | 'sent' | 'finalized' | 'returned';

export interface WithdrawalRecord {
  id: string;
  wallet: Address;
  alias: string;
  amount: bigint;
  status: WithdrawalStatus;
  createdAt: string;
  createdAtMs: number;
  /** The transaction stored before sending (or found on-chain); null until the keeper signs one. */
  stored: StoredKeeperTx | null;
  /** Every signature the keeper stored for it, oldest first: the durable record of what it may have sent. */
  sent: string[];
  signature: string | null;
  finalizedAt: string | null;
  returnedAt: string | null;
  returnReason: string | null;
  /** Why the keeper gave up (a landed transaction failed); the withdrawal waits for an operator. */
  stuck: string | null;
}

export type WithdrawalRequestResult =
  | { kind: 'ok' | 'existing'; id: string }
  | { kind: 'err'; reason: 'insufficient_balance'; balance: bigint }
  /** The Idempotency-Key named a withdrawal of another amount: nothing was written. */
  | { kind: 'err'; reason: 'idempotency_key_reused'; id: string; amount: bigint }
  /** The wallet has `open` withdrawals not yet paid, the most it may. */
  | { kind: 'err'; reason: 'pending_withdrawal_limit'; open: number }
  /** Redis ran it after the API stopped waiting: nothing was written. */
  | { kind: 'err'; reason: 'late' };

/** What a request would meet, read without writing (the script checks it all again, atomically). */
export interface WithdrawalPreview {
  /** The withdrawal this Idempotency-Key already names, with its amount (null for a record that predates amounts). */
  existing: { id: string; amount: bigint | null } | null;
  balance: bigint;
  open: number;
}

/**
 * How far apart one wallet's open withdrawals are spread in the keeper's order: another wallet's request made within
 * this long after a wallet's newest open one goes ahead of that one.
 */
export const FAIR_SHARE_MS = 1_000;

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
   * @returns `existing` with the first withdrawal's id when the key was used before with the same amount
   */
  async request(
    wallet: Address,
    w: { id: string; amount: bigint; at: string; atMs: number; alias: string; idempotencyKey: string; maxPending?: number; fairShareMs?: number },
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
        k.walletOpenWithdrawals(wallet),
        k.openWithdrawals(),
        k.house(),
        k.journal(),
        k.journalSeq(),
      ],
      [
        JSON.stringify({
          id: w.id,
          wallet,
          amount: w.amount.toString(),
          at: w.at,
          atMs: String(w.atMs),
          alias: w.alias,
          notAfterMs: String(this.notAfter()),
          maxPending: String(w.maxPending ?? 0),
          fairShareMs: String(w.fairShareMs ?? FAIR_SHARE_MS),
        }),
        replayArg(replay),
      ],
    )) as string[];
    if (reply[0] !== 'err') return { kind: reply[0] as 'ok' | 'existing', id: reply[1] as string };
    switch (reply[1]) {
      case 'late':
        return { kind: 'err', reason: 'late' };
      case 'idempotency_key_reused':
        return { kind: 'err', reason: 'idempotency_key_reused', id: reply[2] as string, amount: BigInt(reply[3] ?? '0') };
      case 'pending_withdrawal_limit':
        return { kind: 'err', reason: 'pending_withdrawal_limit', open: Number(reply[2] ?? '0') };
      default:
        return { kind: 'err', reason: 'insufficient_balance', balance: BigInt(reply[2] ?? '0') };
    }
  }

  /** What {@link request} would meet now, without writing anything. */
  async preview(wallet: Address, idempotencyKey: string): Promise<WithdrawalPreview> {
    const k = this.keys;
    const [existing, balance, open] = await Promise.all([
      this.redis.get(k.withdrawalIdempotency(wallet, idempotencyHash(idempotencyKey))),
      this.redis.hget(k.player(wallet), 'balance'),
      this.redis.zcard(k.walletOpenWithdrawals(wallet)),
    ]);
    const [id, amount] = existing ? existing.split(' ') : [];
    return { existing: id ? { id, amount: amount ? BigInt(amount) : null } : null, balance: BigInt(balance ?? '0'), open };
  }

  async get(id: string): Promise<WithdrawalRecord | null> {
    return recordOf(id, await this.redis.hgetall(this.keys.withdrawal(id)));
  }

  /** A wallet's withdrawals, newest first. */
  async ofWallet(wallet: Address, limit = 50): Promise<WithdrawalRecord[]> {
    const ids = await this.redis.zrevrange(this.keys.withdrawals(wallet), 0, limit - 1);
    return this.#many(ids);
  }

  /** Withdrawals not yet finalized (nor returned, nor stuck), in the keeper's fair order. */
  async open(limit = 100): Promise<string[]> {
    return this.redis.zrange(this.keys.openWithdrawals(), '0', String(limit - 1));
  }

  /** The records of {@link open}, in the same order. */
  async openRecords(limit = 100): Promise<WithdrawalRecord[]> {
    return this.#many(await this.open(limit));
  }

  async #many(ids: string[]): Promise<WithdrawalRecord[]> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.withdrawal(id));
    const replies = await pipelineReplies(pipeline);
    return ids.flatMap((id, i) => {
      const record = recordOf(id, (replies[i] ?? {}) as Record<string, string>);
      return record ? [record] : [];
    });
  }

  storeSigned(id: string, expectedSignature: string | null, tx: StoredKeeperTx): Promise<StoreTxResult> {
    return storeKeeperTx(this.scripts, this.keys.withdrawal(id), expectedSignature, tx);
  }

  /** @returns false when it was finished before */
  async finish(id: string, wallet: Address, signature: string, at: string, replay?: readonly JournalRecord[]): Promise<boolean> {
    const k = this.keys;
    const reply = (await this.scripts.finishWithdrawal(
      [k.withdrawal(id), k.player(wallet), k.house(), k.openWithdrawals(), k.walletOpenWithdrawals(wallet), k.journal(), k.journalSeq()],
      [signature, at, replayArg(replay)],
    )) as string[];
    if (reply[0] === 'err' && reply[1] === 'returned') throw new Error(`withdrawal ${id} was returned to the balance; it cannot be paid too`);
    if (reply[0] === 'err') throw new Error(`withdrawal ${id} is not in the ledger`);
    return reply[0] === 'ok';
  }

  /**
   * Gives the amount back to the balance, when none of the withdrawal's transactions can land: a compare-and-set on
   * the signature stored when the caller read the record.
   * @returns `ok`; `done` finished or returned before; `stale` another transaction was stored meanwhile
   */
  async returnToBalance(
    id: string,
    wallet: Address,
    expectedSignature: string | null,
    reason: string,
    at: string,
    /** Ledger recovery only: the archived journal entry of this return, written instead of a new one. */
    replay?: readonly JournalRecord[],
  ): Promise<'ok' | 'done' | 'stale' | 'not_found'> {
    const k = this.keys;
    const reply = (await this.scripts.returnWithdrawal(
      [k.withdrawal(id), k.player(wallet), k.house(), k.openWithdrawals(), k.walletOpenWithdrawals(wallet), k.journal(), k.journalSeq()],
      [JSON.stringify({ expectedSignature: expectedSignature ?? '', reason, at }), replayArg(replay)],
    )) as string[];
    return reply[0] === 'ok' ? 'ok' : (reply[1] as 'done' | 'stale' | 'not_found');
  }

  async markStuck(id: string, reason: string, at: string): Promise<void> {
    await this.scripts.keeperStuck([this.keys.withdrawal(id), this.keys.openWithdrawals(), this.keys.stuckKeeperJobs()], [id, reason, at]);
  }
}

function recordOf(id: string, r: Record<string, string>): WithdrawalRecord | null {
  if (!r.wallet) return null;
  return {
    id,
    wallet: r.wallet as Address,
    alias: r.alias ?? '',
    amount: BigInt(r.amount ?? '0'),
    status: (r.status ?? 'pending') as WithdrawalStatus,
    createdAt: r.createdAt ?? '',
    createdAtMs: Number(r.createdAtMs ?? 0),
    stored: storedTxOf(r),
    sent: sentSignaturesOf(r),
    signature: r.signature || null,
    finalizedAt: r.finalizedAt || null,
    returnedAt: r.returnedAt || null,
    returnReason: r.returnReason || null,
    stuck: r.stuck || null,
  };
}
