// Tails one address through the RPC: pages getSignaturesForAddress back to the durable checkpoint,
// then applies each transaction oldest first, moving the checkpoint after each one.
import { address, signature as toSignature, type Signature } from '@solana/kit';
import type { Redis } from 'ioredis';
import type { SolanaRpc } from '../chain/rpc.ts';
import type { Keys } from '../store/keys.ts';
import type { Ledger } from '../store/ledger.ts';
import { classifyTransaction, type CreditingContext, type RawTransaction, type WalletReveal } from './crediting.ts';

const PAGE = 1000;

export interface TailDeps {
  rpc: SolanaRpc;
  redis: Redis;
  keys: Keys;
  ledger: Ledger;
  ctx: CreditingContext;
  commitment: 'confirmed' | 'finalized';
  now: () => Date;
  onReveal?: (reveal: WalletReveal) => Promise<void>;
  /** Wallets with a bet committed before `committedBeforeMs` and not revealed: their reveal may be a memo. */
  waitingWallets?: (committedBeforeMs: number) => Promise<string[]>;
}

/** Applies every item of one transaction; safe to repeat, since each item is keyed. */
export async function applyTransaction(deps: TailDeps, signature: Signature): Promise<number> {
  const tx = await deps.rpc
    .getTransaction(signature, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: deps.commitment })
    .send();
  if (!tx) throw new Error(`transaction ${signature} is not available yet`);
  const { items, reveals } = classifyTransaction(tx as unknown as RawTransaction, deps.ctx);
  const at = deps.now().toISOString();
  let applied = 0;
  for (const item of items) if (await deps.ledger.applyChainItem(item, at)) applied++;
  for (const reveal of reveals) await deps.onReveal?.(reveal);
  return applied;
}

/** Marks a wallet as recently active, so the indexer also tails its memo-only transactions. */
export async function watchWallet(deps: TailDeps, wallet: string): Promise<void> {
  await deps.redis.zadd(deps.keys.watchedWallets(), Date.now(), wallet);
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
  const checkpointKey = deps.keys.checkpoint(target);
  const checkpoint = await deps.redis.get(checkpointKey);
  let applied = 0;
  for (const { signature, failed } of await newSignatures(deps, target, checkpoint)) {
    if (!shouldContinue()) break;
    if (!failed) applied += await applyTransaction(deps, signature);
    await deps.redis.set(checkpointKey, signature);
  }
  return applied;
}
