/**
 * The keeper: pays withdrawals, mints LP shares and pays LP redemptions from the vault, signed by the keeper key
 * (which lives only on worker hosts), under the send rules of design §3.
 *
 * Every job reconciles from the chain before any send (chain/keeper-transactions.ts `readKeeperJobStates` and
 * `decideKeeperSend`). It stores the signed transaction, its signature and lastValidBlockHeight before sending it; a
 * retry re-sends the same bytes; a new transaction is built only when the stored one's blockhash expired, its
 * signature's status is null and none of the job's earlier sends (the signatures stored for it) carries its memo
 * on-chain. So a keeper killed at any point neither pays twice nor loses the job. LP numbers (shares minted, USDC
 * paid) are fixed in the ledger before any transaction is built, so a rebuilt transaction carries the same ones.
 *
 * Withdrawals go in passes over the ledger's open set, in its fair order (store/withdrawals.ts) taken round-robin by
 * wallet (payout-order.ts): one batch of status reads for every one in flight, then at most `sendsPerRound` new ones
 * signed and sent without waiting for each to land. The keeper pays only into the wallet's own USDC account and never creates it: a withdrawal whose account is
 * gone (or frozen) when its transaction is built, or whose transaction failed with the account gone, returns to
 * the balance once none of its transactions can land.
 *
 * Every pass (withdrawals, LP valuation, LP sends) first asks the payout gate (payout-gate.ts): while the ledger is
 * behind the journal archive, or that is not known, the pass does nothing.
 * @module
 */
import type { Logger } from 'pino';
import type { ChainSetup } from '../chain/genesis.ts';
import { address, isAddress } from '@solana/kit';
import {
  buildLpMint,
  buildLpRedemptionPayout,
  buildWithdrawal,
  decideKeeperSend,
  NoTokenAccountError,
  readKeeperJobState,
  readKeeperJobStates,
  type KeeperDecision,
  type KeeperTransaction,
} from '../chain/keeper-transactions.ts';
import type { SolanaRpc } from '../chain/rpc.ts';
import { latestBlockhash, sendWire, type RecentBlockhash } from '../chain/send.ts';
import { tokenAccountStates, usdcAccountState, type TokenAccountState } from '../chain/wallet-balance.ts';
import type { OperatorKey } from '../operator/keys.ts';
import { limitsOf, type LimitSettings } from '../protocol/house.ts';
import { freeLiquidity, redeemFromPosition, redemptionValue, sharesForDeposit } from '../protocol/lp-shares.ts';
import { lpMintMemo, lpPayMemo, withdrawMemo } from '../protocol/memo.ts';
import type { StoreTxResult, StoredKeeperTx } from '../store/keeper-jobs.ts';
import type { LedgerStore } from '../store/ledger.ts';
import type { LpJobRecord, LpStore } from '../store/lp.ts';
import type { WithdrawalRecord, WithdrawalStore } from '../store/withdrawals.ts';
import type { ReplicationBarrier } from '../store/replication.ts';
import type { PayoutGate } from './payout-gate.ts';
import { roundRobin } from './payout-order.ts';

/** One keeper job as the send machinery sees it, whatever it pays. */
export interface SendJob {
  kind: 'withdraw' | 'lp-mint' | 'lp-pay';
  id: string;
  memo: string;
  stored: StoredKeeperTx | null;
  /** Every signature stored for the job, oldest first: the durable record of its sends. */
  sent: readonly string[];
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
  /** Whether the ledger may pay: not behind the journal archive, as far as is known now. */
  gate: Pick<PayoutGate, 'check'>;
}

export interface KeeperOptions {
  hooks?: KeeperHooks;
  /**
   * How long one job keeps reconciling (waiting for its transaction to land) before it yields to the next pass.
   * @defaultValue 10000
   */
  settleBudgetMs?: number;
  /**
   * How many withdrawals one pass signs and sends at most (it reconciles every one in flight besides).
   * @defaultValue 32
   */
  sendsPerRound?: number;
  /**
   * How many open withdrawals, in the ledger's fair order, one pass looks at.
   * @defaultValue 1024
   */
  passScan?: number;
}

