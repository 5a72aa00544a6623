// Time and connection limits of the HTTP server (issues 16 and 22): node's own checks for headers, the whole request
// and idle keep-alive; a stalled or endless body is caught by a sweep over the requests whose bodies are still
// arriving. No limit applies to responses, so a long stream is never cut.
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

/** A request whose body is still arriving, as the sweep of {@link limitRequestTimes} follows it. */
interface InFlight {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  /** When node handed the request over (its headers are in); the whole-request limit counts from here. */
  startedAt: number;
  /** The socket's bytesRead when last seen, and when it last grew: a stall counts from the last byte. */
  bytes: number;
  lastByteAt: number;
}

const hasBody = (req: http.IncomingMessage) => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * A body that stalls for REQUEST_BODY_TIMEOUT_MS gets 408 and its socket is closed; a body still incomplete after
 * REQUEST_TIMEOUT_MS gets 408 however it trickles. Followed from node's 'request' event, before any Fastify hook
 * runs: a hook that waits (the rate limiter on a slow Redis) neither delays nor hides a stall, and a first chunk that
 * came with the headers counts as the last byte. Progress is the socket's bytesRead, which grows whatever reads
 * the body (or nothing yet). Once the body is all in, the request is no longer followed, so a long response (a
 * stream) is never cut. node's own requestTimeout stays on as well; whichever limit comes first answers.
 */
export function limitRequestTimes(app: FastifyInstance, limits: HttpLimits): { following: () => number } {
  const inFlight = new Set<InFlight>();
  const everyMs = Math.min(1_000, Math.max(25, Math.floor(Math.min(limits.REQUEST_BODY_TIMEOUT_MS, limits.REQUEST_TIMEOUT_MS) / 20)));
  let sweeper: NodeJS.Timeout | null = null;

  const expire = (f: InFlight, message: string) => {
    inFlight.delete(f);
    // An answer already under way (the rate limiter's, before the body was read) cannot be followed by another.
    if (f.res.headersSent) f.req.socket.destroy();
    else answerOnSocket(f.req.socket, 408, message);
  };

  const sweep = () => {
    const now = Date.now();
    for (const f of inFlight) {
      if (f.req.complete || f.req.socket.destroyed) {
        inFlight.delete(f);
        continue;
      }
      const bytes = f.req.socket.bytesRead;
      if (bytes !== f.bytes) {
        f.bytes = bytes;
        f.lastByteAt = now;
      }
      if (now - f.lastByteAt >= limits.REQUEST_BODY_TIMEOUT_MS) expire(f, `Request timeout: the body stalled for ${limits.REQUEST_BODY_TIMEOUT_MS} ms`);
      else if (now - f.startedAt >= limits.REQUEST_TIMEOUT_MS) expire(f, 'Request timeout: the request was not received in time');
    }
    if (inFlight.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = null;
    }
  };

  app.server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.complete || !hasBody(req)) return;
    const now = Date.now();
    const followed: InFlight = { req, res, startedAt: now, bytes: req.socket.bytesRead, lastByteAt: now };
    inFlight.add(followed);
    // Let go as soon as the body is read, not at the next sweep: held up to half a second, every request with a body
    // outlived the young generation, and the collector copied it, its headers and its answer into the old one.
    req.once('end', () => inFlight.delete(followed));
    sweeper ??= setInterval(sweep, everyMs).unref();
  });
  return { following: () => inFlight.size };
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
