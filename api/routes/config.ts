// GET /api/protocol/v1/config: the chain objects and operator keys clients and verifiers start from.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { MEMO_PROGRAM_ID } from '../../protocol/memo.ts';
import { responses } from '../../schemas/common.ts';
import { ProtocolConfig } from '../../schemas/config.ts';

export default async function configRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { services } = app;
  const { config, setup, operator } = services;

  app.get('/protocol/v1/config', { schema: { tags: ['protocol'], response: responses({ 200: ProtocolConfig }) } }, async () => ({
    cluster: config.cluster,
    rpcUrl: config.PUBLIC_RPC_URL ?? services.rpcUrl,
    usdcMint: setup.usdcMint,
    vaultAuthority: setup.vaultAuthority,
    vaultTokenAccount: setup.vaultTokenAccount,
    operatorPublicKey: operator.anchor.publicKey,
    ackPublicKey: operator.ack.publicKey,
    memoProgram: MEMO_PROGRAM_ID,
    lpMint: setup.lpMint,
    rngChainHead: (await services.redis.hget(services.keys.rng(), 'head')) ?? null,
    explorerBaseUrl: config.EXPLORER_BASE_URL,
  }));
}
