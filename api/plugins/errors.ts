// One central error handler: every failure becomes the contract's envelope; a 5xx never leaks internals.
import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PfwsError, type ErrorCode } from '../../protocol/errors.ts';
import { ERROR_STATUS } from '../../schemas/errors.ts';

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

function toEnvelope(error: FastifyError | PfwsError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof PfwsError) {
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
