// LP flows in Redis: the FIFO queues of LP deposits (to mint) and redemptions (to value), the numbers fixed for each
// job before any transaction is built, the keeper's stored transactions, and each wallet's position at average cost.
import type { Address } from '../protocol/address.ts';
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';
import type { Scripts } from './scripts.ts';
import { replayArg, type JournalRecord } from './journal-records.ts';
import { sentSignaturesOf, storedTxOf, storeKeeperTx, type StoreTxResult, type StoredKeeperTx } from './keeper-jobs.ts';

export type LpJobStatus = 'queued' | 'fixed' | 'sent' | 'done';

export interface LpJobRecord {
  id: string;
  kind: 'mint' | 'redeem';
  wallet: Address;
  alias: string;
  /** A mint: the USDC deposited. */
  amount: bigint;
  /** A mint: shares fixed for it (0 while queued); a redemption: the shares sent back. */
  shares: bigint;
  /** A redemption: the USDC it pays, fixed when valued. */
  value: bigint | null;
  status: LpJobStatus;
  createdAt: string;
  stored: StoredKeeperTx | null;
  /** Every signature the keeper stored for this job (the durable record of its sends). */
  sent: string[];
  signature: string | null;
  stuck: string | null;
}

export interface LpPositionRecord {
  shares: bigint;
  principal: bigint;
}

/** `ok`; `dup` fixed before; `stale` NAV, supply, exposure or the position moved since read; `not_head` not next in line. */
export type FixResult = 'ok' | 'dup' | 'stale' | 'house_closed' | 'not_head' | 'not_found';

const big = (v: string | undefined | null): bigint => (v ? BigInt(v) : 0n);

export class LpStore {
  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    readonly scripts: Scripts,
  ) {}

  /** Records the LP supply the ledger prices with, once (the bootstrap shares minted at genesis). */
  async initSupply(read: () => Promise<bigint>): Promise<void> {
    if ((await this.redis.hexists(this.keys.house(), 'lpSupply')) === 1) return;
    await this.redis.hsetnx(this.keys.house(), 'lpSupply', (await read()).toString());
  }

  async position(wallet: Address): Promise<LpPositionRecord> {
    const [shares, principal] = await this.redis.hmget(this.keys.lpPosition(wallet), 'shares', 'principal');
    return { shares: big(shares), principal: big(principal) };
  }

  async job(id: string): Promise<LpJobRecord | null> {
    const r = await this.redis.hgetall(this.keys.lpJob(id));
    if (!r.kind) return null;
    return {
      id,
      kind: r.kind as LpJobRecord['kind'],
      wallet: (r.wallet ?? '') as Address,
      alias: r.alias ?? '',
      amount: big(r.amount),
      shares: big(r.shares),
      value: r.value !== undefined ? BigInt(r.value) : null,
      status: r.status as LpJobStatus,
      createdAt: r.createdAt ?? '',
      stored: storedTxOf(r),
      sent: sentSignaturesOf(r),
      signature: r.signature || null,
      stuck: r.stuck || null,
    };
  }

  /** LP deposits waiting for their shares, in arrival order. */
  queuedMints(limit = 100): Promise<string[]> {
    return this.redis.lrange(this.keys.lpMintQueue(), 0, limit - 1);
  }

  /** The redemption next in line, if any. */
  redeemHead(): Promise<string | null> {
    return this.redis.lindex(this.keys.lpRedeemQueue(), 0);
  }

  async queuedRedeems(): Promise<number> {
    return this.redis.llen(this.keys.lpRedeemQueue());
  }

  /** Jobs valued but not yet done on-chain (nor stuck), oldest first. */
  openJobs(limit = 100): Promise<string[]> {
    return this.redis.zrange(this.keys.lpOpen(), '0', String(limit - 1));
  }

  /** `replay` (ledger recovery only): the archived journal entry of this step, written instead of a new one. */
  async fixMint(
    job: LpJobRecord,
    p: { navBefore: bigint; supply: bigint; shares: bigint; at: string; atMs: number },
    replay?: readonly JournalRecord[],
  ): Promise<FixResult> {
    const k = this.keys;
    const reply = (await this.scripts.lpFixMint(
      [k.house(), k.lpJob(job.id), k.lpPosition(job.wallet), k.lpMintQueue(), k.lpOpen(), k.journal(), k.journalSeq()],
      { jobId: job.id, navBefore: p.navBefore, supply: p.supply, shares: p.shares, at: p.at, atMs: p.atMs, replay: replayArg(replay) },
    )) as string[];
    return reply[0] === 'err' ? (reply[1] as FixResult) : (reply[0] as FixResult);
  }

  async fixRedeem(
    job: LpJobRecord,
    p: {
      nav: bigint;
      supply: bigint;
      exposure: bigint;
      held: LpPositionRecord;
      value: bigint;
      after: LpPositionRecord;
      principalOut: bigint;
      at: string;
      atMs: number;
    },
    replay?: readonly JournalRecord[],
  ): Promise<FixResult> {
    const k = this.keys;
    const reply = (await this.scripts.lpFixRedeem(
      [k.house(), k.lpJob(job.id), k.lpPosition(job.wallet), k.lpRedeemQueue(), k.lpOpen(), k.journal(), k.journalSeq()],
      {
        jobId: job.id,
        nav: p.nav,
        supply: p.supply,
        exposure: p.exposure,
        heldShares: p.held.shares,
        heldPrincipal: p.held.principal,
        value: p.value,
        newShares: p.after.shares,
        newPrincipal: p.after.principal,
        principalOut: p.principalOut,
        at: p.at,
        atMs: p.atMs,
        replay: replayArg(replay),
      },
    )) as string[];
    return reply[0] === 'err' ? (reply[1] as FixResult) : (reply[0] as FixResult);
  }

  storeSigned(id: string, expectedSignature: string | null, tx: StoredKeeperTx): Promise<StoreTxResult> {
    return storeKeeperTx(this.scripts, this.keys.lpJob(id), expectedSignature, tx);
  }

  /** @returns false when it was finished before */
  async finish(id: string, signature: string, at: string, replay?: readonly JournalRecord[]): Promise<boolean> {
    const k = this.keys;
    const reply = (await this.scripts.finishLpJob(
      [k.lpJob(id), k.house(), k.lpOpen(), k.journal(), k.journalSeq()],
      [id, signature, at, replayArg(replay)],
    )) as string[];
    if (reply[0] === 'err') throw new Error(`LP job ${id} cannot finish: ${reply[1]}`);
    return reply[0] === 'ok';
  }

  async markStuck(id: string, reason: string, at: string): Promise<void> {
    await this.scripts.keeperStuck([this.keys.lpJob(id), this.keys.lpOpen(), this.keys.stuckKeeperJobs()], [id, reason, at]);
  }
}
