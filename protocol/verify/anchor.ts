// Checks that a receipt's bet-log entry is included under a root the anchor key committed on-chain.
import { verifyInclusionHex, type NodeMemo } from './proofs.ts';
import { commitMemosOf, type RpcTransaction } from './chain.ts';
import type { Checks } from './report.ts';
import { isRecord } from './turn.ts';
import { isBoundedInt, isField, MAX_LOG_SIZE } from './bounds.ts';

/** The anchor key (or every anchor key of the trust root), and the chain's view of a commit transaction. */
export interface AnchorContext {
  operatorPublicKey: string | readonly string[];
  /** The `json`-encoded transaction of a commit signature; null or undefined when the chain has none. */
  commitTx(signature: string): RpcTransaction | null | undefined;
}

/** What a receipt's anchor claims, once its proof has verified. */
export interface AnchorClaim {
  betLogIndex: number;
  entryCount: number;
  betLogRoot: string;
  stateRoot: unknown;
  commitAccount: unknown;
  commitSignature: unknown;
}

export const anchorKeys = (key: string | readonly string[]): readonly string[] => (typeof key === 'string' ? [key] : key);

type CommitMemo = ReturnType<typeof commitMemosOf>[number];

// A bulk audit checks every receipt of a commit against the same transaction: its anchor-key memos are
// gathered once per transaction (and key list), not copied again for each receipt. Read-only.
const commitMemosByTx = new WeakMap<RpcTransaction, Map<string, readonly CommitMemo[]>>();

function anchorCommitMemos(tx: RpcTransaction, keys: readonly string[]): readonly CommitMemo[] {
  if (typeof tx !== 'object') return keys.flatMap((k) => commitMemosOf(tx, k));
  let byKeys = commitMemosByTx.get(tx);
  if (!byKeys) {
    byKeys = new Map();
    commitMemosByTx.set(tx, byKeys);
  }
  const id = keys.join(',');
  let memos = byKeys.get(id);
  if (!memos) {
    memos = keys.flatMap((k) => commitMemosOf(tx, k));
    byKeys.set(id, memos);
  }
  return memos;
}

/**
 * The CPU part: the anchored leaf is the rebuilt one and the inclusion proof verifies under the claimed
 * root. A receipt not anchored yet cannot be checked here (an `error`, not a violation).
 * @param memo nodes shared with the other proofs of a bulk check
 * @returns the claim to check on-chain, or null
 */
export function inspectAnchor(anchor: unknown, leafHex: string, checks: Checks, pending: 'error' | 'skip' = 'error', memo?: NodeMemo): AnchorClaim | null {
  if (!isRecord(anchor)) {
    checks.fail('anchor', 'the receipt has no anchor object');
    return null;
  }
  checks.add('entry-hash', anchor.betLogEntryHash === leafHex, 'anchor.betLogEntryHash is not the leaf of the entry rebuilt from the verified bet');
  if (anchor.status !== 'committed') {
    const reason = `not anchored yet (anchor.status is ${JSON.stringify(anchor.status)})`;
    if (anchor.status !== 'pending_commit') checks.fail('anchored', `anchor.status ${JSON.stringify(anchor.status)} is neither committed nor pending_commit`);
    else if (pending === 'error') checks.error('anchored', reason);
    else checks.skip('anchored', `${reason}; the log itself proves its inclusion`);
    return null;
  }
  checks.pass('anchored');
  const { betLogIndex, entryCount, betLogRoot } = anchor;
  if (!isBoundedInt(entryCount, 1, MAX_LOG_SIZE) || !isBoundedInt(betLogIndex, 0, (entryCount as number) - 1) || !isField(betLogRoot)) {
    checks.fail('inclusion', 'betLogIndex, entryCount or betLogRoot is malformed');
    return null;
  }
  const included = verifyInclusionHex(leafHex, betLogIndex, entryCount, anchor.betLogProof, betLogRoot, memo);
  checks.add('inclusion', included.ok ? included : { ok: false, reason: `inclusion proof fails: ${included.reason}` });
  if (!included.ok) return null;
  return { betLogIndex, entryCount, betLogRoot, stateRoot: anchor.stateRoot, commitAccount: anchor.commitAccount, commitSignature: anchor.commitSignature };
}

/** The chain part: the claimed root and size are in a commit memo the anchor key alone signed. */
export function checkAnchorOnChain(claim: AnchorClaim, ctx: AnchorContext, checks: Checks): void {
  const keys = anchorKeys(ctx.operatorPublicKey);
  checks.add('commit-account', typeof claim.commitAccount === 'string' && keys.includes(claim.commitAccount), 'commitAccount is not the pinned anchor key');
  if (typeof claim.commitSignature !== 'string' || !isField(claim.commitSignature)) {
    checks.fail('on-chain-commit', 'commitSignature is missing');
    return;
  }
  const tx = ctx.commitTx(claim.commitSignature);
  if (tx === undefined) {
    checks.error('on-chain-commit', `transaction ${claim.commitSignature} could not be read from the chain`);
    return;
  }
  if (tx === null) {
    checks.fail('on-chain-commit', `transaction ${claim.commitSignature} is not on-chain`);
    return;
  }
  const memos = anchorCommitMemos(tx, keys);
  const match = memos.find((m) => m.memo.entryCount === claim.entryCount && m.memo.betLogRoot === claim.betLogRoot);
  if (!memos.length) checks.fail('on-chain-commit', 'the transaction carries no commit memo signed by the anchor key alone');
  else if (!match) checks.fail('on-chain-commit', `the on-chain memo commits a different root or size (${memos[0]!.text})`);
  else {
    checks.pass('on-chain-commit');
    checks.add('state-root', match.memo.stateRoot === claim.stateRoot, 'anchor.stateRoot differs from the on-chain memo');
  }
}
