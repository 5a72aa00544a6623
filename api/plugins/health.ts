// Liveness and readiness for orchestrators: `/health` answers while the process serves at all; `/ready` runs the
// registered checks (Redis, the chain RPC, ClickHouse, the indexer and worker heartbeats) and says why it is not ready.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { HealthResponse, ReadyResponse } from '../../schemas/ops.ts';

export default async function healthPlugin(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { readiness } = app.ops;
  // Probes come every few seconds from every orchestrator node; they must never be rate-limited.
  const config = { rateLimit: false } as const;

  app.get(
    '/health',
    {
      config,
      schema: {
        hide: true,
        tags: ['operations'],
        summary: 'Liveness: the process serves requests (no dependency is checked)',
        response: { 200: HealthResponse },
      },
    },
    async () => ({ status: 'ok' as const, uptimeSeconds: Math.round(process.uptime()) }),
  );

  app.get(
    '/ready',
    {
      config,
      schema: {
        hide: true,
        tags: ['operations'],
        summary: 'Readiness: Redis, the chain RPC and ClickHouse reachable, the indexer and worker alive; 503 names what is not',
        response: { 200: ReadyResponse, 503: ReadyResponse },
      },
    },
    async (_request, reply) => {
      const { ready, checks } = await readiness.run();
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks });
    },
  );
}
