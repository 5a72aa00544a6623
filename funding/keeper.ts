/**
 * The keeper: pays withdrawals, mints LP shares and pays LP redemptions from the vault, signed by the keeper key
 * (which lives only on worker hosts), under the send rules of design §3.
 *
 * Every job reconciles from the chain before any send (chain/keeper-transactions.ts `readKeeperJobState` and
 * `decideKeeperSend`). It stores the signed transaction, its signature and lastValidBlockHeight before sending it; a
 * retry re-sends the same bytes; a new transaction is built only when the stored one's blockhash expired, its
 * signature's status is null and no keeper memo of the job is on-chain. So a keeper killed at any point neither pays
 * twice nor loses the job. LP numbers (shares minted, USDC paid) are fixed in the ledger before any transaction is
 * built, so a rebuilt transaction carries the same ones.
 * @module
 */
import type { Logger } from 'pino';
import type { ChainSetup } from '../chain/genesis.ts';
import {
  buildLpMint,
  buildLpRedemptionPayout,
  buildWithdrawal,
  decideKeeperSend,
  readKeeperJobState,
  type KeeperTransaction,
} from '../chain/keeper-transactions.ts';
import type { SolanaRpc } from '../chain/rpc.ts';
import { sendWire } from '../chain/send.ts';
import type { OperatorKey } from '../operator/keys.ts';
import { limitsOf, type LimitSettings } from '../protocol/house.ts';
import { freeLiquidity, redeemFromPosition, redemptionValue, sharesForDeposit } from '../protocol/lp-shares.ts';
import { lpMintMemo, lpPayMemo, withdrawMemo } from '../protocol/memo.ts';
import type { StoreTxResult, StoredKeeperTx } from '../store/keeper-jobs.ts';
import type { LedgerStore } from '../store/ledger.ts';
import type { LpJobRecord, LpStore } from '../store/lp.ts';
import type { WithdrawalStore } from '../store/withdrawals.ts';
import type { ReplicationBarrier } from '../store/replication.ts';

/** One keeper job as the send machinery sees it, whatever it pays. */
export interface SendJob {
  kind: 'withdraw' | 'lp-mint' | 'lp-pay';
  id: string;
  memo: string;
  stored: StoredKeeperTx | null;
  createdAtMs: number;
}

/** Points where tests stop the keeper, to prove a restart from each is safe. */
export interface KeeperHooks {
  /** Signed, not yet stored. */
  afterSign?(job: SendJob, tx: KeeperTransaction): Promise<void>;
  /** Stored, not yet sent. */
  beforeSend?(job: SendJob, tx: KeeperTransaction): Promise<void>;
  /** Sent, not yet marked as landed. */
  afterSend?(job: SendJob, tx: KeeperTransaction): Promise<void>;
}

export interface KeeperDeps {
  withdrawals: WithdrawalStore;
  lp: LpStore;
  ledger: Pick<LedgerStore, 'house'>;
  rpc: SolanaRpc;
  setup: Pick<ChainSetup, 'usdcMint' | 'lpMint' | 'vaultTokenAccount'>;
  /** The keeper key: the vault's owner and the LP mint authority. */
  keeperKey: OperatorKey;
  limits: LimitSettings;
  /** A payout counts as landed at this commitment (finalized in production). */
  commitment: 'confirmed' | 'finalized';
  clock: () => Date;
  logger: Logger;
  /** The stored transaction and the LP numbers it carries are on the replicas before it is sent. */
  replication: ReplicationBarrier;
}

export interface KeeperOptions {
  hooks?: KeeperHooks;
  /**
   * How long one job keeps reconciling (waiting for its transaction to land) before it yields to the next pass.
   * @defaultValue 10000
   */
  settleBudgetMs?: number;
}

/** `done`: finished in the ledger; `pending`: a later pass goes on; `stuck`: left for an operator. */
export type StepResult = 'done' | 'pending' | 'stuck';

/** A landed keeper transaction failed: nothing moved, and the send rules allow no automatic rebuild. */
export class KeeperStuckError extends Error {
  override readonly name = 'KeeperStuckError';
}

// How far before a job's creation the memo scan looks, against clock skew between the ledger and block times.
const MEMO_SCAN_MARGIN_S = 600;
// CAS retries when NAV or the supply moved between the read and the fixing script.
const FIX_ATTEMPTS = 20;

export class Keeper {
  readonly hooks: KeeperHooks;
  readonly #budgetMs: number;
  /** The redemption last reported as waiting for liquidity, so each wait is logged once. */
  #waiting: string | null = null;

