// What the chain says this operator has done before: its bet-log commits, signed by the anchor key alone.
import { address, signature as toSignature, type Signature } from '@solana/kit';
import type { CommitMemo } from '../protocol/memo.ts';
import { commitMemosOf, type RpcTransaction } from '../protocol/verify/chain.ts';
import type { SolanaRpc } from './rpc.ts';

const PAGE = 1000;
const COMMIT_PREFIX = 'pfws:v1:commit:';
/** An RPC that does not report memos in signature lists: this many of the newest transactions are read instead. */
const UNREPORTED_MEMO_READS = 50;

export interface OperatorCommit {
  signature: string;
  slot: number;
  /** Unix seconds, when the RPC reports it. */
  blockTime: number | null;
  entryCount: number;
  betLogRoot: string;
  /** The memo's text and fields. */
  text: string;
  memo: CommitMemo;
}

export interface HistoryOptions {
  /** @defaultValue 'confirmed' — a commit that may still finalize counts (never sign past it) */
  commitment?: 'confirmed' | 'finalized';
  /**
   * How many of the anchor key's newest transactions are looked at, at most.
   * @defaultValue 10000
   */
  maxSignatures?: number;
}

/**
 * The anchor key's commit memos, newest first, stopping at `until` (exclusive) or after `maxSignatures` of its
 * transactions. Signature lists carry each transaction's memo text, so only candidates are read in full.
 * @returns the commits found, and whether the scan reached `until` or the start of the history
 */
async function scanCommits(
  rpc: SolanaRpc,
  anchorKey: string,
  options: HistoryOptions & { until?: string; first?: boolean },
): Promise<{ commits: OperatorCommit[]; complete: boolean }> {
  const commitment = options.commitment ?? 'confirmed';
  const maxSignatures = options.maxSignatures ?? 10_000;
  const commits: OperatorCommit[] = [];
  let before: Signature | undefined;
  let seen = 0;
  let unreportedReads = 0;
  while (seen < maxSignatures) {
    const page = await rpc.getSignaturesForAddress(address(anchorKey), { limit: PAGE, commitment, ...(before ? { before } : {}) }).send();
    for (const info of page) {
      if (options.until && info.signature === options.until) return { commits, complete: true };
      if (info.err !== null) continue;
      const memo = (info as { memo?: string | null }).memo;
      const candidate = memo === undefined ? unreportedReads++ < UNREPORTED_MEMO_READS : memo?.includes(COMMIT_PREFIX) === true;
      if (!candidate) continue;
      const tx = await rpc.getTransaction(toSignature(info.signature), { encoding: 'json', maxSupportedTransactionVersion: 0, commitment }).send();
      for (const c of commitMemosOf(tx as unknown as RpcTransaction, anchorKey)) {
        const { kind: _kind, ...fields } = c.memo;
        commits.push({
          signature: c.signature,
          slot: c.slot,
          blockTime: c.blockTime,
          entryCount: c.memo.entryCount,
          betLogRoot: c.memo.betLogRoot,
          text: c.text,
          memo: fields,
        });
      }
      if (options.first && commits.length > 0) return { commits, complete: true };
    }
    seen += page.length;
    if (page.length < PAGE) return { commits, complete: true };
    before = page[page.length - 1]!.signature;
  }
  return { commits, complete: false };
}

/** The newest `pfws:v1:commit:` memo signed by `anchorKey` alone, or null when none is among its newest transactions. */
export async function newestOperatorCommit(rpc: SolanaRpc, anchorKey: string, options: HistoryOptions = {}): Promise<OperatorCommit | null> {
  return (await scanCommits(rpc, anchorKey, { ...options, first: true })).commits[0] ?? null;
}

/**
 * Every commit of `anchorKey` landed after the transaction `afterSignature` (every commit when null), oldest first.
 * @returns `complete: false` when the bound was reached before `afterSignature`: older commits may be missing
 */
export async function operatorCommitsAfter(
  rpc: SolanaRpc,
  anchorKey: string,
  afterSignature: string | null,
  options: HistoryOptions = {},
): Promise<{ commits: OperatorCommit[]; complete: boolean }> {
  const { commits, complete } = await scanCommits(rpc, anchorKey, { ...options, ...(afterSignature ? { until: afterSignature } : {}) });
  return { commits: commits.reverse(), complete };
}
