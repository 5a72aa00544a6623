// State proofs come from the tree the worker built for its commit (in its process, or over the cluster's IPC), and
// an API process builds an epoch's tree itself only when the worker does not hold the committed one.
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { ipcStateTrees, serveStateTrees, StateProofs, StateTrees, type HeldStateProofs } from '../../funding/state-proof.ts';
import { clusterPair } from '../helpers/cluster-ipc.ts';
import { buildLiabilityTree } from '../../protocol/liabilities.ts';
import { toHex } from '../../protocol/encoding.ts';
import type { PfwsError } from '../../protocol/errors.ts';
import type { Address } from '../../protocol/address.ts';
import type { AnchorStore } from '../../store/anchor-store.ts';

const secret = randomBytes(32);
const wallets = Array.from({ length: 40 }, () => base58.encode(randomBytes(32)) as Address);
const liabilities = new Map(wallets.map((w, i) => [w, BigInt(i * 1_000)] as const));
const EPOCH = 12;
const tree = buildLiabilityTree(secret, EPOCH, liabilities);
const commit = { entryCount: EPOCH, stateRoot: toHex(tree.tree.root), totalLiabilities: tree.tree.total.toString(), commitId: 'c', signature: 's' };

/** The anchor store as the API reads it, counting the epoch snapshots it is asked for. */
function anchorsStub() {
  const reads = { snapshots: 0 };
  const anchors = {
    latestCommit: async () => commit,
    snapshotOf: async () => {
      reads.snapshots++;
      return new Map(liabilities);
    },
  } as unknown as AnchorStore;
  return { anchors, reads };
}

describe('state proofs', () => {
  it('keeps the newest two trees and answers from them', () => {
    const trees = new StateTrees();
    const other = buildLiabilityTree(secret, EPOCH - 1, liabilities);
    trees.keep(EPOCH - 1, other);
    trees.keep(EPOCH, tree);
    expect(trees.proofAt(EPOCH, wallets[3]!)).toEqual({ stateRoot: commit.stateRoot, proof: expect.objectContaining({ liability: '3000' }) });
    expect(trees.proofAt(EPOCH - 1, wallets[3]!)?.stateRoot).toBe(toHex(other.tree.root));
    expect(trees.proofAt(EPOCH, base58.encode(randomBytes(32)))).toEqual({ stateRoot: commit.stateRoot, proof: null });
    trees.keep(EPOCH + 1, buildLiabilityTree(secret, EPOCH + 1, liabilities));
    expect(trees.proofAt(EPOCH - 1, wallets[3]!)).toBeNull();
    expect(trees.proofAt(EPOCH, wallets[3]!)).not.toBeNull();
  });

  it('come from the held tree without building one, and are the proofs a build gives', async () => {
    const trees = new StateTrees();
    trees.keep(EPOCH, tree);
    const held = anchorsStub();
    const fromHeld = new StateProofs({ anchors: held.anchors, saltSecret: secret, held: async (e, w) => trees.proofAt(e, w) });
    const built = anchorsStub();
    const fromBuild = new StateProofs({ anchors: built.anchors, saltSecret: secret });
    for (const wallet of wallets.slice(0, 5)) expect(await fromHeld.proofOf(wallet)).toEqual(await fromBuild.proofOf(wallet));
    expect([fromHeld.builds, held.reads.snapshots]).toEqual([0, 0]);
    expect([fromBuild.builds, built.reads.snapshots]).toEqual([1, 1]);
    const absent = await fromHeld.proofOf(base58.encode(randomBytes(32)) as Address).catch((e: unknown) => e);
    expect((absent as PfwsError).code).toBe('NOT_FOUND');
    expect(fromHeld.builds).toBe(0);
  });

  it('are built once an epoch when the held tree is missing, of another root, or its owner fails', async () => {
    const wrongRoot: HeldStateProofs = async () => ({ stateRoot: '00'.repeat(32), proof: null });
    for (const held of [async () => null, wrongRoot, undefined] as (HeldStateProofs | undefined)[]) {
      const { anchors, reads } = anchorsStub();
      const proofs = new StateProofs({ anchors, saltSecret: secret, ...(held ? { held } : {}) });
      expect((await proofs.proofOf(wallets[7]!)).leaf.liability).toBe('7000');
      expect((await proofs.proofOf(wallets[8]!)).leaf.liability).toBe('8000');
      expect([proofs.builds, reads.snapshots]).toEqual([1, 1]);
    }
  });

  it('cross the cluster IPC from the main process; a silent one reads as not held', async () => {
    const { hub, channel } = clusterPair();
    const trees = new StateTrees();
    trees.keep(EPOCH, tree);
    const stop = serveStateTrees(hub, trees);
    const held = ipcStateTrees(channel, 500);
    expect(await held(EPOCH, wallets[2]!)).toEqual(trees.proofAt(EPOCH, wallets[2]!));
    expect(await held(EPOCH + 5, wallets[2]!)).toBeNull();
    const { anchors, reads } = anchorsStub();
    const proofs = new StateProofs({ anchors, saltSecret: secret, held });
    expect((await proofs.proofOf(wallets[2]!)).leaf.liability).toBe('2000');
    expect([proofs.builds, reads.snapshots]).toEqual([0, 0]);
    stop();
    const started = Date.now();
    expect(await ipcStateTrees(channel, 100)(EPOCH, wallets[2]!)).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });
});
