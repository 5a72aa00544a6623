// Unsigned player transactions (setup, revoke): the wallet is the fee payer and the memo's only signer.
import {
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Instruction,
} from '@solana/kit';
import { memoInstruction } from './memo.ts';
import { getCreateAssociatedTokenIdempotentInstructionAsync, getTransferCheckedInstruction } from '@solana-program/token';
import type { SolanaRpc } from './rpc.ts';
import { ataOf, type ChainSetup } from './genesis.ts';
import { revokeMemo, setupMemo } from '../protocol/memo.ts';
import { USDC_DECIMALS } from '../protocol/money.ts';

export async function unsignedWire(
  rpc: SolanaRpc,
  wallet: Address,
  instructions: Instruction[],
): Promise<{ transaction: string; lastValidBlockHeight: bigint }> {
  const { value: blockhash } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(createNoopSigner(wallet), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return { transaction: getBase64EncodedWireTransaction(compileTransaction(message)), lastValidBlockHeight: blockhash.lastValidBlockHeight };
}

export async function buildSetupTransaction(rpc: SolanaRpc, setup: ChainSetup, wallet: Address, sessionPubkey: string, amountMicro: bigint) {
  const payer = createNoopSigner(wallet);
  const source = await ataOf(wallet, setup.usdcMint);
  const instructions: Instruction[] = [];
  const { value: sourceAccount } = await rpc.getAccountInfo(source, { encoding: 'base64' }).send();
  if (!sourceAccount) {
    // Where needed: the wallet's USDC account also receives withdrawals later.
    instructions.push(await getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: wallet, mint: setup.usdcMint }));
  }
  if (amountMicro > 0n) {
    instructions.push(
      getTransferCheckedInstruction({
        source,
        mint: setup.usdcMint,
        destination: setup.vaultTokenAccount,
        authority: payer,
        amount: amountMicro,
        decimals: USDC_DECIMALS,
      }),
    );
  }
  instructions.push(memoInstruction(setupMemo(wallet, sessionPubkey), [payer]));
  return unsignedWire(rpc, wallet, instructions);
}

export async function buildRevokeTransaction(rpc: SolanaRpc, wallet: Address, sessionPubkey: string) {
  const payer = createNoopSigner(wallet);
  return unsignedWire(rpc, wallet, [memoInstruction(revokeMemo(wallet, sessionPubkey), [payer])]);
}
