// `GET /metrics` in the Prometheus text format: request rate and latency per route and the bets committed and
// settled (summed over every process of a node:cluster), then the service gauges (exposure, anchor lag, queue
// depths, indexer and shipper lag), read once per scrape.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { PfwsError } from '../../protocol/errors.ts';
import { MetricsText } from '../../schemas/ops.ts';
import type { OpsDeps } from '../deps.ts';

// Not encapsulated (fastify-plugin): the timing hook must see every route of the app.
export default fp(metricsPlugin, { name: 'metrics' });

async function metricsPlugin(app: FastifyInstance, { metrics, scrape, service }: Pick<OpsDeps, 'metrics' | 'scrape' | 'service'>) {
  // Labels use the route template, so ids in paths do not multiply the series; unmatched paths share one label.
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  app.get(
    '/metrics',
    {
      config: { rateLimit: false },
      schema: {
        hide: true,
        tags: ['operations'],
        summary: 'Prometheus metrics of the whole service (text exposition format 0.0.4)',
        produces: ['text/plain'],
        response: { 200: { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: MetricsText } } } },
      },
    },
    async (_request, reply) => {
      let processes: string;
      try {
        processes = await scrape();
      } catch (err) {
        throw new PfwsError('SERVICE_UNAVAILABLE', 'Metrics could not be gathered from every API process; retry', undefined, { cause: err });
      }
      const text = `${processes.trimEnd()}\n${await service.metrics()}`;
      return reply.type(service.contentType).send(text);
    },
  );
}
