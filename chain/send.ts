// Signs, sends and confirms operator transactions by polling signature statuses (no websockets needed).
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Blockhash,
  type Instruction,
  type Signature,
  type TransactionSigner,
} from '@solana/kit';
import type { SolanaRpc } from './rpc.ts';

export type Commitment = 'processed' | 'confirmed' | 'finalized';

export interface SignedTransaction {
  signature: Signature;
  wire: string;
  lastValidBlockHeight: bigint;
}

/** A blockhash and the last block height at which a transaction that names it can land. */
export interface RecentBlockhash {
  blockhash: Blockhash;
  lastValidBlockHeight: bigint;
}

export async function latestBlockhash(rpc: SolanaRpc): Promise<RecentBlockhash> {
  return (await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send()).value;
}

/** Signs `instructions` with `feePayer` under `blockhash`, or the latest one when none is given. */
export async function signInstructions(
  rpc: SolanaRpc,
  feePayer: TransactionSigner,
  instructions: Instruction[],
  recent?: RecentBlockhash,
): Promise<SignedTransaction> {
  const blockhash = recent ?? (await latestBlockhash(rpc));
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  return {
    signature: getSignatureFromTransaction(signed),
    wire: getBase64EncodedWireTransaction(signed),
    lastValidBlockHeight: blockhash.lastValidBlockHeight,
  };
}

export async function sendWire(rpc: SolanaRpc, wire: string): Promise<void> {
  await rpc.sendTransaction(wire as Parameters<SolanaRpc['sendTransaction']>[0], { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
}

/** The chain is past a transaction's `lastValidBlockHeight` and never saw it: those bytes can no longer land. */
export class BlockhashExpiredError extends Error {
  override readonly name = 'BlockhashExpiredError';
  constructor(readonly signature: Signature) {
    super(`transaction ${signature} expired unseen: its blockhash is past its last valid block height`);
  }
}

export interface ConfirmOptions {
  commitment?: Commitment;
  timeoutMs?: number;
  pollMs?: number;
  /**
   * The signed bytes, sent again every `everyMs` (2 s) while the signature is unseen: an RPC node may drop a transaction,
   * or refuse one whose blockhash it does not know yet, and nothing else would send it again.
   */
  resend?: { wire: string; lastValidBlockHeight: bigint; everyMs?: number; onError?: (err: unknown) => void };
}

/**
 * Polls until the signature reaches `commitment`.
 * @throws {BlockhashExpiredError} with `resend`, once the chain is past its last valid block height and never saw it
 * @throws when the transaction failed on-chain or did not land in time
 */
export async function confirmSignature(rpc: SolanaRpc, signature: Signature, options: ConfirmOptions = {}): Promise<{ slot: bigint }> {
  const wanted = options.commitment ?? 'confirmed';
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const rank = { processed: 0, confirmed: 1, finalized: 2 } as const;
  const { resend } = options;
  let nextSend = Date.now() + (resend?.everyMs ?? 2_000);
  let expired = false;
  for (;;) {
    const { value } = await rpc.getSignatureStatuses([signature]).send();
    const status = value[0];
    if (status) {
      if (status.err) throw new Error(`transaction ${signature} failed: ${JSON.stringify(status.err, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
      if (status.confirmationStatus && rank[status.confirmationStatus] >= rank[wanted]) return { slot: status.slot };
    } else if (resend) {
      // Past its last valid height, one more unseen status proves it can never land (it may have landed just before).
      if (expired) throw new BlockhashExpiredError(signature);
      expired = (await rpc.getBlockHeight({ commitment: 'confirmed' }).send()) > resend.lastValidBlockHeight;
      if (expired) continue;
      if (Date.now() >= nextSend) {
        nextSend = Date.now() + (resend.everyMs ?? 2_000);
        await sendWire(rpc, resend.wire).catch((err: unknown) => resend.onError?.(err));
      }
    }
    if (Date.now() > deadline) throw new Error(`transaction ${signature} not confirmed in time`);
    await new Promise((r) => setTimeout(r, options.pollMs ?? 200));
  }
}

export async function sendAndConfirm(
  rpc: SolanaRpc,
  feePayer: TransactionSigner,
  instructions: Instruction[],
  commitment: Commitment = 'confirmed',
): Promise<Signature> {
  const tx = await signInstructions(rpc, feePayer, instructions);
  await sendWire(rpc, tx.wire);
  await confirmSignature(rpc, tx.signature, { commitment, resend: { wire: tx.wire, lastValidBlockHeight: tx.lastValidBlockHeight } });
  return tx.signature;
}
