// api/plugins/web.ts: pages with revalidating HTML and a strict CSP, immutable hashed assets (pre-compressed),
// page fallbacks for hard reloads, and nothing shadowed under /api.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import errorsPlugin from '../../api/plugins/errors.ts';
import webPlugin from '../../api/plugins/web.ts';

let root: string;
let app: FastifyInstance;
const script = 'console.log("dashboard");'.repeat(100);

async function appWith(dir: string): Promise<FastifyInstance> {
  const instance = Fastify();
  await instance.register(errorsPlugin);
  await instance.register(async (api) => api.get('/house', async () => ({ house: {} })), { prefix: '/api' });
  await instance.register(webPlugin, { root: dir });
  return instance;
}

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'pfws-web-'));
  mkdirSync(path.join(root, 'assets'));
  for (const [file, title] of [
    ['index.html', 'dashboard'],
    ['verify.html', 'verify'],
    ['receipt.html', 'receipt'],
  ]) {
    writeFileSync(path.join(root, file!), `<!doctype html><title>${title}</title>`);
  }
  writeFileSync(path.join(root, 'assets/dashboard-Ab12.js'), script);
  writeFileSync(path.join(root, 'assets/dashboard-Ab12.js.br'), brotliCompressSync(script));
  writeFileSync(path.join(root, '.build-stamp'), 'x');
  app = await appWith(root);
});
afterAll(async () => {
  await app?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('serving the pages', () => {
  it('serves each page at its path, revalidated on every load and under a strict CSP', async () => {
    for (const [url, title] of [
      ['/', 'dashboard'],
      ['/verify', 'verify'],
      ['/receipts/dice_0123abc', 'receipt'],
      ['/receipts/sweeper_t_9f?x=1', 'receipt'],
    ]) {
      const res = await app.inject({ method: 'GET', url: url! });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toContain(`<title>${title}</title>`);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
    expect((await app.inject({ method: 'HEAD', url: '/verify' })).statusCode).toBe(200);
  });

  it('serves hashed assets as immutable, brotli-compressed when the client accepts it', async () => {
    const plain = await app.inject({ method: 'GET', url: '/assets/dashboard-Ab12.js' });
    expect(plain.statusCode).toBe(200);
    expect(plain.body).toBe(script);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-type']).toMatch(/javascript/);
    const br = await app.inject({ method: 'GET', url: '/assets/dashboard-Ab12.js', headers: { 'accept-encoding': 'br, gzip' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.rawPayload.length).toBeLessThan(script.length / 10);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('leaves /api alone: its routes answer, and unknown paths get the JSON NOT_FOUND envelope', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/house' })).json()).toEqual({ house: {} });
    for (const url of ['/api/nope', '/api/receipts', '/assets/missing.js', '/index.html.br', '/.build-stamp', '/nope', '/assets/../index.html']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error.code, url).toBe('NOT_FOUND');
    }
  });

  it('says how to build the pages when they are missing, without breaking /api', async () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'pfws-web-empty-'));
    const bare = await appWith(empty);
    try {
      const res = await bare.inject({ method: 'GET', url: '/' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('npm run build:web');
      expect((await bare.inject({ method: 'GET', url: '/api/house' })).statusCode).toBe(200);
    } finally {
      await bare.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
