// One central error handler: every failure becomes the contract's envelope; a 5xx never leaks internals.
import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PfwsError, type ErrorCode } from '../../protocol/errors.ts';
import { ERROR_STATUS } from '../../schemas/errors.ts';
import { isRedisUnavailable } from '../../store/redis.ts';
import { isChainUnavailable } from '../../chain/rpc.ts';

/** Seconds a client should wait before retrying a 503 (a dependency's outage, design §5). */
export const RETRY_AFTER_S = 2;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The code a schema or body-parsing failure on this route gets, instead of INVALID_REQUEST. */
    validationCode?: ErrorCode;
  }
}

function envelope(reply: FastifyReply, code: ErrorCode, message: string, details?: Record<string, unknown>) {
  return reply
    .code(ERROR_STATUS[code])
    .type('application/json')
    .send({ error: details ? { code, message, details } : { code, message } });
}

/**
 * A dependency that did not answer in time, as the client sees it (nothing was written; retry later): the error
 * itself or one of its causes, as a domain step may wrap it.
 */
function unavailable(error: unknown): PfwsError | null {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (isRedisUnavailable(e))
      return new PfwsError('SERVICE_UNAVAILABLE', 'The ledger (Redis) is unavailable; nothing was written; retry later', undefined, { cause: e });
    if (isChainUnavailable(e)) return new PfwsError('SERVICE_UNAVAILABLE', 'The chain RPC is unavailable; retry later', undefined, { cause: e });
  }
  return null;
}

function toEnvelope(raw: FastifyError | PfwsError, request: FastifyRequest, reply: FastifyReply) {
  const error = (raw instanceof PfwsError ? null : unavailable(raw)) ?? raw;
  if (error instanceof PfwsError) {
    if (error.code === 'SERVICE_UNAVAILABLE') {
      // An outage is logged once by its connection (store/redis.ts), not once per request it fails.
      request.log.debug({ err: error.cause ?? error }, error.message);
      reply.header('retry-after', String(RETRY_AFTER_S));
      if (error.extras.headers) reply.headers(error.extras.headers);
      return reply.code(503).type('application/json').send(error.envelope());
    }
    if (ERROR_STATUS[error.code] >= 500) request.log.error({ err: error.cause ?? error }, error.message);
    if (error.extras.headers) reply.headers(error.extras.headers);
    return reply.code(ERROR_STATUS[error.code]).type('application/json').send(error.envelope());
  }
  const status = error.statusCode ?? 500;
  if (status === 429) return envelope(reply, 'RATE_LIMITED', 'Too many requests; slow down');
  if (status === 404) return envelope(reply, 'NOT_FOUND', 'Not found');
  if (status >= 400 && status < 500) {
    const code = request.routeOptions.config?.validationCode ?? 'INVALID_REQUEST';
    const message = error.validation ? `Invalid request: ${error.message}` : error.message;
    return envelope(reply, code, message);
  }
  request.log.error({ err: error }, 'request failed');
  return envelope(reply, 'INTERNAL', 'Internal error');
}

export default fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler((error: FastifyError | PfwsError, request, reply) => toEnvelope(error, request, reply));
    app.setNotFoundHandler((request, reply) => envelope(reply, 'NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`));
  },
  { name: 'errors' },
);
