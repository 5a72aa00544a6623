// The caller's proof of liabilities under the latest committed state root.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { responses } from '../../schemas/common.ts';
import { StateProofResponse } from '../../schemas/anchor.ts';
import { ApiError } from '../../schemas/errors.ts';
import { AnchorStore } from '../../store/anchor-store.ts';
import { buildLiabilityTree, stateSalt, type LiabilityTree } from '../../store/anchor-state.ts';
import { encodeStateProof } from '../../protocol/state-tree.ts';
import { toHex } from '../../protocol/encoding.ts';

export default async function stateProofRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { services } = app;
  const store = new AnchorStore(services.redis, services.keys);
  // One epoch's tree serves every player until the next commit.
  let cached: { epoch: number; tree: Promise<LiabilityTree> } | null = null;

  app.get(
    '/protocol/v1/player/state-proof',
    {
      onRequest: app.requireWallet,
      schema: {
        tags: ['player'],
        security: [{ bearer: [] }],
        summary: 'Your leaf, salt and Merkle-sum proof under the latest committed stateRoot',
        response: responses({ 200: StateProofResponse }),
      },
    },
    async (request) => {
      const commit = await store.latestCommit();
      if (!commit) throw new ApiError('NOT_FOUND', 'No state root has been committed yet');
      const epoch = commit.entryCount;
      if (cached?.epoch !== epoch) {
        const tree = store.snapshotOf(epoch).then((liabilities) => buildLiabilityTree(services.saltSecret, epoch, liabilities));
        cached = { epoch, tree };
        tree.catch(() => {
          if (cached?.tree === tree) cached = null;
        });
      }
      const { tree, ids } = await cached.tree;
      if (toHex(tree.root) !== commit.stateRoot) throw new Error(`state snapshot of epoch ${epoch} does not rebuild the committed root`);
      const id = ids.get(request.wallet);
      if (!id) throw new ApiError('NOT_FOUND', `This wallet has no leaf in the state root of epoch ${epoch}; it appears in the next commit`);
      const proof = encodeStateProof(tree.proof(id));
      return {
        wallet: request.wallet,
        epoch,
        entryCount: commit.entryCount,
        commitId: commit.commitId,
        commitSignature: commit.signature,
        stateRoot: commit.stateRoot,
        totalLiabilities: commit.totalLiabilities,
        salt: toHex(stateSalt(services.saltSecret, epoch, request.wallet)),
        leaf: { id: proof.id, liability: proof.liability },
        proof,
      };
    },
  );
}
