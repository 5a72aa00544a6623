// x402 top-ups under the crediting rules of design §3, as a pure addition to `classifyTransaction`.
//
// x402's exact scheme builds the payer's transaction itself: the facilitator is the fee payer, and the only memo it
// allows is the seller's text with no signer accounts. So an x402 top-up cannot carry a wallet-signed deposit memo.
// It counts as the payer's deposit when all of these hold, and otherwise stays unattributed exactly as before:
// - a top-level TransferChecked of the USDC mint into the vault, in a transaction that succeeded;
// - the transfer's authority signed the transaction and owns the source account (as for every deposit);
// - a top-level Memo v2 instruction reads `pfws:v1:x402:<authority>:<nonce>`, with no signer accounts or only the
//   authority. The authority's signature covers the whole message, memo included, so the payer named themself.
// The credit goes only to the wallet that paid and signed, keyed `<signature>:<instruction index>` like every deposit,
// so the route (right after settling) and the indexer (after any crash) apply it once between them. Its item kind is
// `x402-deposit`: credited exactly as a deposit, journaled with `source: 'x402'` and the payment id.
import { getTransferCheckedInstructionDataDecoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { fromBase58 } from '../protocol/encoding.ts';
import { isAddress } from '../protocol/address.ts';
import { MEMO_PROGRAM_ID, parseMemo } from '../protocol/memo.ts';
import type { ChainItem } from '../store/ledger.ts';
import { classifyTransaction, type Classification, type CreditingContext, type RawTransaction } from './crediting.ts';

const TRANSFER_CHECKED = 12;
const transferCheckedData = getTransferCheckedInstructionDataDecoder();

/** A top-level TransferChecked of the USDC mint into the vault, by a signing authority that owns the source. */
export interface VaultTransfer {
  instructionIndex: number;
  authority: string;
  amount: bigint;
}

function accountKeys(tx: RawTransaction): string[] {
  return [...tx.transaction.message.accountKeys, ...(tx.meta?.loadedAddresses?.writable ?? []), ...(tx.meta?.loadedAddresses?.readonly ?? [])];
}

function decodeBase58(data: string): Uint8Array | null {
  try {
    return fromBase58(data);
  } catch {
    return null;
  }
}

/** The transfers into the vault that could credit their authority, under the same checks as `classifyTransaction`. */
export function vaultTransfers(tx: RawTransaction, ctx: CreditingContext): VaultTransfer[] {
  if (!tx.meta || tx.meta.err !== null) return [];
  const message = tx.transaction.message;
  const keys = accountKeys(tx);
  const out: VaultTransfer[] = [];
  message.instructions.forEach((ix, instructionIndex) => {
    if (keys[ix.programIdIndex] !== TOKEN_PROGRAM_ADDRESS) return;
    const data = decodeBase58(ix.data);
    // Exactly source, mint, destination, authority: a multisig authority never credits anyone.
    if (!data || data[0] !== TRANSFER_CHECKED || data.length !== 10 || ix.accounts.length !== 4) return;
    const [source, mint, destination, authority] = ix.accounts.map((i) => keys[i]) as [string, string, string, string];
    if (mint !== ctx.usdcMint || destination !== ctx.vaultTokenAccount || source === destination) return;
    if ((ix.accounts[3] as number) >= message.header.numRequiredSignatures) return;
    const owner = tx.meta?.preTokenBalances?.find((b) => b.accountIndex === ix.accounts[0])?.owner;
    if (owner !== authority) return;
    const { amount } = transferCheckedData.decode(data);
    if (amount > 0n) out.push({ instructionIndex, authority, amount });
  });
  return out;
}

/** Wallets named by a top-level `pfws:v1:x402:` memo whose signer accounts are none, or only that wallet (a signer). */
function x402Payers(tx: RawTransaction): Set<string> {
  const message = tx.transaction.message;
  const keys = accountKeys(tx);
  const payers = new Set<string>();
  for (const ix of message.instructions) {
    if (keys[ix.programIdIndex] !== MEMO_PROGRAM_ID) continue;
    const bytes = decodeBase58(ix.data);
    if (!bytes) continue;
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      continue;
    }
    const memo = parseMemo(text);
    if (memo?.kind !== 'x402') continue;
    const signers = ix.accounts.map((i) => (i < message.header.numRequiredSignatures ? keys[i] : undefined));
    if (signers.length === 0 || (signers.length === 1 && signers[0] === memo.wallet)) payers.add(memo.wallet);
  }
  return payers;
}

/**
 * The x402 deposits of `tx`: each qualifying transfer whose authority an x402 memo names, except the instructions in
 * `alreadyCredited` (item keys another rule credited, e.g. a transfer that also carries a signed deposit memo).
 */
export function x402Deposits(tx: RawTransaction, ctx: CreditingContext, alreadyCredited: ReadonlySet<string> = new Set()): ChainItem[] {
  if (!tx.meta || tx.meta.err !== null) return [];
  const payers = x402Payers(tx);
  if (payers.size === 0) return [];
  const signature = tx.transaction.signatures[0] as string;
  const slot = Number(tx.slot);
  return vaultTransfers(tx, ctx).flatMap((t) =>
    payers.has(t.authority) && isAddress(t.authority) && !alreadyCredited.has(`${signature}:${t.instructionIndex}`)
      ? [{ key: `${signature}:${t.instructionIndex}`, kind: 'x402-deposit' as const, signature, slot, wallet: t.authority, amount: t.amount }]
      : [],
  );
}

/**
 * `classifyTransaction` plus x402 top-ups: the indexer, `player/sync` and the x402 route all classify through this,
 * so they can never disagree. Without an x402 memo the result is exactly `classifyTransaction`'s.
 */
export function classifyWithX402(tx: RawTransaction, ctx: CreditingContext): Classification {
  const base = classifyTransaction(tx, ctx);
  const credited = new Set(base.items.filter((i) => i.kind === 'deposit' || i.kind === 'lp-deposit').map((i) => i.key));
  const extra = x402Deposits(tx, ctx, credited);
  if (extra.length === 0) return base;
  const rest = base.items.find((i) => i.kind === 'unattributed');
  const left = (rest?.amount ?? 0n) - extra.reduce((sum, i) => sum + (i.amount ?? 0n), 0n);
  const items = [...base.items.filter((i) => i !== rest), ...extra];
  if (rest && left > 0n) items.push({ ...rest, amount: left });
  return { items, reveals: base.reveals };
}
