// The verifier reads the audited API's bodies within a bound, whatever the service declares: a length over
// the limit, a chunked body that runs past it, a compressed body that inflates past it. A body it accepts
// comes in a buffer of its own, so it can be handed to a worker thread without a copy.
import { createServer, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, FetchError, retryAfterMs, RpcClient } from '../../verifier/http.ts';

let server: Server;
let api: ApiClient;
let base: string;
let flaky = 0;
/** Requests seen per path with a query (the busy answers count per path). */
const seen = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const body = Buffer.alloc(4096, 'a');
    if (req.url === '/api/declared') res.writeHead(200, { 'content-length': body.length }).end(body);
    else if (req.url === '/api/chunked') {
      res.writeHead(200);
      for (let i = 0; i < 4; i++) res.write(body.subarray(0, 1024));
      res.end();
    } else if (req.url === '/api/gzip') {
      const zipped = gzipSync(body);
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': zipped.length }).end(zipped);
    } else if (req.url === '/api/moved') res.writeHead(302, { location: '/api/declared' }).end();
    else if (req.url === '/api/loop') res.writeHead(302, { location: '/api/loop' }).end();
    else if (req.url === '/api/brotli') res.writeHead(200, { 'content-encoding': 'br' }).end('x');
    else if (req.url === '/api/flaky') {
      if (flaky++ % 2 === 0) res.writeHead(503).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    } else if (req.url?.startsWith('/api/busy?')) {
      // /api/busy?n=K&status=S&after=A&id=…: K answers of status S (Retry-After A when given), then 200.
      const q = new URL(req.url, 'http://x').searchParams;
      const count = (seen.get(req.url) ?? 0) + 1;
      seen.set(req.url, count);
      if (count <= Number(q.get('n'))) {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (q.has('after')) headers['retry-after'] = q.get('after')!;
        res.writeHead(Number(q.get('status')), headers).end('{"error":{"code":"SERVICE_UNAVAILABLE","message":"busy"}}');
      } else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    } else if (req.url === '/api/hang') {
      // closes the connection without an answer
      req.socket.destroy();
    } else if (req.url === '/rpc' && req.method === 'POST') {
      let text = '';
      req.on('data', (c: Buffer) => (text += c));
      req.on('end', () => {
        const { id, method, params } = JSON.parse(text) as { id: number; method: string; params: unknown[] };
        const body = method === 'fail' ? { jsonrpc: '2.0', id, error: { message: 'no such method' } } : { jsonrpc: '2.0', id, result: { method, params } };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    } else if (req.url === '/rpc-moved') res.writeHead(307, { location: '/rpc' }).end();
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  base = `http://127.0.0.1:${port}`;
  api = new ApiClient(`${base}/api`);
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('bounded reads from the API', () => {
  it.each(['/declared', '/chunked', '/gzip'])('refuses %s over the limit and reads it within', async (path) => {
    await expect(api.bytes(path, 4095)).rejects.toThrow(FetchError);
    await expect(api.bytes(path, 4095)).rejects.toThrow(/limit/);
    const bytes = await api.bytes(path, 4096);
    expect(bytes).toEqual(new Uint8Array(4096).fill(97));
    expect(bytes.byteOffset).toBe(0);
    expect(bytes.byteLength).toBe(bytes.buffer.byteLength);
  });

  it('reads a declared body into the buffer it is given, within the limit', async () => {
    const buffer = new Uint8Array(8192);
    const bytes = await api.bytes('/declared', 4096, undefined, (length) => buffer.subarray(0, length));
    expect(bytes.buffer).toBe(buffer.buffer);
    expect(bytes).toEqual(new Uint8Array(4096).fill(97));
    await expect(api.bytes('/declared', 4095, undefined, (length) => buffer.subarray(0, length))).rejects.toThrow(/limit/);
  });
});

describe('requests', () => {
  it('follow redirects, a bounded number of them', async () => {
    expect(await api.bytes('/moved', 4096)).toEqual(new Uint8Array(4096).fill(97));
    await expect(api.bytes('/loop')).rejects.toThrow(/status 302/);
  });

  it('refuse a body in an encoding that was not asked for', async () => {
    await expect(api.bytes('/brotli')).rejects.toThrow(/br encoding/);
  });

  it('retry a 5xx and a connection that fails, and say which it was', async () => {
    expect(await api.get('/flaky')).toEqual({ ok: true });
    await expect(api.bytes('/hang')).rejects.toThrow(/cannot reach .*\/api\/hang/);
    await expect(new ApiClient('ftp://127.0.0.1/api').bytes('/x')).rejects.toThrow(/only http and https/);
  });

  it('wait out a 503 or 429 for as long as its Retry-After asks, without spending a retry', async () => {
    // Five busy answers are more than the three tries a failure gets.
    expect(await api.get('/busy?n=5&status=503&after=0&id=a')).toEqual({ ok: true });
    expect(seen.get('/api/busy?n=5&status=503&after=0&id=a')).toBe(6);
    expect(await api.get('/busy?n=5&status=429&after=0&id=b')).toEqual({ ok: true });
    const started = performance.now();
    expect(await api.get('/busy?n=1&status=503&after=1&id=c')).toEqual({ ok: true });
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
  });

  it('give up on a 503 without Retry-After after three tries, and on Retry-After past their patience', async () => {
    await expect(api.get('/busy?n=5&status=503&id=d')).rejects.toThrow(/busy/);
    expect(seen.get('/api/busy?n=5&status=503&id=d')).toBe(3);
    // An hour's Retry-After is a failure, not a wait.
    await expect(api.get('/busy?n=5&status=503&after=3600&id=e')).rejects.toThrow(/busy/);
    expect(seen.get('/api/busy?n=5&status=503&after=3600&id=e')).toBe(3);
    const impatient = new ApiClient(`${base}/api`, 250);
    await expect(impatient.get('/busy?n=9&status=503&after=0&id=f')).rejects.toThrow(/busy/);
    // Two waits of 100 ms fit in 250, then three tries.
    expect(seen.get('/api/busy?n=9&status=503&after=0&id=f')).toBe(5);
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(Date.now() + 5000).toUTCString(), Date.now())).toBeGreaterThan(3000);
    expect(retryAfterMs('soon')).toBeNull();
    expect(retryAfterMs(undefined)).toBeNull();
  });

  it('carry JSON-RPC calls, through a 307 too, with the error the node gives', async () => {
    const rpc = new RpcClient(`${base}/rpc`);
    expect(await rpc.call('getSlot', [{ commitment: 'finalized' }])).toEqual({ method: 'getSlot', params: [{ commitment: 'finalized' }] });
    await expect(rpc.call('fail', [])).rejects.toThrow(/RPC fail: no such method/);
    expect(await new RpcClient(`${base}/rpc-moved`).call('getHealth', [])).toEqual({ method: 'getHealth', params: [] });
    expect(rpc.calls).toBe(2);
  });
});