/** What one withdrawal pass did. */
export interface WithdrawalPass {
  /** New transactions signed (each stored, then sent, unless another keeper stored first); re-sends not counted. */
  signed: number;
  /** Withdrawals ready to send that this pass left for the next (over `sendsPerRound`). */
  deferred: number;
}

/** What a job's store-specific steps are, for the send machinery shared by withdrawals and LP jobs. */
interface JobIo {
  /** Signs a transaction, or says how the step ended without one (a withdrawal returned to the balance). */
  build: () => Promise<KeeperTransaction | StepResult>;
  store: (expected: string | null, tx: StoredKeeperTx) => Promise<StoreTxResult>;
  finish: (signature: string) => Promise<void>;
  /** A landed transaction failed (`failed`), or the record cannot prove its sends will never land. */
  stuck: (reason: string, failed: { signature: string } | null) => Promise<StepResult>;
}

/** `done`: finished in the ledger; `pending`: a later pass goes on; `stuck`: left for an operator. */
export type StepResult = 'done' | 'pending' | 'stuck';

/** A landed keeper transaction failed: nothing moved, and the send rules allow no automatic rebuild. */
export class KeeperStuckError extends Error {
  override readonly name = 'KeeperStuckError';
}

// CAS retries when NAV or the supply moved between the read and the fixing script.
const FIX_ATTEMPTS = 20;

export class Keeper {
  readonly hooks: KeeperHooks;
  readonly #budgetMs: number;
  readonly #sendsPerRound: number;
  readonly #passScan: number;
  /** Withdrawals whose last step threw, and until when a pass leaves them alone, so one cannot hold up the rest. */
  readonly #backoff = new Map<string, { failures: number; untilMs: number }>();
  /** The redemption last reported as waiting for liquidity, so each wait is logged once. */
  #waiting: string | null = null;

  constructor(
    readonly deps: KeeperDeps,
    options: KeeperOptions = {},
  ) {
    this.hooks = options.hooks ?? {};
    this.#budgetMs = options.settleBudgetMs ?? 10_000;
    this.#sendsPerRound = options.sendsPerRound ?? 32;
    this.#passScan = options.passScan ?? 1_024;
  }

