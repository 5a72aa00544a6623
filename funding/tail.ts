// Tails one address through the RPC: pages getSignaturesForAddress back to the durable checkpoint, then
// applies each transaction oldest first under the crediting rules, moving the checkpoint after each one.
// The indexer, `player/sync` and the x402 route all come through here, so they can never disagree.
import { address, signature as toSignature, type Signature } from '@solana/kit';
import type { SolanaRpc } from '../chain/rpc.ts';
import type { IndexerStore } from '../store/indexer.ts';
import type { ChainItem, LedgerStore } from '../store/ledger.ts';
import type { Classification, CreditingContext, RawTransaction, WalletReveal } from './crediting.ts';
import { classifyLpRedeems, type LpContext } from './lp-crediting.ts';
import { classifyWithX402 } from './x402-crediting.ts';
import type { Address } from '../protocol/address.ts';

/** What the rules read a transaction against: the USDC mint and vault, the LP mint and the keeper's LP account. */
export type TailContext = CreditingContext & LpContext;

/** Every crediting rule over one transaction: deposits, x402 top-ups, key memos, reveals, LP deposits and redemptions. */
export function classifyAll(tx: RawTransaction, ctx: TailContext): Classification {
  const base = classifyWithX402(tx, ctx);
  const redeems = classifyLpRedeems(tx, ctx);
  return redeems.length === 0 ? base : { items: [...base.items, ...redeems], reveals: base.reveals };
}

const PAGE = 1000;

export interface TailDeps {
  rpc: SolanaRpc;
  ledger: Pick<LedgerStore, 'applyChainItem'>;
  indexer: IndexerStore;
  ctx: TailContext;
  commitment: 'confirmed' | 'finalized';
  clock: () => Date;
  /** The public alias journaled for a wallet's items. */
  aliasOf: (wallet: string) => string;
  /** Settles a committed bet from the wallet's own reveal memo (the bet lifecycle). */
  onReveal: (reveal: WalletReveal) => Promise<void>;
}

/**
 * Applies every item of one transaction; safe to repeat, since each item is keyed.
 * @returns how many items were applied now, and every item the transaction holds (applied now or before); null when
 *   the transaction is not visible at the ledger's commitment yet
 */
export async function applySignature(deps: TailDeps, signature: Signature): Promise<{ applied: number; items: ChainItem[] } | null> {
  const tx = await deps.rpc.getTransaction(signature, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: deps.commitment }).send();
  if (!tx) return null;
  const { items, reveals } = classifyAll(tx as unknown as RawTransaction, deps.ctx);
  const at = deps.clock().toISOString();
  let applied = 0;
  for (const item of items) {
    const withAlias = item.wallet ? { ...item, alias: deps.aliasOf(item.wallet) } : item;
    if (await deps.ledger.applyChainItem(withAlias, at)) applied++;
  }
  for (const reveal of reveals) await deps.onReveal(reveal);
  return { applied, items };
}

/** {@link applySignature} for a signature the RPC listed: it must be readable. */
export async function applyTransaction(deps: TailDeps, signature: Signature): Promise<number> {
  const result = await applySignature(deps, signature);
  if (!result) throw new Error(`transaction ${signature} is not available yet`);
  return result.applied;
}

/** Marks a wallet as recently active, so the indexer also tails its memo-only transactions. */
export async function watchWallet(deps: Pick<TailDeps, 'indexer' | 'clock'>, wallet: Address): Promise<void> {
  await deps.indexer.watchWallet(wallet, deps.clock().getTime());
}

/** Signatures newer than the checkpoint, oldest first. */
async function newSignatures(deps: TailDeps, target: string, checkpoint: string | null): Promise<{ signature: Signature; failed: boolean }[]> {
  const found: { signature: Signature; failed: boolean }[] = [];
  let before: Signature | undefined;
  for (;;) {
    const page = await deps.rpc
      .getSignaturesForAddress(address(target), {
        limit: PAGE,
        commitment: deps.commitment,
        ...(checkpoint ? { until: toSignature(checkpoint) } : {}),
        ...(before ? { before } : {}),
      })
      .send();
    for (const info of page) found.push({ signature: info.signature, failed: info.err !== null });
    if (page.length < PAGE) break;
    before = page[page.length - 1]!.signature;
  }
  return found.reverse();
}

/** @returns the number of ledger items applied */
export async function tailAddress(deps: TailDeps, target: string, shouldContinue: () => boolean = () => true): Promise<number> {
  const checkpoint = await deps.indexer.checkpoint(target);
  let applied = 0;
  for (const { signature, failed } of await newSignatures(deps, target, checkpoint)) {
    if (!shouldContinue()) break;
    if (!failed) applied += await applyTransaction(deps, signature);
    await deps.indexer.setCheckpoint(target, signature);
  }
  return applied;
}

/**
 * The items of every transaction newer than the checkpoint, oldest first, with their wallets' aliases, applied or
 * not and without applying any: ledger recovery matches them to the archived journal entries that applied them.
 */
export async function itemsSinceCheckpoint(deps: TailDeps, target: string): Promise<ChainItem[]> {
  const checkpoint = await deps.indexer.checkpoint(target);
  const out: ChainItem[] = [];
  for (const { signature, failed } of await newSignatures(deps, target, checkpoint)) {
    if (failed) continue;
    const tx = await deps.rpc.getTransaction(signature, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: deps.commitment }).send();
    if (!tx) continue;
    for (const item of classifyAll(tx as unknown as RawTransaction, deps.ctx).items)
      out.push(item.wallet ? { ...item, alias: deps.aliasOf(item.wallet) } : item);
  }
  return out;
}
