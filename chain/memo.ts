// Memo v2 instructions: every signer account passed here is a required signer of the memo.
import { address, type Instruction, type TransactionSigner } from '@solana/kit';
import { getAddMemoInstruction } from '@solana-program/memo';
import { MEMO_PROGRAM_ID } from '../protocol/memo.ts';

export const MEMO_PROGRAM = address(MEMO_PROGRAM_ID);

export const memoInstruction = (text: string, signers: TransactionSigner[]): Instruction =>
  getAddMemoInstruction({ memo: text, signers }, { programAddress: MEMO_PROGRAM });
