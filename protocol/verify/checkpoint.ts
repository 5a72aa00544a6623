// The served C2SP checkpoint: signed by a pinned anchor key under the pinned origin, and naming exactly
// a size and root the anchor key committed on-chain (two different roots signed for one size are a fork).
import { openCheckpoint, type Checkpoint } from '../checkpoint.ts';
import type { Checks } from './report.ts';
import { chainSize, type ChainCommit } from './log.ts';

/** The roots the chain commits, by size, and its size (a monitor also knows the roots it verified before). */
export interface CommittedRoots {
  rootAt(size: number): string | undefined;
  size: number;
}

export const committedRootsOf = (commits: readonly ChainCommit[]): CommittedRoots => ({
  rootAt: (size) => commits.find((c) => c.memo.entryCount === size)?.memo.betLogRoot,
  size: chainSize(commits),
});

/**
 * Records `checkpoint-signature` and `checkpoint`; returns the checkpoint when its signature verifies.
 * @param note the body of `GET …/bet-log/checkpoint`, or null when none is served
 */
export function checkCheckpoint(
  note: string | null,
  origin: string,
  anchorKeys: readonly string[],
  committed: CommittedRoots,
  checks: Checks,
): Checkpoint | null {
  if (note === null) {
    checks.error('checkpoint-signature', 'the service serves no checkpoint');
    return null;
  }
  let opened: ReturnType<typeof openCheckpoint> = { ok: false, reason: 'no anchor key is pinned' };
  for (const key of anchorKeys) {
    opened = openCheckpoint(note, origin, key);
    if (opened.ok) break;
  }
  if (!opened.ok) {
    checks.fail('checkpoint-signature', `the checkpoint is not a note signed by the pinned anchor key for ${origin}: ${opened.reason}`);
    return null;
  }
  checks.pass('checkpoint-signature');
  const { size, rootHex } = opened.checkpoint;
  const root = committed.rootAt(size);
  if (root !== undefined) {
    checks.add(
      'checkpoint',
      root === rootHex,
      `the checkpoint of size ${size} names root ${rootHex.slice(0, 12)}…, the on-chain commit ${root.slice(0, 12)}… (the anchor key signed a fork)`,
    );
  } else if (size > committed.size) {
    checks.error('checkpoint', `the checkpoint of size ${size} is ahead of the chain as this RPC shows it (${committed.size})`);
  } else {
    checks.fail('checkpoint', `the checkpoint names size ${size}, which the anchor key never committed on-chain`);
  }
  return opened.checkpoint;
}
