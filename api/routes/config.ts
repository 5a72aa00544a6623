// GET /api/protocol/v1/config: the chain objects and operator keys clients and verifiers start from.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { MEMO_PROGRAM_ID } from '../../protocol/memo.ts';
import { responses } from '../../schemas/common.ts';
import { ProtocolConfig } from '../../schemas/config.ts';
import type { ApiDeps } from '../deps.ts';

/** The parts these routes use. */
export type ConfigRouteDeps = Pick<ApiDeps, 'chain' | 'rng'>;

export default async function configRoutes(fastify: FastifyInstance, { chain, rng }: ConfigRouteDeps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/protocol/v1/config', { schema: { tags: ['protocol'], response: responses({ 200: ProtocolConfig }) } }, async () => ({
    cluster: chain.cluster,
    rpcUrl: chain.rpcUrl,
    usdcMint: chain.setup.usdcMint,
    vaultAuthority: chain.setup.vaultAuthority,
    vaultTokenAccount: chain.setup.vaultTokenAccount,
    operatorPublicKey: chain.anchorPublicKey,
    ackPublicKey: chain.ackPublicKey,
    memoProgram: MEMO_PROGRAM_ID,
    lpMint: chain.setup.lpMint,
    rngChainHead: await rng.head(),
    explorerBaseUrl: chain.explorerBaseUrl,
  }));
}
