// The state root's leaves (design §4): per-wallet, per-epoch salts from an operator secret, and the liability tree.
import { hmacSha256 } from './crypto.ts';
import { fromBase58, utf8 } from './encoding.ts';
import { buildStateTree, stateLeafId, type StateTree } from './state-tree.ts';

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
  const ids = new Map<string, Uint8Array>();
  const leaves = [...liabilities].map(([wallet, liability]) => {
    const id = stateLeafId(fromBase58(wallet, 32), stateSalt(saltSecret, epoch, wallet));
    ids.set(wallet, id);
    return { id, liability };
  });
  return { tree: buildStateTree(leaves), ids };
}
