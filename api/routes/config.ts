// GET /api/protocol/v1/config: the chain objects and operator keys clients and verifiers start from.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { MEMO_PROGRAM_ID } from '../../protocol/memo.ts';
import { responses } from '../../schemas/common.ts';
import { ProtocolConfig } from '../../schemas/config.ts';

export default async function configRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { chain, rng } = app;

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