  constructor(
    readonly deps: KeeperDeps,
    options: KeeperOptions = {},
  ) {
    this.hooks = options.hooks ?? {};
    this.#budgetMs = options.settleBudgetMs ?? 10_000;
  }

  get #log() {
    return this.deps.logger;
  }

  /** Pays one withdrawal (or records it landed); repeats until it lands or the budget is spent. */
  async runWithdrawal(id: string): Promise<StepResult> {
    const { withdrawals } = this.deps;
    return this.#repeat(async () => {
      const w = await withdrawals.get(id);
      if (!w || w.status === 'finalized') return 'done';
      if (w.stuck) return 'stuck';
      const job: SendJob = { kind: 'withdraw', id, memo: withdrawMemo(id), stored: w.stored, createdAtMs: w.createdAtMs };
      return this.#advance(job, {
        build: () => buildWithdrawal(this.deps.rpc, this.deps.setup, this.deps.keeperKey.signer, { wallet: w.wallet, amount: w.amount, withdrawalId: id }),
        store: (expected, tx) => withdrawals.storeSigned(id, expected, tx),
        finish: async (signature) => {
          await withdrawals.finish(id, w.wallet, signature, this.deps.clock().toISOString());
        },
        stuck: (reason) => withdrawals.markStuck(id, reason, this.deps.clock().toISOString()),
      });
    });
  }

  /** Mints or pays one valued LP job (or records it landed); repeats until it lands or the budget is spent. */
  async runLpJob(id: string): Promise<StepResult> {
    const { lp } = this.deps;
    return this.#repeat(async () => {
      const job = await lp.job(id);
      if (!job || job.status === 'done') return 'done';
      if (job.stuck) return 'stuck';
      if (job.status === 'queued') return 'pending';
      const at = () => this.deps.clock().toISOString();
      // A deposit too small for one share mints nothing; its USDC stays in LP equity.
      if (job.kind === 'mint' && job.shares === 0n) {
        await lp.finish(id, '', at());
        return 'done';
      }
      const send: SendJob = {
        kind: job.kind === 'mint' ? 'lp-mint' : 'lp-pay',
        id,
        memo: job.kind === 'mint' ? lpMintMemo(id) : lpPayMemo(id),
        stored: job.stored,
        createdAtMs: Date.parse(job.createdAt) || 0,
      };
      return this.#advance(send, {
        build: () => this.#buildLp(job),
        store: (expected, tx) => lp.storeSigned(id, expected, tx),
        finish: async (signature) => {
          await lp.finish(id, signature, at());
        },
        stuck: (reason) => lp.markStuck(id, reason, at()),
      });
    });
  }

  #buildLp(job: LpJobRecord): Promise<KeeperTransaction> {
    const { rpc, setup, keeperKey } = this.deps;
    if (job.kind === 'mint') return buildLpMint(rpc, setup, keeperKey.signer, { wallet: job.wallet, shares: job.shares, jobId: job.id });
    return buildLpRedemptionPayout(rpc, setup, keeperKey.signer, { wallet: job.wallet, shares: job.shares, value: job.value ?? 0n, jobId: job.id });
  }

  /**
   * Values what waits: every queued LP deposit in arrival order (its shares at the NAV before it), then redemptions
   * strictly in order while free liquidity covers the one at the head. Nothing is valued while NAV ≤ 0.
   * @returns how many jobs were valued
   */
  async fixLp(): Promise<number> {
    const { lp } = this.deps;
    let fixed = 0;
    for (const id of await lp.queuedMints(100)) {
      const job = await lp.job(id);
      if (job?.status !== 'queued') continue;
      const result = await this.#retryStale(async () => {
        const { nav, totals } = await this.#ledgerNav();
        if (nav <= 0n) return 'house_closed';
        const shares = sharesForDeposit(job.amount, totals.lpSupply, nav);
        const now = this.deps.clock();
        return lp.fixMint(job, { navBefore: nav, supply: totals.lpSupply, shares, at: now.toISOString(), atMs: now.getTime() });
      });
      if (result === 'house_closed') return fixed;
      if (result === 'ok') fixed++;
    }
    for (;;) {
      const head = await lp.redeemHead();
      if (!head) break;
      const job = await lp.job(head);
      if (!job) throw new Error(`LP redemption ${head} is queued but has no record`);
      let waiting = false;
      const result = await this.#retryStale(async () => {
        const { nav, totals } = await this.#ledgerNav();
        if (nav <= 0n) return 'house_closed';
        const supply = totals.lpSupply;
        if (job.shares > supply) throw new Error(`LP redemption ${job.id} names more shares than the ledger's supply`);
        const value = redemptionValue(job.shares, supply, nav);
        // What cannot be paid now waits, in order: the open exposure must stay within maxExposure of what remains.
        if (value > freeLiquidity(nav, totals.exposure, this.deps.limits.maxExposureBps)) {
          waiting = true;
          return 'house_closed';
        }
        const held = await lp.position(job.wallet);
        const { after, principalOut } = redeemFromPosition(held, job.shares);
        const now = this.deps.clock();
        return lp.fixRedeem(job, {
          nav,
          supply,
          exposure: totals.exposure,
          held,
          value,
          after,
          principalOut,
          at: now.toISOString(),
          atMs: now.getTime(),
        });
      });
      if (result === 'ok') fixed++;
      else if (result !== 'dup' && result !== 'not_head') {
        if (waiting && this.#waiting !== job.id) this.#log.info({ jobId: job.id }, 'keeper: LP redemption waits for free liquidity');
        this.#waiting = waiting ? job.id : null;
        break;
      }
    }
    return fixed;
  }

  async #ledgerNav() {
    const totals = await this.deps.ledger.house();
    return { totals, nav: limitsOf(totals, this.deps.limits).nav };
  }

  async #retryStale(fix: () => Promise<string>): Promise<string> {
    let result = 'stale';
    for (let i = 0; i < FIX_ATTEMPTS && result === 'stale'; i++) result = await fix();
    return result;
  }

  async #repeat(step: () => Promise<StepResult>): Promise<StepResult> {
    const deadline = Date.now() + this.#budgetMs;
    for (let delay = 100; ; delay = Math.min(delay * 2, 1_000)) {
      const result = await step();
      if (result !== 'pending' || Date.now() + delay > deadline) return result;
      await new Promise((r) => setTimeout(r, delay));
    }
  }

  /** One reconciliation and, when the send rules allow it, one send. */
  async #advance(
    job: SendJob,
    io: {
      build: () => Promise<KeeperTransaction>;
      store: (expected: string | null, tx: StoredKeeperTx) => Promise<StoreTxResult>;
      finish: (signature: string) => Promise<void>;
      stuck: (reason: string) => Promise<void>;
    },
  ): Promise<StepResult> {
    const { rpc, keeperKey } = this.deps;
    const state = await readKeeperJobState(rpc, {
      keeper: keeperKey.publicKey,
      memo: job.memo,
      stored: job.stored ? { signature: job.stored.signature, lastValidBlockHeight: job.stored.lastValidBlockHeight } : null,
      notBeforeUnix: Math.floor(job.createdAtMs / 1000) - MEMO_SCAN_MARGIN_S,
    });
    const decision = decideKeeperSend(state);
    switch (decision.action) {
      case 'done':
        if (!decision.finalized && this.deps.commitment === 'finalized') return 'pending';
        await io.finish(decision.signature);
        this.#log.info({ job: job.kind, id: job.id, signature: decision.signature }, 'keeper: landed');
        return 'done';
      case 'wait':
      case 'scan':
        return 'pending';
      case 'resend':
        await this.#send(job, job.stored!.wire);
        return 'pending';
      case 'stuck': {
        const reason = `transaction ${decision.signature} failed on-chain: ${JSON.stringify(decision.err, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`;
        await io.stuck(reason);
        this.#log.error({ job: job.kind, id: job.id, reason }, 'keeper: a landed transaction failed; the job waits for an operator');
        return 'stuck';
      }
      case 'build':
      case 'rebuild': {
        const tx = await io.build();
        await this.hooks.afterSign?.(job, tx);
        const stored = await io.store(job.stored?.signature ?? null, tx);
        if (stored === 'done') return 'done';
        // Another keeper stored first, or the record moved: the next pass reads it again.
        if (stored !== 'ok') return 'pending';
        await this.hooks.beforeSend?.(job, tx);
        await this.#send(job, tx.wire);
        await this.hooks.afterSend?.(job, tx);
        return 'pending';
      }
    }
  }

  async #send(job: SendJob, wire: string): Promise<void> {
    // A failover that took back the stored transaction would let a later pass build a second one; if the replicas
    // do not confirm, nothing is sent and the job retries.
    await this.deps.replication.confirm();
    try {
      await sendWire(this.deps.rpc, wire);
    } catch (err) {
      // It may have landed already (a re-send) or may land anyway: the next reconciliation decides.
      this.#log.warn({ err, job: job.kind, id: job.id }, 'keeper: send failed; reconciling next pass');
    }
  }
}
