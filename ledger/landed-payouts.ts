// Keeper payouts the restored ledger does not know of. The keeper's durable record of sends (the signatures stored
// for each job) lives in Redis: a backup loses the sends made after it, so a job left open may have been paid in the
// lost tail, and the keeper's send rule, which reads only that record, would pay it again. Recovery looks for each
// open job's memo in the keeper key's history back to the backup, records what it finds as paid, and holds the rest
// until no transaction the lost keeper may have signed can still land.
import type { Signature } from '@solana/kit';
import { keeperPaymentsSince } from '../chain/keeper-history.ts';
import type { SolanaRpc } from '../chain/rpc.ts';
import { lpMintMemo, lpPayMemo, withdrawMemo } from '../protocol/memo.ts';
import type { LpStore } from '../store/lp.ts';
import type { WithdrawalStore } from '../store/withdrawals.ts';

/** Agave's MAX_PROCESSING_AGE: a blockhash is usable for this many blocks after the one it came from. */
export const BLOCKHASH_LIFETIME = 150;
/** How far the validators' block times and the journal's clock may disagree. */
const CLOCK_MARGIN_S = 600;

export interface LandedPayoutDeps {
  rpc: SolanaRpc;
  /** The keeper key's public key: it signs every payout and its memo. */
  keeperKey: string;
  /** A payout counts as landed at this commitment (the keeper's). */
  commitment: 'confirmed' | 'finalized';
  withdrawals: Pick<WithdrawalStore, 'openRecords' | 'finish' | 'markStuck'>;
  lp: Pick<LpStore, 'openJobs' | 'job' | 'finish' | 'markStuck'>;
  clock: () => Date;
  /** @defaultValue {@link BLOCKHASH_LIFETIME} */
  blockhashLifetime?: number;
  /** How long to wait for the lost keeper's transactions to expire (and a found one to finalize). @defaultValue 180000 */
  expiryWaitMs?: number;
}

export interface LandedPayoutInput {
  /** The confirmed block height read before the recovery looked at anything: every lost send's blockhash is older. */
  heightBefore: bigint;
  /** When the restored ledger's newest journal entry was written (ms), or null when it has none. */
  backupAtMs: number | null;
  /** Every archived event was restored: a payout recorded now journals after all of them. */
  replayComplete: boolean;
}

export interface LandedPayouts {
  /** Open jobs found paid on-chain, now finished in the ledger. */
  recorded: number;
  /** Open jobs left to an operator: whether they were paid could not be told. */
  held: number;
  notes: string[];
}

interface OpenPayout {
  what: string;
  memo: string;
  createdAtMs: number;
  finish(signature: string, at: string): Promise<unknown>;
  hold(reason: string, at: string): Promise<void>;
}

async function openPayouts(d: LandedPayoutDeps): Promise<OpenPayout[]> {
  const out: OpenPayout[] = [];
  for (const w of await d.withdrawals.openRecords(100_000)) {
    out.push({
      what: `withdrawal ${w.id}`,
      memo: withdrawMemo(w.id),
      createdAtMs: w.createdAtMs,
      finish: (signature, at) => d.withdrawals.finish(w.id, w.wallet, signature, at),
      hold: (reason, at) => d.withdrawals.markStuck(w.id, reason, at),
    });
  }
  for (const id of await d.lp.openJobs(100_000)) {
    const job = await d.lp.job(id);
    // A deposit too small for one share is finished without a transaction.
    if (!job || (job.kind === 'mint' && job.shares === 0n)) continue;
    out.push({
      what: `LP ${job.kind === 'mint' ? 'mint' : 'redemption'} ${id}`,
      memo: job.kind === 'mint' ? lpMintMemo(id) : lpPayMemo(id),
      createdAtMs: Date.parse(job.createdAt) || 0,
      finish: (signature, at) => d.lp.finish(id, signature, at),
      hold: (reason, at) => d.lp.markStuck(id, reason, at),
    });
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `signature` reaches `commitment`; false when it did not within the deadline. */
async function reaches(rpc: SolanaRpc, signature: string, commitment: 'confirmed' | 'finalized', deadline: number): Promise<boolean> {
  for (;;) {
    const { value } = await rpc.getSignatureStatuses([signature as Signature], { searchTransactionHistory: true }).send();
    const status = value[0]?.confirmationStatus;
    if (status === 'finalized' || (commitment === 'confirmed' && status === 'confirmed')) return true;
    if (Date.now() > deadline) return false;
    await sleep(500);
  }
}

/**
 * Records the open keeper jobs whose payout is on-chain, and holds for an operator those it cannot clear. A job not
 * found is left to the keeper only once every blockhash the lost keeper could have signed with has expired and a
 * second scan still finds no payment of it: then none can land, and the keeper's own rule holds again.
 */
export async function recordLandedPayouts(d: LandedPayoutDeps, input: LandedPayoutInput): Promise<LandedPayouts> {
  const result: LandedPayouts = { recorded: 0, held: 0, notes: [] };
  let open = await openPayouts(d);
  if (open.length === 0) return result;
  const at = () => d.clock().toISOString();
  const hold = async (jobs: readonly OpenPayout[], why: string) => {
    for (const job of jobs) {
      await job.hold(`ledger recovery: ${why}; look for the memo ${job.memo} signed by the keeper before releasing it`, at());
      result.held++;
      result.notes.push(`${job.what} is held for an operator: ${why}`);
    }
  };
  if (!input.replayComplete) {
    await hold(open, 'the archived tail was not restored whole, so its payout may have landed unrecorded');
    return result;
  }
  const deadline = Date.now() + (d.expiryWaitMs ?? 180_000);
  const sinceUnix = Math.floor(Math.min(...open.map((j) => Math.max(j.createdAtMs, input.backupAtMs ?? 0))) / 1000) - CLOCK_MARGIN_S;
  const record = async (found: ReadonlyMap<string, string>) => {
    const left: OpenPayout[] = [];
    for (const job of open) {
      const signature = found.get(job.memo);
      if (!signature) left.push(job);
      else if (!(await reaches(d.rpc, signature, d.commitment, deadline)))
        await hold([job], `its payout ${signature} is on-chain but did not reach ${d.commitment}`);
      else {
        await job.finish(signature, at());
        result.recorded++;
        result.notes.push(`${job.what} was paid on-chain after the backup (${signature}): recorded as paid, never paid again`);
      }
    }
    open = left;
  };

  const memos = () => new Set(open.map((j) => j.memo));
  const first = await keeperPaymentsSince(d.rpc, d.keeperKey, memos(), { sinceUnix });
  await record(first.found);
  if (!first.complete) {
    await hold(open, "the scan of the keeper key's history reached its bound before the backup");
    return result;
  }
  if (open.length === 0) return result;
  // A send of the lost tail may still be in flight: wait until its blockhash can no longer land, then look again.
  const expiry = input.heightBefore + BigInt(d.blockhashLifetime ?? BLOCKHASH_LIFETIME);
  while ((await d.rpc.getBlockHeight({ commitment: 'finalized' }).send()) <= expiry) {
    if (Date.now() > deadline) {
      await hold(open, `the chain did not pass block height ${expiry} in time, so a lost send may still land`);
      return result;
    }
    await sleep(500);
  }
  const second = await keeperPaymentsSince(d.rpc, d.keeperKey, memos(), { sinceUnix, until: first.newest });
  await record(second.found);
  if (!second.complete) await hold(open, "the scan of the keeper key's history reached its bound before the backup");
  return result;
}
