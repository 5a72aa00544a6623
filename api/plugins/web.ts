// Serves the pages built from web/ (design §12): `/`, `/verify` and `/receipts/:id` as HTML that is always
// revalidated, and their content-hashed assets under `/assets/` as immutable. Only these paths are claimed, so
// every other path (all of /api) keeps its own routes and the JSON NOT_FOUND envelope.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';

export interface WebOptions {
  /**
   * The built pages.
   * @defaultValue web/dist of this checkout
   */
  root?: string;
}

const DEFAULT_ROOT = fileURLToPath(new URL('../../web/dist', import.meta.url));

// The verify page calls the chain RPC the user names, so connect-src admits any http(s) origin; nothing else is loaded
// from elsewhere, and no inline script or style is needed.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self' http: https:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const HTML = /\.html(\.br|\.gz)?$/;

const PAGES = { dashboard: 'index.html', verify: 'verify.html', receipt: 'receipt.html' } as const;

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Pages not built</title>
<h1>The pages are not built</h1><p>Run <code>npm run build:web</code> (or <code>npm start</code>, which builds them), then reload. The API under <a href="/api/docs">/api</a> works without them.</p></html>`;

export default async function webPlugin(app: FastifyInstance, options: WebOptions = {}): Promise<void> {
  const root = path.resolve(options.root ?? DEFAULT_ROOT);

  await app.register(fastifyStatic, {
    root: path.join(root, 'assets'),
    prefix: '/assets/',
    // A built page may be swapped in while the server runs, so assets are looked up per request, not globbed at start.
    wildcard: true,
    index: false,
    list: false,
    preCompressed: true,
    cacheControl: false,
    // Also runs for the pages sent below: their HTML names the current asset hashes, so it is always revalidated.
    setHeaders(reply, filePath) {
      reply.header('cache-control', HTML.test(filePath) ? 'no-cache' : 'public, max-age=31536000, immutable');
      reply.header('x-content-type-options', 'nosniff');
    },
  });

  const page = (file: string) => async (_request: unknown, reply: FastifyReply) => {
    reply.header('cache-control', 'no-cache');
    reply.header('content-security-policy', CSP);
    reply.header('referrer-policy', 'no-referrer');
    if (!existsSync(path.join(root, file))) return reply.code(503).type('text/html; charset=utf-8').send(NOT_BUILT);
    return reply.sendFile(file, root);
  };
  const hide = { schema: { hide: true } };
  app.get('/', hide, page(PAGES.dashboard));
  app.get('/verify', hide, page(PAGES.verify));
  app.get('/receipts/:id', hide, page(PAGES.receipt));
}
