// The caller's proof of liabilities under the latest committed state root (funding/state-proof.ts).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { responses } from '../../schemas/common.ts';
import { StateProofResponse } from '../../schemas/anchor.ts';
import type { ApiDeps } from '../deps.ts';

/** The parts these routes use. */
export type StateProofRouteDeps = Pick<ApiDeps, 'stateProofs'>;

export default async function stateProofRoutes(fastify: FastifyInstance, { stateProofs }: StateProofRouteDeps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

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
    async (request) => stateProofs.proofOf(request.wallet),
  );
}
