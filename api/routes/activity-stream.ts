// GET /api/activity/stream: checks the query, prepares the client's first events, then hands the socket to the stream.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { responses } from '../../schemas/common.ts';
import { StreamHeaders, StreamQuery, StreamResponse } from '../../schemas/activity-stream.ts';
import type { ApiDeps } from '../deps.ts';

/** A Last-Event-ID that is not one of our ids (a journal seq) is ignored: the client gets a snapshot. */
const seqOf = (value: string | undefined): number | undefined => {
  if (value === undefined || !/^(0|[1-9][0-9]{0,15})$/.test(value.trim())) return undefined;
  const n = Number(value.trim());
  return Number.isSafeInteger(n) ? n : undefined;
};

/** The parts these routes use. */
export type ActivityStreamRouteDeps = Pick<ApiDeps, 'activityStream'>;

export default async function activityStreamRoutes(fastify: FastifyInstance, { activityStream }: ActivityStreamRouteDeps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // Streams never end by themselves: close them first, or closing the server would wait on them.
  app.addHook('preClose', async () => activityStream.stop());

  app.get(
    '/activity/stream',
    {
      schema: {
        tags: ['analytics'],
        summary: 'Live activity: a snapshot, then each settled play (Server-Sent Events)',
        querystring: StreamQuery,
        headers: StreamHeaders,
        response: responses({ 200: StreamResponse }, [400, 429, 500, 503]),
      },
    },
    async (request, reply) => {
      const lastEventId = seqOf(request.headers['last-event-id'] as string | undefined) ?? request.query.lastEventId;
      const start = await activityStream.connect(request.query.game ?? 'all', lastEventId);
      if (request.raw.destroyed) {
        start.cancel();
        return reply;
      }
      reply.hijack();
      const res = reply.raw;
      // Liveness is the stream's own business (keep-alives, the buffer bound): no idle timeout on this socket.
      request.raw.socket.setTimeout(0);
      request.raw.socket.setNoDelay(true);
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      // A resumed client with nothing missed gets no frame until the next play or keep-alive: without the head
      // sent now, it would wait up to SSE_KEEPALIVE_MS to learn that it is connected.
      res.flushHeaders();
      start.attach(res);
      return reply;
    },
  );
}