  get #log() {
    return this.deps.logger;
  }

  /** Whether this pass may pay (payout-gate.ts); the gate logs and reports why not. */
  async #clear(): Promise<boolean> {
    return (await this.deps.gate.check()).state === 'clear';
  }

  /** Pays one withdrawal (or records it landed, or returns it); repeats until it lands or the budget is spent. */
  async runWithdrawal(id: string): Promise<StepResult> {
    return this.#repeat(async () => {
      if (!(await this.#clear())) return 'pending';
      const w = await this.deps.withdrawals.get(id);
      if (!w) return 'done';
      return (await this.#withdrawalRound([w], false)).results.get(id) ?? 'pending';
    });
  }

  /**
   * One pass over the first `passScan` open withdrawals in the ledger's fair order, taken round-robin by wallet:
   * reconciles every one in flight with one batch of status reads, and signs and sends at most `sendsPerRound` new
   * ones, in that order, without waiting for them to land (a later pass records them). A withdrawal whose step
   * throws is logged and left alone for a while.
   */
  async withdrawalPass(): Promise<WithdrawalPass> {
    if (!(await this.#clear())) return { signed: 0, deferred: 0 };
    const now = Date.now();
    const open = await this.deps.withdrawals.openRecords(this.#passScan);
    const ids = new Set(open.map((w) => w.id));
    for (const id of this.#backoff.keys()) if (!ids.has(id)) this.#backoff.delete(id);
    const records = roundRobin(open.filter((w) => (this.#backoff.get(w.id)?.untilMs ?? 0) <= now));
    const { signed, deferred } = await this.#withdrawalRound(records, true);
    return { signed, deferred };
  }

  async #withdrawalRound(records: readonly WithdrawalRecord[], isolate: boolean) {
    const { rpc, setup, keeperKey } = this.deps;
    const results = new Map<string, StepResult>();
    const live: WithdrawalRecord[] = [];
    for (const w of records) {
      if (w.status === 'finalized' || w.status === 'returned') results.set(w.id, 'done');
      else if (w.stuck) results.set(w.id, 'stuck');
      else if (!isAddress(w.wallet)) {
        await this.deps.withdrawals.markStuck(w.id, `the record's wallet ${JSON.stringify(w.wallet)} is not an address`, this.deps.clock().toISOString());
        results.set(w.id, 'stuck');
      } else live.push(w);
    }
    const jobs = live.map((w): SendJob => ({ kind: 'withdraw', id: w.id, memo: withdrawMemo(w.id), stored: w.stored, sent: w.sent }));
    const states = await readKeeperJobStates(rpc, keeperKey.publicKey, jobs);
    const decisions = states.map(decideKeeperSend);
    // The first `sendsPerRound` that need a new transaction get one now, in the ledger's order; the rest wait a pass.
    const toBuild = new Set<string>();
    let deferred = 0;
    live.forEach((w, i) => {
      const action = decisions[i]?.action;
      if (action !== 'build' && action !== 'rebuild') return;
      if (toBuild.size < this.#sendsPerRound) toBuild.add(w.id);
      else deferred++;
    });
    const building = live.filter((w) => toBuild.has(w.id));
    const accounts =
      building.length > 0
        ? await tokenAccountStates(
            rpc,
            setup.usdcMint,
            building.map((w) => address(w.wallet)),
          )
        : new Map();
    const blockhash = building.length > 0 ? await latestBlockhash(rpc) : undefined;
    let signed = 0;
    for (const [i, w] of live.entries()) {
      const decision = decisions[i] as KeeperDecision;
      const job = jobs[i] as SendJob;
      if ((decision.action === 'build' || decision.action === 'rebuild') && !toBuild.has(w.id)) {
        results.set(w.id, 'pending');
        continue;
      }
      try {
        const io = this.#withdrawalIo(w, accounts.get(address(w.wallet)), blockhash, () => signed++);
        results.set(w.id, await this.#act(job, decision, io));
        this.#backoff.delete(w.id);
      } catch (err) {
        if (!isolate) throw err;
        const failures = (this.#backoff.get(w.id)?.failures ?? 0) + 1;
        this.#backoff.set(w.id, { failures, untilMs: Date.now() + Math.min(30_000, 200 * 2 ** Math.min(failures, 10)) });
        this.#log.warn({ err, id: w.id, failures }, 'keeper: withdrawal step failed; the others go on');
        results.set(w.id, 'pending');
      }
    }
    return { results, signed, deferred };
  }

  #withdrawalIo(w: WithdrawalRecord, account: TokenAccountState | undefined, blockhash: RecentBlockhash | undefined, onSigned: () => void): JobIo {
    const { withdrawals, rpc, setup, keeperKey } = this.deps;
    const at = () => this.deps.clock().toISOString();
    const giveBack = async (expected: string | null, reason: string): Promise<StepResult> => {
      const result = await withdrawals.returnToBalance(w.id, w.wallet, expected, reason, at());
      if (result === 'ok') this.#log.info({ id: w.id, reason }, 'keeper: withdrawal returned to the balance (no USDC account to pay into)');
      // `stale`: another keeper stored a transaction meanwhile; the next pass reads it.
      return result === 'stale' ? 'pending' : 'done';
    };
    return {
      build: async () => {
        try {
          const tx = await buildWithdrawal(rpc, setup, keeperKey.signer, {
            wallet: w.wallet,
            amount: w.amount,
            withdrawalId: w.id,
            ...(account ? { state: account } : {}),
            ...(blockhash ? { blockhash } : {}),
          });
          onSigned();
          return tx;
        } catch (err) {
          if (!(err instanceof NoTokenAccountError)) throw err;
          // Nothing stored can land (never sent, or expired unseen with no payment among its sends): safe to give back.
          return giveBack(w.stored?.signature ?? null, err.reason);
        }
      },
      store: (expected, tx) => withdrawals.storeSigned(w.id, expected, tx),
      finish: async (signature) => {
        await withdrawals.finish(w.id, w.wallet, signature, at());
      },
      stuck: async (reason, failed) => {
        // A failed transaction moved nothing and can never succeed; no earlier send can land either. If the wallet's
        // account is gone, that is why: give the amount back rather than leave it to an operator.
        if (failed) {
          const state = await usdcAccountState(rpc, setup, address(w.wallet));
          if (state !== 'payable') return giveBack(failed.signature, state);
        }
        await withdrawals.markStuck(w.id, reason, at());
        return 'stuck';
      },
    };
  }

  /** Mints or pays one valued LP job (or records it landed); repeats until it lands or the budget is spent. */
  async runLpJob(id: string): Promise<StepResult> {
    return this.#repeat(() => this.stepLpJob(id));
  }

  /** One reconciliation of an LP job and, when the send rules allow it, one send; it does not wait for a landing. */
  async stepLpJob(id: string): Promise<StepResult> {
    if (!(await this.#clear())) return 'pending';
    const { lp } = this.deps;
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
      sent: job.sent,
    };
    return this.#advance(send, {
      build: () => this.#buildLp(job),
      store: (expected, tx) => lp.storeSigned(id, expected, tx),
      finish: async (signature) => {
        await lp.finish(id, signature, at());
      },
      stuck: async (reason) => {
        await lp.markStuck(id, reason, at());
        return 'stuck';
      },
    });
  }

  #buildLp(job: LpJobRecord): Promise<KeeperTransaction> {
    const { rpc, setup, keeperKey } = this.deps;
    if (job.kind === 'mint') return buildLpMint(rpc, setup, keeperKey.signer, { wallet: job.wallet, shares: job.shares, jobId: job.id });
    return buildLpRedemptionPayout(rpc, setup, keeperKey.signer, { wallet: job.wallet, shares: job.shares, value: job.value ?? 0n, jobId: job.id });
  }

  /**
   * Values what waits: every queued LP deposit in arrival order (its shares at the NAV before it), then redemptions
   * strictly in order while free liquidity covers the one at the head. Nothing is valued while NAV ≤ 0, nor while
   * the gate holds payouts (a ledger behind the archive has a stale NAV).
   * @returns how many jobs were valued
   */
  async fixLp(): Promise<number> {
    if (!(await this.#clear())) return 0;
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

  /** One reconciliation of one job and, when the send rules allow it, one send. */
  async #advance(job: SendJob, io: JobIo): Promise<StepResult> {
    const state = await readKeeperJobState(this.deps.rpc, this.deps.keeperKey.publicKey, job);
    return this.#act(job, decideKeeperSend(state), io);
  }

  /** Carries out a send decision for one job. */
  async #act(job: SendJob, decision: KeeperDecision, io: JobIo): Promise<StepResult> {
    switch (decision.action) {
      case 'done':
        if (!decision.finalized && this.deps.commitment === 'finalized') return 'pending';
        await io.finish(decision.signature);
        this.#log.info({ job: job.kind, id: job.id, signature: decision.signature }, 'keeper: landed');
        return 'done';
      case 'wait':
        return 'pending';
      case 'resend':
        await this.#send(job, job.stored!.wire);
        return 'pending';
      case 'stuck': {
        const reason = `transaction ${decision.signature} failed on-chain: ${JSON.stringify(decision.err, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`;
        const result = await io.stuck(reason, { signature: decision.signature });
        if (result === 'stuck') this.#log.error({ job: job.kind, id: job.id, reason }, 'keeper: a landed transaction failed; the job waits for an operator');
        return result;
      }
      case 'unverifiable': {
        const reason = 'the record lists sent transactions without the newest one stored: nothing proves they cannot land';
        this.#log.error({ job: job.kind, id: job.id, sent: job.sent }, `keeper: ${reason}; the job waits for an operator`);
        return io.stuck(reason, null);
      }
      case 'build':
      case 'rebuild': {
        const tx = await io.build();
        if (typeof tx === 'string') return tx;
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
