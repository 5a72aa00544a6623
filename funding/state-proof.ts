// A player's proof of liabilities: their leaf, salt and Merkle-sum proof under the latest committed state root.
import { IpcAsker, serveIpc, type IpcChannel, type IpcHub } from '../config/cluster-ipc.ts';
import { toHex } from '../protocol/encoding.ts';
import { PfwsError } from '../protocol/errors.ts';
import { LIABILITY_SLICE_HASHES, liabilityTreeSteps, stateSalt, type LiabilityTree } from '../protocol/liabilities.ts';
import { inTurns } from '../operator/in-turns.ts';
import { encodeStateProof, type StateProofJson } from '../protocol/state-tree.ts';
import type { AnchorStore } from '../store/anchor-store.ts';
import type { Address } from '../protocol/address.ts';

/** A wallet's proof from a tree someone already built: its root, and the proof (null: the wallet has no leaf). */
export interface HeldStateProof {
  stateRoot: string;
  proof: StateProofJson | null;
}

/** Proofs from trees already built, or null when the epoch's tree is not held there. */
export type HeldStateProofs = (epoch: number, wallet: Address) => Promise<HeldStateProof | null>;

export interface StateProofDeps {
  anchors: AnchorStore;
  saltSecret: Uint8Array;
  /** Asked first: the worker's own trees (in its process, or over IPC). */
  held?: HeldStateProofs;
  /** Told each time this process builds an epoch's tree itself. */
  onBuild?: () => void;
}

/**
 * The state trees the worker built for its newest commits. Per-epoch salts make each commit's tree new from its
 * leaves up (about 20 µs a wallet): an API process that built it again for a state proof would pay that once a
 * commit, and anyone signed in could make it do so each time.
 */
export class StateTrees {
  /** The newest two: an API process may still read the previous commit as the latest while the next one lands. */
  #trees: { epoch: number; tree: LiabilityTree }[] = [];

  keep(epoch: number, tree: LiabilityTree): void {
    if (this.#trees.some((t) => t.epoch === epoch)) return;
    this.#trees = [...this.#trees, { epoch, tree }].sort((a, b) => b.epoch - a.epoch).slice(0, 2);
  }

  proofAt(epoch: number, wallet: string): HeldStateProof | null {
    const held = this.#trees.find((t) => t.epoch === epoch)?.tree;
    if (!held) return null;
    const id = held.ids.get(wallet);
    return { stateRoot: toHex(held.tree.root), proof: id ? encodeStateProof(held.tree.proof(id)) : null };
  }
}

const IPC_KIND = 'state-trees';

/** The main process answers its API processes' state proofs from the worker's trees. @returns stop */
export function serveStateTrees(hub: IpcHub, trees: StateTrees): () => void {
  return serveIpc(
    hub,
    IPC_KIND,
    {
      proofAt: async ({ epoch, wallet }) => (Number.isSafeInteger(epoch) && typeof wallet === 'string' ? trees.proofAt(epoch as number, wallet) : null),
    },
    (err) => new PfwsError('SERVICE_UNAVAILABLE', `state trees: ${(err as Error).message}`),
  );
}

/** An API process's way to the main process's trees; no answer in `timeoutMs` reads as not held. */
export function ipcStateTrees(channel: IpcChannel, timeoutMs = 2_000): HeldStateProofs {
  const asker = new IpcAsker(channel, IPC_KIND, timeoutMs, (why) => why);
  return async (epoch, wallet) => ((await asker.ask('proofAt', { epoch, wallet }).catch(() => null)) as HeldStateProof | null) ?? null;
}

/** Serves proofs from the worker's trees when it holds them, else from one epoch's tree rebuilt once per commit. */
export class StateProofs {
  #cached: { epoch: number; tree: Promise<LiabilityTree> } | null = null;
  #builds = 0;

  constructor(readonly deps: StateProofDeps) {}

  /** Trees this process built itself. */
  get builds(): number {
    return this.#builds;
  }

  #treeOf(epoch: number): Promise<LiabilityTree> {
    if (this.#cached?.epoch !== epoch) {
      this.#builds++;
      this.deps.onBuild?.();
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

  /** The wallet's proof in the epoch's tree, from the worker's when it holds the committed root; null: no leaf. */
  async #proofAt(epoch: number, stateRoot: string, wallet: Address): Promise<StateProofJson | null> {
    const held = await this.deps.held?.(epoch, wallet);
    if (held && held.stateRoot === stateRoot) return held.proof;
    const { tree, ids } = await this.#treeOf(epoch);
    if (toHex(tree.root) !== stateRoot) throw new Error(`state snapshot of epoch ${epoch} does not rebuild the committed root`);
    const id = ids.get(wallet);
    return id ? encodeStateProof(tree.proof(id)) : null;
  }

  async proofOf(wallet: Address) {
    const commit = await this.deps.anchors.latestCommit();
    if (!commit) throw new PfwsError('NOT_FOUND', 'No state root has been committed yet');
    const epoch = commit.entryCount;
    const proof = await this.#proofAt(epoch, commit.stateRoot, wallet);
    if (!proof) throw new PfwsError('NOT_FOUND', `This wallet has no leaf in the state root of epoch ${epoch}; it appears in the next commit`);
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
