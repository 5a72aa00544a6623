// What the chain says the keeper has paid: its memos in the keeper key's own history. The keeper's send rule never
// pages this history (anyone can lengthen it); only a ledger recovery does, for the jobs whose durable record of sends
// was lost with the Redis tail, and it bounds the scan by time.
import { address, signature as toSignature, type Signature } from '@solana/kit';
import { parseMemo, type ParsedMemo } from '../protocol/memo.ts';
import { memosSignedBy, type RpcTransaction } from '../protocol/verify/chain.ts';
import type { SolanaRpc } from './rpc.ts';

const PAGE = 1000;

export interface KeeperPaymentScan {
  /** Keeper memo → the signature of a successful transaction carrying it, signed by the keeper alone. */
  found: Map<string, string>;
  /** The scan reached a transaction older than `sinceUnix` (or `until`, or the start of the history). */
  complete: boolean;
  /** The newest signature seen, for a later scan of what landed since. */
  newest: string | null;
}

export interface KeeperPaymentScanOptions {
  /** Unix seconds: transactions older than this are not looked at (the scan stops at the first one). */
  sinceUnix: number;
  /** Stop at this signature (exclusive): a scan continuing an earlier one. */
  until?: string | null;
  /** @defaultValue 100000 — more of the keeper's transactions than this and the scan is incomplete */
  maxSignatures?: number;
  commitment?: 'confirmed' | 'finalized';
}

const sameMemo = (a: ParsedMemo, b: ParsedMemo): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * The keeper key's transactions since `sinceUnix`, newest first, that carry one of `memos` (exact keeper memos).
 * Signature lists carry each transaction's memo text, so only candidates are read in full; an RPC that does not report
 * memos has every transaction read.
 */
export async function keeperPaymentsSince(
  rpc: SolanaRpc,
  keeperKey: string,
  memos: ReadonlySet<string>,
  options: KeeperPaymentScanOptions,
): Promise<KeeperPaymentScan> {
  const commitment = options.commitment ?? 'confirmed';
  const maxSignatures = options.maxSignatures ?? 100_000;
  const wanted = new Map<string, ParsedMemo>();
  for (const memo of memos) {
    const parsed = parseMemo(memo);
    if (!parsed) throw new RangeError(`not a pfws memo: ${memo}`);
    wanted.set(memo, parsed);
  }
  const found = new Map<string, string>();
  let newest: string | null = null;
  let before: Signature | undefined;
  let seen = 0;
  while (seen < maxSignatures) {
    const page = await rpc.getSignaturesForAddress(address(keeperKey), { limit: PAGE, commitment, ...(before ? { before } : {}) }).send();
    newest ??= page[0]?.signature ?? null;
    for (const info of page) {
      if (options.until && info.signature === options.until) return { found, complete: true, newest };
      if (info.blockTime !== null && Number(info.blockTime) < options.sinceUnix) return { found, complete: true, newest };
      if (info.err !== null) continue;
      const text = (info as { memo?: string | null }).memo;
      if (text === null || (text !== undefined && ![...wanted.keys()].some((m) => text.includes(m)))) continue;
      const tx = await rpc.getTransaction(toSignature(info.signature), { encoding: 'json', maxSupportedTransactionVersion: 0, commitment }).send();
      for (const m of memosSignedBy(tx as unknown as RpcTransaction, keeperKey)) {
        // Newest first: the oldest payment of a memo is the one kept.
        for (const [memo, parsed] of wanted) if (sameMemo(m.memo, parsed)) found.set(memo, info.signature);
      }
    }
    seen += page.length;
    if (page.length < PAGE) return { found, complete: true, newest };
    before = page[page.length - 1]!.signature;
  }
  return { found, complete: false, newest };
}
