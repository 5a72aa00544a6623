// The request time limits of api/http-limits.ts on a bare Fastify app, with an onRequest hook that holds requests
// as the Redis-backed rate limiter does when Redis is slow: a stalled body is answered whatever the hook waits, an
// answer a hook already gave is not followed by another, and a response is never cut however long it runs.
import { connect } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { capConnections, limitRequestTimes, serverLimits, type HttpLimits } from '../../api/http-limits.ts';

const LIMITS: HttpLimits = {
  HEADERS_TIMEOUT_MS: 1_000,
  REQUEST_BODY_TIMEOUT_MS: 500,
  REQUEST_TIMEOUT_MS: 2_000,
  KEEP_ALIVE_TIMEOUT_MS: 5_000,
  MAX_CONNECTIONS: 100,
};

let app: FastifyInstance | null = null;
afterEach(async () => {
  await app?.close();
  app = null;
});

/** What the onRequest hook does with each request: hold it until released, or fail it as a Redis outage would. */
type Hold = { kind: 'wait'; released: Promise<void> } | { kind: 'fail' } | { kind: 'pass' };

/** The request time limits of the app `serve` made last. */
let times: ReturnType<typeof limitRequestTimes> | null = null;

async function serve(hold: Hold, limits: HttpLimits = LIMITS): Promise<number> {
  app = Fastify({ ...serverLimits(limits) });
  times = limitRequestTimes(app, limits);
  capConnections(app, limits);
  app.addHook('onRequest', async () => {
    if (hold.kind === 'wait') await hold.released;
    if (hold.kind === 'fail') throw Object.assign(new Error('the ledger is unavailable'), { statusCode: 503 });
  });
  app.post('/echo', async (request) => ({ got: request.body }));
  // A response that runs longer than every limit, with pauses longer than the body limit between its writes.
  app.post('/slow', async (_request, reply) => {
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'text/plain' });
    for (let i = 0; i < 6; i++) {
      reply.raw.write(`${i}\n`);
      await new Promise((r) => setTimeout(r, LIMITS.REQUEST_BODY_TIMEOUT_MS + 200));
    }
    reply.raw.end('done\n');
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as { port: number }).port;
}

interface Outcome {
  text: string;
  statuses: number[];
  closedAt: number;
}

/** Writes `first` (headers, maybe with the body's first bytes) and then nothing; resolves when the server closes. */
function send(port: number, first: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open after 15 s; got ${JSON.stringify(text)}`));
    }, 15_000);
    socket.once('connect', () => socket.write(first));
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(giveUp);
      resolve({ text, statuses: [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1])), closedAt: Date.now() });
    });
  });
}

const head = (path: string, length: number) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
const envelopeOf = (o: Outcome) => JSON.parse(o.text.slice(o.text.indexOf('\r\n\r\n') + 4)) as { error: { code: string; message: string } };

describe('request time limits whatever a hook waits', () => {
  it('a body that stalls while a hook holds its request gets 408 before the hook lets it through', async () => {
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    let releasedAt = Number.POSITIVE_INFINITY;
    const port = await serve({ kind: 'wait', released });
    // The hook holds the request for far longer than the body limit; the test lets it go after 5 s at the latest.
    const letGo = setTimeout(() => {
      releasedAt = Date.now();
      release();
    }, 5_000);
    const [together, alone] = await Promise.all([send(port, `${head('/echo', 100)}{`), send(port, head('/echo', 100))]);
    clearTimeout(letGo);
    release();
    for (const o of [together, alone]) {
      expect(o.statuses).toEqual([408]);
      expect(envelopeOf(o).error).toEqual({ code: 'INVALID_REQUEST', message: `Request timeout: the body stalled for ${LIMITS.REQUEST_BODY_TIMEOUT_MS} ms` });
      expect(o.closedAt).toBeLessThan(releasedAt);
    }
  });

  it('an answer a hook gave before the body came is the only one, and the stalled connection is closed', async () => {
    const port = await serve({ kind: 'fail' });
    const o = await send(port, `${head('/echo', 100)}{`);
    expect(o.statuses).toEqual([503]);
  });

  it('a body that arrived is served, and a response longer than every limit is never cut', async () => {
    const port = await serve({ kind: 'pass' });
    const body = '{"a":1}';
    const echoed = await send(
      port,
      `POST /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(echoed.statuses).toEqual([200]);
    const slow = await send(
      port,
      `POST /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(slow.statuses).toEqual([200]);
    // Every write arrived, then the last chunk: the stream ran to its end.
    expect(slow.text).toMatch(/5\n\r\n[\s\S]*done\n\r\n0\r\n\r\n$/);
  });

  it('lets a request go as soon as its body is read, not at the next sweep', async () => {
    // Sweeps a second apart: a request still followed after its answer would be held, with all it references, that long.
    const port = await serve({ kind: 'pass' }, { ...LIMITS, REQUEST_BODY_TIMEOUT_MS: 20_000, REQUEST_TIMEOUT_MS: 60_000 });
    const body = '{"a":1}';
    const echoed = await send(
      port,
      `POST /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(echoed.statuses).toEqual([200]);
    expect(times?.following()).toBe(0);
  });
});
