// Liveness and readiness for orchestrators: `/health` answers while the process serves at all; `/ready` runs the
// registered checks (Redis, the chain RPC, ClickHouse, the indexer and worker heartbeats) and says why it is not ready.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { HealthResponse, ReadyResponse } from '../../schemas/ops.ts';
import { RETRY_AFTER_S } from './errors.ts';
import type { OpsDeps } from '../deps.ts';

export default async function healthPlugin(fastify: FastifyInstance, { readiness }: Pick<OpsDeps, 'readiness'>) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
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
      if (ready) return reply.code(200).send({ status: 'ready', checks });
      const failing = Object.keys(checks).filter((name) => checks[name]?.status === 'failing');
      return reply
        .code(503)
        .header('retry-after', String(RETRY_AFTER_S))
        .send({ status: 'not_ready', checks, error: { code: 'SERVICE_UNAVAILABLE' as const, message: `Not ready: ${failing.join(', ')} failing` } });
    },
  );
}
