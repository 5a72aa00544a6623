// Keeper transactions (design §3): withdrawals, LP mints and LP redemption payouts, each signed by the keeper alone
// and marked by a keeper memo, plus the reconciliation the keeper runs before any send so nothing is paid twice.
import { address, type Address, type Instruction, type Signature, type TransactionSigner } from '@solana/kit';
import {
  getBurnCheckedInstruction,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getMintToCheckedInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { ataOf, type ChainSetup } from './genesis.ts';
import { memoInstruction } from './memo.ts';
import type { SolanaRpc } from './rpc.ts';
import { signInstructions, type RecentBlockhash, type SignedTransaction } from './send.ts';
import { usdcAccountState, type TokenAccountState } from './wallet-balance.ts';
import { lpMintMemo, lpPayMemo, parseMemo, withdrawMemo, type ParsedMemo } from '../protocol/memo.ts';
import { USDC_DECIMALS } from '../protocol/money.ts';
import { memosSignedBy, type RpcTransaction } from '../protocol/verify/chain.ts';

/** Both mints have the USDC decimals (chain/genesis.ts). */
const DECIMALS = USDC_DECIMALS;

/** The keeper's signed transaction, to be stored before it is sent, and re-sent as the same bytes. */
export interface KeeperTransaction extends SignedTransaction {
  /** The keeper memo this transaction carries; finding it on-chain means the job is done. */
  memo: string;
}

async function withRecipientAta(rpc: SolanaRpc, keeper: TransactionSigner, owner: Address, mint: Address): Promise<{ ata: Address; create: Instruction[] }> {
  const ata = await ataOf(owner, mint);
  const { value } = await rpc.getAccountInfo(ata, { encoding: 'base64', commitment: 'confirmed' }).send();
  // Idempotent: if the account appears before this lands, the instruction does nothing.
  return { ata, create: value ? [] : [await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: keeper, owner, mint })] };
}

/** The wallet's USDC account cannot receive: the keeper never pays the rent to create one (design §3). */
export class NoTokenAccountError extends Error {
  override readonly name = 'NoTokenAccountError';

  constructor(
    readonly wallet: string,
    readonly reason: Exclude<TokenAccountState, 'payable'>,
  ) {
    super(`the wallet ${wallet} has no USDC account that can receive (${reason})`);
  }
}

/**
 * A withdrawal: `amount` USDC from the vault to the wallet's own USDC ATA, TransferChecked by the keeper, with the
 * memo `pfws:v1:withdraw:<withdrawalId>` whose only signer is the keeper. The keeper pays the fee and nothing else:
 * it never creates the ATA.
 * @param state the ATA's state when the caller read it already (a batch read); read here otherwise
 * @param blockhash a recent blockhash to share between transactions built together; fetched otherwise
 * @throws {NoTokenAccountError} when the ATA does not exist or is frozen: no transaction is built
 */
export async function buildWithdrawal(
  rpc: SolanaRpc,
  setup: Pick<ChainSetup, 'usdcMint' | 'vaultTokenAccount'>,
  keeper: TransactionSigner,
  input: { wallet: string; amount: bigint; withdrawalId: string; state?: TokenAccountState; blockhash?: RecentBlockhash },
): Promise<KeeperTransaction> {
  if (input.amount <= 0n) throw new RangeError('a withdrawal must be positive');
  const memo = withdrawMemo(input.withdrawalId);
  if (parseMemo(memo)?.kind !== 'withdraw') throw new RangeError('invalid withdrawal id');
  const owner = address(input.wallet);
  const state = input.state ?? (await usdcAccountState(rpc, setup, owner));
  if (state !== 'payable') throw new NoTokenAccountError(input.wallet, state);
  const tx = await signInstructions(
    rpc,
    keeper,
    [
      getTransferCheckedInstruction({
        source: setup.vaultTokenAccount,
        mint: setup.usdcMint,
        destination: await ataOf(owner, setup.usdcMint),
        authority: keeper,
        amount: input.amount,
        decimals: DECIMALS,
      }),
      memoInstruction(memo, [keeper]),
    ],
    input.blockhash,
  );
  return { ...tx, memo };
}

/**
 * An LP mint: `shares` of the LP mint (the keeper is its mint authority) to the wallet's LP ATA, created if missing,
 * with the memo `pfws:v1:lp-mint:<jobId>` signed by the keeper alone.
 */
export async function buildLpMint(
  rpc: SolanaRpc,
  setup: Pick<ChainSetup, 'lpMint'>,
  keeper: TransactionSigner,
  input: { wallet: string; shares: bigint; jobId: string },
): Promise<KeeperTransaction> {
  if (input.shares <= 0n) throw new RangeError('an LP mint must be positive');
  const memo = lpMintMemo(input.jobId);
  if (parseMemo(memo)?.kind !== 'lp-mint') throw new RangeError('invalid LP job id');
  const { ata, create } = await withRecipientAta(rpc, keeper, address(input.wallet), setup.lpMint);
  const tx = await signInstructions(rpc, keeper, [
    ...create,
    getMintToCheckedInstruction({ mint: setup.lpMint, token: ata, mintAuthority: keeper, amount: input.shares, decimals: DECIMALS }),
    memoInstruction(memo, [keeper]),
  ]);
  return { ...tx, memo };
}

