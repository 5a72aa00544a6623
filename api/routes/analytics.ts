// Public analytics (design §8): activity, rankings and stats, read through the analytics reader (this process's
// engine, or the chDB owner over IPC). A bad parameter is INVALID_REQUEST; ClickHouse down is SERVICE_UNAVAILABLE.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { responses } from '../../schemas/common.ts';
import { ActivityQuery, ActivityResponse, RankingsQuery, RankingsResponse, StatsQuery, StatsResponse } from '../../schemas/analytics.ts';
import type { ApiDeps } from '../deps.ts';

/**
 * How long a client or proxy may reuse an answer: answers are computed at most once a second per query (and are
 * as fresh as the shipper, about a second behind play); rankings and stats move slowly.
 */
const FRESHNESS = { activity: 'public, max-age=1', rankings: 'public, max-age=5', stats: 'public, max-age=5' } as const;

// Answers that depend on ClickHouse add 503 (SERVICE_UNAVAILABLE) to the usual errors.
const ERRORS = [400, 429, 500, 503];

/** The parts these routes use. */
export type AnalyticsRouteDeps = Pick<ApiDeps, 'analytics'>;

export default async function analyticsRoutes(fastify: FastifyInstance, { analytics }: AnalyticsRouteDeps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const meta = { tags: ['analytics'] };
  const fresh = (reply: FastifyReply, kind: keyof typeof FRESHNESS) => reply.header('cache-control', FRESHNESS[kind]);

  // An error answer must not be cached in place of the data.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode >= 400) reply.header('cache-control', 'no-store');
    return payload;
  });

  app.get(
    '/activity',
    {
      schema: {
        ...meta,
        summary: 'Latest plays and events, top wagers and players of the last 24 h, all-time totals',
        querystring: ActivityQuery,
        response: responses({ 200: ActivityResponse }, ERRORS),
      },
    },
    async (request, reply) => {
      const activity = await analytics.activity(request.query);
      fresh(reply, 'activity');
      return activity;
    },
  );

  app.get(
    '/rankings',
    {
      schema: {
        ...meta,
        summary: 'The top 20 players by a metric, for a game and source',
        querystring: RankingsQuery,
        response: responses({ 200: RankingsResponse }, ERRORS),
      },
    },
    async (request, reply) => {
      const rankings = await analytics.rankings(request.query);
      fresh(reply, 'rankings');
      return rankings;
    },
  );

  app.get(
    '/stats',
    {
      schema: {
        ...meta,
        summary: 'Totals per hour, day or month over the window ending now',
        querystring: StatsQuery,
        response: responses({ 200: StatsResponse }, ERRORS),
      },
    },
    async (request, reply) => {
      const stats = await analytics.stats(request.query);
      fresh(reply, 'stats');
      return stats;
    },
  );
}
