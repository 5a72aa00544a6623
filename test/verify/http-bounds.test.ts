// The verifier reads the audited API's bodies within a bound, whatever the service declares: a length over
// the limit, a chunked body that runs past it, a compressed body that inflates past it. A body it accepts
// comes in a buffer of its own, so it can be handed to a worker thread without a copy.
import { createServer, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, FetchError } from '../../verifier/http.ts';

let server: Server;
let api: ApiClient;

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
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  api = new ApiClient(`http://127.0.0.1:${port}/api`);
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
