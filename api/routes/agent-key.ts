// The wallet's agent session key (design §9): made on first read; the wallet authorizes it with the normal setup
// transaction and revokes it with the normal revoke transaction.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { responses } from '../../schemas/common.ts';
import { AgentKeyResponse } from '../../schemas/agents.ts';
import type { ApiDeps } from '../deps.ts';

/** The parts these routes use. */
export type AgentKeyRouteDeps = Pick<ApiDeps, 'agentKeys'>;

export default async function agentKeyRoutes(fastify: FastifyInstance, { agentKeys }: AgentKeyRouteDeps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/protocol/v1/player/agent-key',
    {
      onRequest: app.requireWallet,
      // The key is made on first read, and the wallet then authorizes it on-chain: it must not be lost.
      config: { replicated: true },
      schema: {
        tags: ['player'],
        summary: "The wallet's MCP agent session key and whether it is authorized; created on first call",
        security: [{ bearer: [] }],
        response: responses({ 200: AgentKeyResponse }),
      },
    },
    async (request) => agentKeys.status(request.wallet),
  );
}
