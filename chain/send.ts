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

/**
 * Polls until the signature reaches `commitment`.
 * @throws when the transaction failed on-chain or did not land in time
 */
export async function confirmSignature(
  rpc: SolanaRpc,
  signature: Signature,
  options: { commitment?: Commitment; timeoutMs?: number; pollMs?: number } = {},
): Promise<{ slot: bigint }> {
  const wanted = options.commitment ?? 'confirmed';
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const rank = { processed: 0, confirmed: 1, finalized: 2 } as const;
  for (;;) {
    const { value } = await rpc.getSignatureStatuses([signature]).send();
    const status = value[0];
    if (status) {
      if (status.err) throw new Error(`transaction ${signature} failed: ${JSON.stringify(status.err, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
      if (status.confirmationStatus && rank[status.confirmationStatus] >= rank[wanted]) return { slot: status.slot };
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
  await confirmSignature(rpc, tx.signature, { commitment });
  return tx.signature;
}
