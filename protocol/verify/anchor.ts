// Checks that a receipt's bet-log entry is included under a root the anchor key committed on-chain.
import { verifyInclusionHex } from './proofs.ts';
import { commitMemosOf, type RpcTransaction } from './chain.ts';
import type { Checks } from './report.ts';
import { isRecord } from './turn.ts';

export interface AnchorContext {
  operatorPublicKey: string;
  /** The `json`-encoded transaction of a commit signature; null or undefined when the chain has none. */
  commitTx(signature: string): RpcTransaction | null | undefined;
}

/**
 * Runs the anchor checks for a receipt whose bet-log entry hashes to `leafHex`.
 * @returns true when every anchor check passed
 */
export function checkAnchor(anchor: unknown, leafHex: string, ctx: AnchorContext, checks: Checks): boolean {
  const before = checks.list.length;
  if (!isRecord(anchor)) {
    checks.fail('anchor', 'the receipt has no anchor object');
    return false;
  }
  checks.add('entry-hash', anchor.betLogEntryHash === leafHex, 'anchor.betLogEntryHash is not the leaf hash of the bet-log entry');
  if (anchor.status !== 'committed') {
    checks.fail('anchored', `not anchored yet (anchor.status is ${JSON.stringify(anchor.status)})`);
    return false;
  }
  checks.pass('anchored');
  const { betLogIndex, entryCount, betLogRoot, commitSignature } = anchor;
  if (!Number.isSafeInteger(betLogIndex) || !Number.isSafeInteger(entryCount)) {
    checks.fail('inclusion', 'betLogIndex or entryCount is not an integer');
    return false;
  }
  const included = verifyInclusionHex(leafHex, betLogIndex as number, entryCount as number, anchor.betLogProof, betLogRoot);
  checks.add('inclusion', included.ok ? included : { ok: false, reason: `inclusion proof fails: ${included.reason}` });
  checks.add('commit-account', anchor.commitAccount === ctx.operatorPublicKey, 'commitAccount is not the published anchor key');

  if (typeof commitSignature !== 'string') {
    checks.fail('on-chain-commit', 'commitSignature is missing');
    return false;
  }
  const tx = ctx.commitTx(commitSignature);
  if (!tx) {
    checks.fail('on-chain-commit', `transaction ${commitSignature} is not on-chain`);
  } else {
    const memos = commitMemosOf(tx, ctx.operatorPublicKey);
    const match = memos.find((m) => m.memo.entryCount === entryCount && m.memo.betLogRoot === betLogRoot);
    if (!memos.length) checks.fail('on-chain-commit', 'the transaction carries no commit memo signed by the anchor key alone');
    else if (!match) checks.fail('on-chain-commit', `the on-chain memo commits a different root or size (${memos[0]!.text})`);
    else {
      checks.pass('on-chain-commit');
      checks.add('state-root', match.memo.stateRoot === anchor.stateRoot, 'anchor.stateRoot differs from the on-chain memo');
    }
  }
  return checks.list.slice(before).every((c) => c.status !== 'fail');
}
