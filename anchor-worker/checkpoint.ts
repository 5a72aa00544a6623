// Signs the bet log's C2SP checkpoint for the latest commit: the anchor key lives on the worker only, so
// the worker signs and stores the note and the API serves it as stored.
import type { OperatorKey } from '../operator/keys.ts';
import type { AnchorStore } from '../store/anchor-store.ts';
import type { TransparencyStore } from '../store/transparency.ts';
import { signCheckpoint } from '../protocol/checkpoint.ts';

export interface CheckpointDeps {
  anchorStore: AnchorStore;
  transparency: TransparencyStore;
  anchorKey: OperatorKey;
  origin: string;
}

/**
 * Signs and stores the checkpoint of the latest commit unless one of that size is stored already.
 * Idempotent: one size has one root and Ed25519 is deterministic, so a retry stores the same note.
 * @returns the checkpoint's size, or null when nothing is committed yet
 */
export async function signLatestCheckpoint(deps: CheckpointDeps): Promise<number | null> {
  const commit = await deps.anchorStore.latestCommit();
  if (!commit) return null;
  const stored = await deps.transparency.latestCheckpoint();
  if (stored && stored.size >= commit.entryCount) return stored.size;
  const note = signCheckpoint({ origin: deps.origin, size: commit.entryCount, rootHex: commit.betLogRoot }, deps.anchorKey.seed, deps.anchorKey.publicKey);
  await deps.transparency.saveCheckpoint(commit.entryCount, note);
  return commit.entryCount;
}
