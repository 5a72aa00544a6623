// A served tile's pooled buffer is given back only when the reply is done with it: not while the client has not
// read the bytes yet, and also when the client goes away mid-reply.
import net from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import transparencyRoutes from '../../api/routes/transparency.ts';
import errorsPlugin from '../../api/plugins/errors.ts';
import type { TransparencyStore } from '../../store/transparency.ts';
import type { TrustRoots } from '../../transparency/trust-root.ts';

// Far more than loopback's socket buffers hold, so the reply stays unwritten while the client does not read.
const SIZE = 48 * 1024 * 1024;
const GET = 'GET /protocol/v1/bet-log/tile/entries/000 HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('serving a stored tile', () => {
  const release = vi.fn();
  let app: FastifyInstance;
  let port: number;

  beforeAll(async () => {
    const store = { tile: async () => ({ bytes: Buffer.alloc(SIZE, 7), full: true, release }) } as unknown as TransparencyStore;
    app = Fastify();
    await app.register(errorsPlugin);
    await app.register(transparencyRoutes, { transparency: store, trustRoots: { current: async () => ({}) } as unknown as TrustRoots });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(() => app.close());

  const connect = async () => {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.pause();
    socket.write(GET);
    return socket;
  };

  it('gives the buffer back once the client has read the whole reply, not before', async () => {
    release.mockClear();
    const socket = await connect();
    await sleep(300);
    expect(release).not.toHaveBeenCalled();
    let received = 0;
    socket.on('data', (d: Buffer) => {
      received += d.length;
    });
    socket.resume();
    await new Promise((r) => socket.once('end', r));
    expect(received).toBeGreaterThan(SIZE);
    await vi.waitFor(() => expect(release).toHaveBeenCalledTimes(1));
  });

  it('gives it back when the client goes away mid-reply', async () => {
    release.mockClear();
    const socket = await connect();
    await sleep(300);
    socket.destroy();
    await vi.waitFor(() => expect(release).toHaveBeenCalledTimes(1));
  });
});
