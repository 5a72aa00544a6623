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
import { signInstructions, type SignedTransaction } from './send.ts';
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

/**
 * A withdrawal: `amount` USDC from the vault to the wallet's own USDC ATA (created if missing), TransferChecked by the
 * keeper, with the memo `pfws:v1:withdraw:<withdrawalId>` whose only signer is the keeper. The keeper pays the fee.
 */
export async function buildWithdrawal(
  rpc: SolanaRpc,
  setup: Pick<ChainSetup, 'usdcMint' | 'vaultTokenAccount'>,
  keeper: TransactionSigner,
  input: { wallet: string; amount: bigint; withdrawalId: string },
): Promise<KeeperTransaction> {
  if (input.amount <= 0n) throw new RangeError('a withdrawal must be positive');
  const memo = withdrawMemo(input.withdrawalId);
  if (parseMemo(memo)?.kind !== 'withdraw') throw new RangeError('invalid withdrawal id');
  const { ata, create } = await withRecipientAta(rpc, keeper, address(input.wallet), setup.usdcMint);
  const tx = await signInstructions(rpc, keeper, [
    ...create,
    getTransferCheckedInstruction({
      source: setup.vaultTokenAccount,
      mint: setup.usdcMint,
      destination: ata,
      authority: keeper,
      amount: input.amount,
      decimals: DECIMALS,
    }),
    memoInstruction(memo, [keeper]),
  ]);
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

export type ConfirmationStatus = 'processed' | 'confirmed' | 'finalized';

/** What the chain says about a keeper job, read by {@link readKeeperJobState}. */
export interface KeeperJobState {
  /** The stored transaction, or null when none was stored (nothing can have been sent). */
  stored: { signature: string; lastValidBlockHeight: bigint } | null;
  /** The stored signature's status; null when the cluster has never seen it. */
  status: { err: unknown; confirmationStatus: ConfirmationStatus | null } | null;
  /** The finalized block height: once it passes `lastValidBlockHeight`, the stored transaction can never land. */
  finalizedBlockHeight: bigint;
  /** A successful transaction carrying the job's keeper memo (signed by the keeper alone); undefined when not looked up. */
  memo?: { signature: string; confirmationStatus: ConfirmationStatus | null } | null;
}

export type KeeperDecision =
  /** Nothing stored: build, sign and store a transaction, then send it. */
  | { action: 'build' }
  /** The stored transaction may still land: send the stored bytes again (harmless if it already arrived). */
  | { action: 'resend' }
  /** Seen but not yet at `confirmed`: check again later; neither resend nor rebuild. */
  | { action: 'wait' }
  /** The job is done on-chain under `signature` (the stored one, or one found by its memo). */
  | { action: 'done'; signature: string; finalized: boolean }
  /** Expired, never seen, and no memo on-chain: the stored transaction can never land, so a new one may be built. */
  | { action: 'rebuild' }
  /** The memo scan is needed before deciding. */
  | { action: 'scan' }
  /** The stored transaction landed and failed: it moved nothing, but the send rules allow no automatic rebuild. */
  | { action: 'stuck'; signature: string; err: unknown };

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
    // Nothing stored means nothing was sent (the keeper stores before sending); a memo scan still confirms it.
    return state.memo === undefined ? { action: 'scan' } : { action: 'build' };
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
  return state.memo === undefined ? { action: 'scan' } : { action: 'rebuild' };
}

/**
 * Finds a successful transaction whose keeper memo is exactly `memo`, signed by the keeper alone, by paging the
 * keeper's signatures (the keeper pays every keeper transaction) back to `notBeforeUnix`, or `maxPages` pages.
 * The RPC's memo summary only narrows the pages; every candidate is read in full and checked.
 */
export async function findKeeperMemo(
  rpc: SolanaRpc,
  keeper: string,
  memo: string,
  options: { notBeforeUnix?: number; maxPages?: number; pageSize?: number; commitment?: 'confirmed' | 'finalized' } = {},
): Promise<{ signature: string; confirmationStatus: ConfirmationStatus | null; slot: number } | null> {
  const wanted = parseMemo(memo);
  if (!wanted) throw new RangeError('not a pfws memo');
  const pageSize = options.pageSize ?? 1000;
  const commitment = options.commitment ?? 'confirmed';
  let before: Signature | undefined;
  for (let page = 0; page < (options.maxPages ?? 20); page++) {
    const infos = await rpc.getSignaturesForAddress(address(keeper), { limit: pageSize, commitment, ...(before ? { before } : {}) }).send();
    for (const info of infos) {
      if (info.err !== null) continue;
      if (info.memo !== null && !info.memo.includes(memo)) continue;
      const tx = await rpc.getTransaction(info.signature, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment }).send();
      if (memosSignedBy(tx as unknown as RpcTransaction, keeper).some((m) => sameMemo(m.memo, wanted))) {
        return { signature: info.signature, confirmationStatus: info.confirmationStatus ?? null, slot: Number(info.slot) };
      }
    }
    const last = infos[infos.length - 1];
    if (!last || infos.length < pageSize) return null;
    if (options.notBeforeUnix !== undefined && last.blockTime !== null && Number(last.blockTime) < options.notBeforeUnix) return null;
    before = last.signature;
  }
  return null;
}

const sameMemo = (a: ParsedMemo, b: ParsedMemo): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Reads everything {@link decideKeeperSend} needs, scanning for the memo only when the decision depends on it.
 * The block height is read before the status: once it says expired, a null status afterwards is final.
 */
export async function readKeeperJobState(
  rpc: SolanaRpc,
  input: { keeper: string; memo: string; stored: KeeperJobState['stored']; notBeforeUnix?: number },
): Promise<KeeperJobState> {
  const finalizedBlockHeight = await rpc.getBlockHeight({ commitment: 'finalized' }).send();
  let status: KeeperJobState['status'] = null;
  if (input.stored) {
    const { value } = await rpc.getSignatureStatuses([input.stored.signature as Signature], { searchTransactionHistory: true }).send();
    const s = value[0];
    status = s ? { err: s.err, confirmationStatus: s.confirmationStatus ?? null } : null;
  }
  const state: KeeperJobState = { stored: input.stored, status, finalizedBlockHeight };
  if (decideKeeperSend(state).action === 'scan') {
    state.memo = await findKeeperMemo(rpc, input.keeper, input.memo, input.notBeforeUnix === undefined ? {} : { notBeforeUnix: input.notBeforeUnix });
  }
  return state;
}

/** {@link findKeeperMemo} for `pfws:v1:withdraw:<withdrawalId>`. */
export const findWithdrawMemo = (rpc: SolanaRpc, keeper: string, withdrawalId: string, options?: Parameters<typeof findKeeperMemo>[3]) =>
  findKeeperMemo(rpc, keeper, withdrawMemo(withdrawalId), options);
