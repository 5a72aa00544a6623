// Acknowledged means replicated (design §13): an answer that tells a client its write happened goes out only once
// that write is on the replicas; otherwise the client gets 503 and sends the same request again.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { PfwsError } from '../../protocol/errors.ts';
import { RETRY_AFTER_S } from './errors.ts';
import type { ApiDeps } from '../deps.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A read that may write (a key made on first read) waits for the replicas too; every POST does. */
    replicated?: boolean;
  }
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The one place an API answer waits for the replicas. A re-send that wrote nothing new waits as well: the barrier
 * covers whatever an earlier attempt, or another API process, wrote before it.
 */
export default fp(
  async (app: FastifyInstance, { replication }: Pick<ApiDeps, 'replication'>) => {
    app.addHook('onSend', async (request, reply, payload) => {
      if (reply.statusCode >= 400) return payload;
      if (READS.has(request.method) && !request.routeOptions.config?.replicated) return payload;
      try {
        await replication.confirm();
        return payload;
      } catch (err) {
        const error =
          err instanceof PfwsError && err.code === 'SERVICE_UNAVAILABLE'
            ? err
            : new PfwsError('SERVICE_UNAVAILABLE', 'The write could not be confirmed on a replica; send the same request again', undefined, { cause: err });
        request.log.debug({ err: error.cause ?? error }, error.message);
        reply.code(503).header('retry-after', String(RETRY_AFTER_S)).type('application/json');
        return JSON.stringify(error.envelope());
      }
    });
  },
  { name: 'replicated' },
);