/**
 * An LP redemption payout, all or nothing: burns the `shares` the wallet sent to the keeper's LP ATA and pays `value`
 * USDC from the vault to the wallet's USDC ATA (created if missing), with the memo `pfws:v1:lp-pay:<jobId>` signed by
 * the keeper alone.
 */
export async function buildLpRedemptionPayout(
  rpc: SolanaRpc,
  setup: Pick<ChainSetup, 'usdcMint' | 'lpMint' | 'vaultTokenAccount'>,
  keeper: TransactionSigner,
  input: { wallet: string; shares: bigint; value: bigint; jobId: string },
): Promise<KeeperTransaction> {
  if (input.shares <= 0n || input.value < 0n) throw new RangeError('a redemption burns positive shares and pays a non-negative value');
  const memo = lpPayMemo(input.jobId);
  if (parseMemo(memo)?.kind !== 'lp-pay') throw new RangeError('invalid LP job id');
  const keeperLp = await ataOf(keeper.address, setup.lpMint);
  const instructions: Instruction[] = [
    getBurnCheckedInstruction({ account: keeperLp, mint: setup.lpMint, authority: keeper, amount: input.shares, decimals: DECIMALS }),
  ];
  if (input.value > 0n) {
    const { ata, create } = await withRecipientAta(rpc, keeper, address(input.wallet), setup.usdcMint);
    instructions.push(
      ...create,
      getTransferCheckedInstruction({
        source: setup.vaultTokenAccount,
        mint: setup.usdcMint,
        destination: ata,
        authority: keeper,
        amount: input.value,
        decimals: DECIMALS,
      }),
    );
  }
  instructions.push(memoInstruction(memo, [keeper]));
  const tx = await signInstructions(rpc, keeper, instructions);
  return { ...tx, memo };
}

// ---------------------------------------------------------------------------------------------------------------
// Reconciliation before any send (design §3): rebuild only when the blockhash expired AND the signature's status is
// null AND no keeper memo for the job is on-chain. Otherwise re-send the stored bytes, or record the landed payment.
// The memo is looked for among the job's own sends, the signatures the keeper stored for it before sending each one
// (its durable record), never by paging the keeper address's history, which anyone can lengthen.

export type ConfirmationStatus = 'processed' | 'confirmed' | 'finalized';

/** A keeper job as reconciliation reads it: its memo and its durable record of sends. */
export interface KeeperJobSends {
  /** The keeper memo its transactions carry. */
  memo: string;
  /** The transaction stored last, or null when none was stored. */
  stored: { signature: string; lastValidBlockHeight: bigint } | null;
  /** Every signature ever stored for the job, oldest first (the stored one included). */
  sent: readonly string[];
}

/** What the chain says about a keeper job, read by {@link readKeeperJobStates}. */
export interface KeeperJobState {
  /** The stored transaction, or null when none was stored (nothing can have been sent). */
  stored: { signature: string; lastValidBlockHeight: bigint } | null;
  /** How many signatures the job's durable record holds (the stored one included). */
  sentCount: number;
  /** The stored signature's status; null when the cluster has never seen it. */
  status: { err: unknown; confirmationStatus: ConfirmationStatus | null } | null;
  /** The finalized block height: once it passes `lastValidBlockHeight`, the stored transaction can never land. */
  finalizedBlockHeight: bigint;
  /**
   * An earlier send of the job that succeeded, carrying the job's keeper memo signed by the keeper alone (or seen
   * and not yet confirmed), or null when none did.
   */
  memo: { signature: string; confirmationStatus: ConfirmationStatus | null } | null;
}

export type KeeperDecision =
  /** Nothing stored: build, sign and store a transaction, then send it. */
  | { action: 'build' }
  /** The stored transaction may still land: send the stored bytes again (harmless if it already arrived). */
  | { action: 'resend' }
  /** Seen but not yet at `confirmed`: check again later; neither resend nor rebuild. */
  | { action: 'wait' }
  /** The job is done on-chain under `signature` (the stored one, or an earlier send carrying its memo). */
  | { action: 'done'; signature: string; finalized: boolean }
  /** Expired, never seen, and no memo on-chain: the stored transaction can never land, so a new one may be built. */
  | { action: 'rebuild' }
  /** The stored transaction landed and failed: it moved nothing, but the send rules allow no automatic rebuild. */
  | { action: 'stuck'; signature: string; err: unknown }
  /** The record lists sends but not the newest one's expiry: nothing proves they cannot land, so an operator decides. */
  | { action: 'unverifiable' };

const atLeastConfirmed = (s: ConfirmationStatus | null): boolean => s === 'confirmed' || s === 'finalized';

