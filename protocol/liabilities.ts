// The state root's leaves (design §4): per-wallet, per-epoch salts from an operator secret, and the liability tree.
import { hmacSha256 } from './crypto.ts';
import { fromBase58, utf8 } from './encoding.ts';
import { finish, sliceCounter } from './slices.ts';
import { stateLeafId, stateTreeSteps, type StateLeaf, type StateTree } from './state-tree.ts';

/**
 * salt = HMAC-SHA256(saltSecret, "pfws:state-salt:<epoch>:<wallet>"): unguessable without the secret,
 * so a leaf id reveals nothing, yet the service can re-derive it for the player's proof.
 */
export const stateSalt = (saltSecret: Uint8Array, epoch: number, wallet: string): Uint8Array =>
  hmacSha256(saltSecret, utf8(`pfws:state-salt:${epoch}:${wallet}`));

export interface LiabilityTree {
  tree: StateTree;
  /** The leaf id of each wallet. */
  ids: Map<string, Uint8Array>;
}

/**
 * Builds the Merkle-sum tree of one epoch's liabilities.
 * @throws {RangeError} when a liability is negative (a ledger fault) or the total overflows u64
 */
export function buildLiabilityTree(saltSecret: Uint8Array, epoch: number, liabilities: ReadonlyMap<string, bigint>): LiabilityTree {
  return finish(liabilityTreeSteps(saltSecret, epoch, liabilities));
}

/** Hashes a slice of {@link liabilityTreeSteps} takes between two turns of a caller's event loop: about 5 ms here. */
export const LIABILITY_SLICE_HASHES = 2048;

/**
 * {@link buildLiabilityTree} in slices of about `sliceHashes` hashes (a wallet's id counts as two), yielding between
 * them: a commit's tree of 10,000 wallets is about 0.2 s of hashing, which would otherwise hold the process that builds
 * it (the worker's, or an API process answering a state proof) for all of that time.
 */
export function* liabilityTreeSteps(
  saltSecret: Uint8Array,
  epoch: number,
  liabilities: ReadonlyMap<string, bigint>,
  sliceHashes = Number.POSITIVE_INFINITY,
): Generator<void, LiabilityTree> {
  const ids = new Map<string, Uint8Array>();
  const leaves: StateLeaf[] = [];
  const due = sliceCounter(sliceHashes);
  for (const [wallet, liability] of liabilities) {
    const id = stateLeafId(fromBase58(wallet, 32), stateSalt(saltSecret, epoch, wallet));
    ids.set(wallet, id);
    leaves.push({ id, liability });
    if (due(2)) yield;
  }
  return { tree: yield* stateTreeSteps(leaves, sliceHashes), ids };
}
