// A player's proof of liabilities: their leaf, salt and Merkle-sum proof under the latest committed state root.
import { toHex } from '../protocol/encoding.ts';
import { PfwsError } from '../protocol/errors.ts';
import { LIABILITY_SLICE_HASHES, liabilityTreeSteps, stateSalt, type LiabilityTree } from '../protocol/liabilities.ts';
import { inTurns } from '../operator/in-turns.ts';
import { encodeStateProof } from '../protocol/state-tree.ts';
import type { AnchorStore } from '../store/anchor-store.ts';
import type { Address } from '../protocol/address.ts';

export interface StateProofDeps {
  anchors: AnchorStore;
  saltSecret: Uint8Array;
}

/** Serves proofs from one epoch's tree, rebuilt once per commit. */
export class StateProofs {
  #cached: { epoch: number; tree: Promise<LiabilityTree> } | null = null;

  constructor(readonly deps: StateProofDeps) {}

  #treeOf(epoch: number): Promise<LiabilityTree> {
    if (this.#cached?.epoch !== epoch) {
      const tree = this.deps.anchors
        .snapshotOf(epoch)
        .then((liabilities) => inTurns(liabilityTreeSteps(this.deps.saltSecret, epoch, liabilities, LIABILITY_SLICE_HASHES)));
      this.#cached = { epoch, tree };
      tree.catch(() => {
        if (this.#cached?.tree === tree) this.#cached = null;
      });
    }
    return this.#cached.tree;
  }

  async proofOf(wallet: Address) {
    const commit = await this.deps.anchors.latestCommit();
    if (!commit) throw new PfwsError('NOT_FOUND', 'No state root has been committed yet');
    const epoch = commit.entryCount;
    const { tree, ids } = await this.#treeOf(epoch);
    if (toHex(tree.root) !== commit.stateRoot) throw new Error(`state snapshot of epoch ${epoch} does not rebuild the committed root`);
    const id = ids.get(wallet);
    if (!id) throw new PfwsError('NOT_FOUND', `This wallet has no leaf in the state root of epoch ${epoch}; it appears in the next commit`);
    const proof = encodeStateProof(tree.proof(id));
    return {
      wallet,
      epoch,
      entryCount: commit.entryCount,
      commitId: commit.commitId,
      commitSignature: commit.signature,
      stateRoot: commit.stateRoot,
      totalLiabilities: commit.totalLiabilities,
      salt: toHex(stateSalt(this.deps.saltSecret, epoch, wallet)),
      leaf: { id: proof.id, liability: proof.liability },
      proof,
    };
  }
}