/**
 * The keeper's send rule as a pure decision. A transaction is rebuilt only when all three hold: its blockhash has
 * expired (the finalized height is past its `lastValidBlockHeight`), its signature's status is null, and no keeper
 * memo for the job is on-chain. So a job is never paid twice.
 */
export function decideKeeperSend(state: KeeperJobState): KeeperDecision {
  if (state.memo) {
    if (atLeastConfirmed(state.memo.confirmationStatus)) {
      return { action: 'done', signature: state.memo.signature, finalized: state.memo.confirmationStatus === 'finalized' };
    }
    return { action: 'wait' };
  }
  if (!state.stored) {
    // The keeper stores every transaction before sending it: with nothing ever stored, nothing was sent.
    return state.sentCount === 0 ? { action: 'build' } : { action: 'unverifiable' };
  }
  const { status } = state;
  if (status) {
    if (status.err !== null && status.err !== undefined) return { action: 'stuck', signature: state.stored.signature, err: status.err };
    if (atLeastConfirmed(status.confirmationStatus)) {
      return { action: 'done', signature: state.stored.signature, finalized: status.confirmationStatus === 'finalized' };
    }
    return { action: 'wait' };
  }
  if (state.finalizedBlockHeight <= state.stored.lastValidBlockHeight) return { action: 'resend' };
  return { action: 'rebuild' };
}

// getSignatureStatuses takes at most 256 signatures.
const STATUSES_PER_CALL = 256;

type SignatureStatus = { err: unknown; confirmationStatus: ConfirmationStatus | null };

async function signatureStatuses(rpc: SolanaRpc, signatures: readonly string[]): Promise<Map<string, SignatureStatus>> {
  const statuses = new Map<string, SignatureStatus>();
  for (let i = 0; i < signatures.length; i += STATUSES_PER_CALL) {
    const chunk = signatures.slice(i, i + STATUSES_PER_CALL);
    const { value } = await rpc.getSignatureStatuses(chunk as Signature[], { searchTransactionHistory: true }).send();
    chunk.forEach((signature, j) => {
      const s = value[j];
      if (s) statuses.set(signature, { err: s.err, confirmationStatus: s.confirmationStatus ?? null });
    });
  }
  return statuses;
}

const sameMemo = (a: ParsedMemo, b: ParsedMemo): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * An earlier send of the job that landed: the newest of its recorded signatures, besides the stored one, whose status
 * is a success. One seen but not yet confirmed is returned as it is (the decision waits); a confirmed one counts only
 * when its transaction carries the job's memo signed by the keeper alone.
 */
async function earlierPayment(rpc: SolanaRpc, keeper: string, job: KeeperJobSends, statuses: Map<string, SignatureStatus>): Promise<KeeperJobState['memo']> {
  const wanted = parseMemo(job.memo);
  if (!wanted) throw new RangeError('not a pfws memo');
  for (const signature of [...job.sent].reverse()) {
    if (signature === job.stored?.signature) continue;
    const status = statuses.get(signature);
    if (!status || (status.err !== null && status.err !== undefined)) continue;
    if (!atLeastConfirmed(status.confirmationStatus)) return { signature, confirmationStatus: status.confirmationStatus };
    const tx = await rpc.getTransaction(signature as Signature, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }).send();
    if (memosSignedBy(tx as unknown as RpcTransaction, keeper).some((m) => sameMemo(m.memo, wanted))) {
      return { signature, confirmationStatus: status.confirmationStatus };
    }
  }
  return null;
}

/**
 * Reads everything {@link decideKeeperSend} needs for many jobs at once: one block height, then the statuses of every
 * signature the jobs' records hold (256 a call). The block height is read before the statuses: once it says
 * expired, a null status afterwards is final.
 */
export async function readKeeperJobStates(rpc: SolanaRpc, keeper: string, jobs: readonly KeeperJobSends[]): Promise<KeeperJobState[]> {
  if (jobs.length === 0) return [];
  const finalizedBlockHeight = await rpc.getBlockHeight({ commitment: 'finalized' }).send();
  const signatures = [...new Set(jobs.flatMap((j) => (j.stored ? [...j.sent, j.stored.signature] : j.sent)))];
  const statuses = signatures.length > 0 ? await signatureStatuses(rpc, signatures) : new Map<string, SignatureStatus>();
  const states: KeeperJobState[] = [];
  for (const job of jobs) {
    states.push({
      stored: job.stored,
      sentCount: new Set(job.stored ? [...job.sent, job.stored.signature] : job.sent).size,
      status: job.stored ? (statuses.get(job.stored.signature) ?? null) : null,
      finalizedBlockHeight,
      memo: await earlierPayment(rpc, keeper, job, statuses),
    });
  }
  return states;
}

/** {@link readKeeperJobStates} for one job. */
export async function readKeeperJobState(rpc: SolanaRpc, keeper: string, job: KeeperJobSends): Promise<KeeperJobState> {
  return (await readKeeperJobStates(rpc, keeper, [job]))[0] as KeeperJobState;
}
