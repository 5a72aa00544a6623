// Time and connection limits of the HTTP server (issue 16): node's own checks for headers, the whole request and
// idle keep-alive; a stalled body is caught by the socket's idle timer while the body is being read. No socket
// idle timeout applies to responses, so a long stream that keeps writing is never cut.
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Config } from '../config/env.ts';
import { ERROR_STATUS } from '../schemas/errors.ts';

export type HttpLimits = Pick<Config, 'HEADERS_TIMEOUT_MS' | 'REQUEST_BODY_TIMEOUT_MS' | 'REQUEST_TIMEOUT_MS' | 'KEEP_ALIVE_TIMEOUT_MS' | 'MAX_CONNECTIONS'>;

/** Writes an error envelope straight to a socket whose request never reached a handler, and closes it. */
function answerOnSocket(socket: Socket, status: number, message: string): void {
  if (socket.destroyed) return;
  if (socket.writable) {
    const body = JSON.stringify({ error: { code: 'INVALID_REQUEST', message } });
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Fastify server options for the limits; node checks headers and request timeouts every `connectionsCheckingInterval`. */
export function serverLimits(limits: HttpLimits): Pick<
  FastifyServerOptions,
  'keepAliveTimeout' | 'requestTimeout' | 'connectionTimeout' | 'clientErrorHandler'
> & {
  http: http.ServerOptions;
} {
  const fastest = Math.min(limits.HEADERS_TIMEOUT_MS, limits.REQUEST_TIMEOUT_MS);
  return {
    // headersTimeout must not exceed requestTimeout (node refuses it).
    http: {
      headersTimeout: Math.min(limits.HEADERS_TIMEOUT_MS, limits.REQUEST_TIMEOUT_MS),
      connectionsCheckingInterval: Math.max(100, Math.floor(fastest / 4)),
    },
    requestTimeout: limits.REQUEST_TIMEOUT_MS,
    keepAliveTimeout: limits.KEEP_ALIVE_TIMEOUT_MS,
    // No idle timeout on sockets: it would also cut a long response (a stream) between its writes.
    connectionTimeout: 0,
    // node's 408 (headers or request too slow) and 400s for unparsable requests, in the service's envelope.
    clientErrorHandler(err: Error & { code?: string }, socket: Socket) {
      if (err.code === 'ECONNRESET' || socket.destroyed) return;
      if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return answerOnSocket(socket, 408, 'Request timeout: the request was not received in time');
      if (err.code === 'HPE_HEADER_OVERFLOW') return answerOnSocket(socket, 431, 'Request headers too large');
      answerOnSocket(socket, ERROR_STATUS.INVALID_REQUEST, 'Malformed HTTP request');
    },
  };
}

/**
 * A body that stalls for REQUEST_BODY_TIMEOUT_MS gets 408 and its socket is closed. The socket's idle timer runs
 * only while the body is being read, from preParsing (after the onRequest hooks, whose waits are not the client's)
 * until it has all arrived; a body already in when reading starts is not timed.
 */
export function limitBodyStalls(app: FastifyInstance, limits: HttpLimits): void {
  app.addHook('preParsing', async (request, reply, payload) => {
    const raw = request.raw;
    // A request without a body may not be marked complete yet when the hooks run in the same tick as its headers.
    const hasBody = raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length'] ?? 0) > 0;
    if (!hasBody || raw.complete) return payload;
    const socket = raw.socket;
    const stalled = () => answerOnSocket(socket, 408, `Request timeout: the body stalled for ${limits.REQUEST_BODY_TIMEOUT_MS} ms`);
    const done = () => {
      raw.removeListener('timeout', stalled);
      reply.raw.removeListener('timeout', done);
      socket.setTimeout(0);
    };
    raw.setTimeout(limits.REQUEST_BODY_TIMEOUT_MS, stalled);
    raw.once('end', done);
    raw.once('close', done);
    // Once the body is all in, node hands the idle timer to the response; heard here, it does not close the socket.
    reply.raw.once('timeout', done);
    return payload;
  });
}

/**
 * More open connections than MAX_CONNECTIONS on this process are closed as they arrive. Counted here rather than
 * with node's `server.maxConnections`, which in a node:cluster worker hands a refused connection back to the
 * primary to try on another worker, and so never closes it.
 */
export function capConnections(app: FastifyInstance, limits: HttpLimits): void {
  let open = 0;
  app.server.on('connection', (socket: Socket) => {
    open++;
    socket.once('close', () => open--);
    if (open > limits.MAX_CONNECTIONS) socket.destroy();
  });
}
