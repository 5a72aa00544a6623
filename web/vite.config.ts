// Vite build of the pages (design §12): three HTML entries, hashed assets, served by api/plugins/web.ts.
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** The dev server answers the same page paths as api/plugins/web.ts does in production. */
const pagePaths: Plugin = {
  name: 'pfws-page-paths',
  configureServer(server) {
    server.middlewares.use((req, _res, next) => {
      const [pathname = '', query] = (req.url ?? '').split('?');
      if (pathname === '/verify') req.url = `/verify.html${query ? `?${query}` : ''}`;
      else if (/^\/receipts\/[^/]+$/.test(pathname)) req.url = '/receipt.html';
      next();
    });
  },
};

export default defineConfig({
  plugins: [pagePaths],
  root: here('.'),
  base: '/',
  // Everything a page loads is referenced from its HTML and gets a content hash under /assets/.
  publicDir: false,
  clearScreen: false,
  build: {
    outDir: here('./dist'),
    emptyOutDir: true,
    target: 'es2022',
    assetsDir: 'assets',
    // No inline data: URLs, so the pages keep a strict Content-Security-Policy.
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    rolldownOptions: {
      input: {
        dashboard: here('./index.html'),
        verify: here('./verify.html'),
        receipt: here('./receipt.html'),
      },
    },
  },
  server: {
    // `npx vite web` during development: the API runs beside it (npm start).
    proxy: { '/api': process.env.PFWS_API_ORIGIN ?? 'http://127.0.0.1:8080' },
  },
});
