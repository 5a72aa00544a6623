// What the chain says this operator has done before: its newest bet-log commit, signed by the anchor key alone.
import { address, signature as toSignature, type Signature } from '@solana/kit';
import { commitMemosOf, type RpcTransaction } from '../protocol/verify/chain.ts';
import type { SolanaRpc } from './rpc.ts';

const PAGE = 1000;
const COMMIT_PREFIX = 'pfws:v1:commit:';
/** An RPC that does not report memos in signature lists: this many of the newest transactions are read instead. */
const UNREPORTED_MEMO_READS = 50;

export interface OperatorCommit {
  signature: string;
  slot: number;
  entryCount: number;
}

/**
 * The newest `pfws:v1:commit:` memo signed by `anchorKey` alone, or null when the chain has none. Signature
 * lists carry each transaction's memo text, so only candidates are read in full; at most `maxSignatures` of
 * the anchor key's newest transactions are looked at.
 */
export async function newestOperatorCommit(
  rpc: SolanaRpc,
  anchorKey: string,
  options: { commitment?: 'confirmed' | 'finalized'; maxSignatures?: number } = {},
): Promise<OperatorCommit | null> {
  const commitment = options.commitment ?? 'confirmed';
  const maxSignatures = options.maxSignatures ?? 10_000;
  let before: Signature | undefined;
  let seen = 0;
  let unreportedReads = 0;
  while (seen < maxSignatures) {
    const page = await rpc.getSignaturesForAddress(address(anchorKey), { limit: PAGE, commitment, ...(before ? { before } : {}) }).send();
    for (const info of page) {
      if (info.err !== null) continue;
      const memo = (info as { memo?: string | null }).memo;
      const candidate = memo === undefined ? unreportedReads++ < UNREPORTED_MEMO_READS : memo?.includes(COMMIT_PREFIX) === true;
      if (!candidate) continue;
      const tx = await rpc.getTransaction(toSignature(info.signature), { encoding: 'json', maxSupportedTransactionVersion: 0, commitment }).send();
      const [commit] = commitMemosOf(tx as unknown as RpcTransaction, anchorKey);
      if (commit) return { signature: commit.signature, slot: commit.slot, entryCount: commit.memo.entryCount };
    }
    seen += page.length;
    if (page.length < PAGE) break;
    before = page[page.length - 1]!.signature;
  }
  return null;
}
