// LP redemptions under the crediting rules of design §3, as a pure function over a `json` getTransaction result.
// A redemption counts only from a top-level TransferChecked of the LP mint into the keeper's LP account, whose
// authority owns the source and is the sole signer of `pfws:v1:lp-redeem:<authority>` in the same transaction. LP tokens
// that reach the keeper any other way are not redeemed for anyone: they simply stay with the house.
// (LP deposits need nothing new: `classifyTransaction` already credits them as `lp-deposit` items.)
import { getTransferCheckedInstructionDataDecoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { fromBase58 } from '../protocol/encoding.ts';
import { soleSignerMemos } from '../protocol/verify/chain.ts';
import { isAddress, type Address } from '../protocol/address.ts';
import type { RawTransaction } from './crediting.ts';

const TRANSFER_CHECKED = 12;
const transferCheckedData = getTransferCheckedInstructionDataDecoder();

export interface LpContext {
  lpMint: string;
  /** The keeper's LP ATA, where redeemed shares arrive (and are burned from). */
  keeperLpAccount: string;
}

/** One redemption request, applied at most once under `key` (`<signature>:<instruction index>`). */
export interface LpRedeemItem {
  key: string;
  kind: 'lp-redeem';
  signature: string;
  slot: number;
  wallet: Address;
  shares: bigint;
}

export function classifyLpRedeems(tx: RawTransaction, ctx: LpContext): LpRedeemItem[] {
  if (!tx.meta || tx.meta.err !== null) return [];
  const message = tx.transaction.message;
  const keys = [...message.accountKeys, ...(tx.meta.loadedAddresses?.writable ?? []), ...(tx.meta.loadedAddresses?.readonly ?? [])];
  const signature = tx.transaction.signatures[0] as string;
  const redeemers = new Set(soleSignerMemos(tx).flatMap((m) => (m.memo.kind === 'lp-redeem' && m.memo.wallet === m.signer ? [m.signer] : [])));
  if (redeemers.size === 0) return [];
  const items: LpRedeemItem[] = [];
  message.instructions.forEach((ix, index) => {
    if (keys[ix.programIdIndex] !== TOKEN_PROGRAM_ADDRESS || ix.accounts.length !== 4) return;
    let data: Uint8Array;
    try {
      data = fromBase58(ix.data);
    } catch {
      return;
    }
    if (data[0] !== TRANSFER_CHECKED || data.length !== 10) return;
    const [source, mint, destination, authority] = ix.accounts.map((i) => keys[i]) as [string, string, string, string];
    if (mint !== ctx.lpMint || destination !== ctx.keeperLpAccount || source === destination) return;
    if ((ix.accounts[3] as number) >= message.header.numRequiredSignatures || !redeemers.has(authority)) return;
    if (tx.meta?.preTokenBalances?.find((b) => b.accountIndex === ix.accounts[0])?.owner !== authority) return;
    if (!isAddress(authority)) return;
    const { amount } = transferCheckedData.decode(data);
    if (amount > 0n) items.push({ key: `${signature}:${index}`, kind: 'lp-redeem', signature, slot: Number(tx.slot), wallet: authority, shares: amount });
  });
  return items;
}
