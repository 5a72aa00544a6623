// The crediting rules of design §3, as one pure function over a `json`-encoded getTransaction result.
// The indexer and `player/sync` both go through it (funding/tail.ts), so they can never disagree.
import { getTransferCheckedInstructionDataDecoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { fromBase58 } from '../protocol/encoding.ts';
import { isAddress, type Address } from '../protocol/address.ts';
import type { Hex32 } from '../protocol/hex32.ts';
import type { ParsedMemo } from '../protocol/memo.ts';
import { soleSignerMemos, type RpcTransaction } from '../protocol/verify/chain.ts';
import type { ChainItem } from '../store/ledger.ts';

const TRANSFER_CHECKED = 12;
const transferCheckedData = getTransferCheckedInstructionDataDecoder();

interface RawTokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string };
}

/** The subset of a `json`-encoded getTransaction result the rules read. */
export type RawTransaction = RpcTransaction & {
  meta:
    | (NonNullable<RpcTransaction['meta']> & {
        preTokenBalances?: readonly RawTokenBalance[] | null;
        postTokenBalances?: readonly RawTokenBalance[] | null;
      })
    | null;
};

export interface CreditingContext {
  usdcMint: string;
  vaultTokenAccount: string;
}

/** A wallet's self-service reveal; settling it needs the bet, so the caller handles it. */
export interface WalletReveal {
  wallet: Address;
  betPayloadHash: Hex32;
  clientSeedRaw: string;
}

export interface Classification {
  items: ChainItem[];
  reveals: WalletReveal[];
}

function vaultBalance(balances: readonly RawTokenBalance[] | null | undefined, vaultIndex: number, mint: string): bigint {
  const entry = balances?.find((b) => b.accountIndex === vaultIndex && b.mint === mint);
  return entry ? BigInt(entry.uiTokenAmount.amount) : 0n;
}

/**
 * Classifies one transaction into ledger items, each keyed by `<signature>:<instruction index>`
 * (or `<signature>:rest` for what reached the vault without a valid credit).
 */
export function classifyTransaction(tx: RawTransaction, ctx: CreditingContext): Classification {
  const signature = tx.transaction.signatures[0] as string;
  const slot = Number(tx.slot);
  const result: Classification = { items: [], reveals: [] };
  // A failed transaction moves nothing and its memos mean nothing.
  if (!tx.meta || tx.meta.err !== null) return result;

  const message = tx.transaction.message;
  const keys = [...message.accountKeys, ...(tx.meta.loadedAddresses?.writable ?? []), ...(tx.meta.loadedAddresses?.readonly ?? [])];
  const isSigner = (index: number) => index < message.header.numRequiredSignatures;
  const programOf = (ix: { programIdIndex: number }) => keys[ix.programIdIndex];

  // A memo counts only when its signer accounts are exactly one signing wallet (design §3).
  const memos = soleSignerMemos(tx);
  const walletMemo = (wallet: string, kinds: readonly ParsedMemo['kind'][]) =>
    memos.some((m) => m.signer === wallet && kinds.includes(m.memo.kind) && 'wallet' in m.memo && m.memo.wallet === wallet);

  for (const { instructionIndex: index, signer, memo } of memos) {
    // A signer of a confirmed transaction is always an address; the guard only narrows the type.
    if ((memo.kind === 'setup' || memo.kind === 'revoke') && memo.wallet === signer && isAddress(signer)) {
      result.items.push({ key: `${signature}:${index}`, kind: memo.kind, signature, slot, wallet: signer, sessionPubkey: memo.sessionPubkey });
    } else if (memo.kind === 'reveal' && isAddress(signer)) {
      result.reveals.push({ wallet: signer, betPayloadHash: memo.betPayloadHash, clientSeedRaw: memo.clientSeedRaw });
    }
  }

  const vaultIndex = keys.indexOf(ctx.vaultTokenAccount);
  if (vaultIndex < 0) return result;
  const delta = vaultBalance(tx.meta.postTokenBalances, vaultIndex, ctx.usdcMint) - vaultBalance(tx.meta.preTokenBalances, vaultIndex, ctx.usdcMint);
  let credited = 0n;
  message.instructions.forEach((ix, index) => {
    if (programOf(ix) !== TOKEN_PROGRAM_ADDRESS) return;
    let data: Uint8Array;
    try {
      data = fromBase58(ix.data);
    } catch {
      return;
    }
    // Exactly source, mint, destination, authority: a multisig authority never credits anyone.
    if (data[0] !== TRANSFER_CHECKED || data.length !== 10 || ix.accounts.length !== 4) return;
    const [source, mint, destination, authority] = ix.accounts.map((i) => keys[i]) as [string, string, string, string];
    if (mint !== ctx.usdcMint || destination !== ctx.vaultTokenAccount || !isSigner(ix.accounts[3] as number)) return;
    const owner = tx.meta?.preTokenBalances?.find((b) => b.accountIndex === ix.accounts[0])?.owner;
    if (owner !== authority || source === destination || !isAddress(authority)) return;
    const { amount } = transferCheckedData.decode(data);
    if (amount <= 0n) return;
    const kind = walletMemo(authority, ['setup', 'deposit']) ? 'deposit' : walletMemo(authority, ['lp-deposit']) ? 'lp-deposit' : null;
    if (!kind) return;
    result.items.push({ key: `${signature}:${index}`, kind, signature, slot, wallet: authority, amount });
    credited += amount;
  });
  const rest = delta - credited;
  if (rest > 0n) result.items.push({ key: `${signature}:rest`, kind: 'unattributed', signature, slot, amount: rest });
  return result;
}
