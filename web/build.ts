// Builds the pages into web/dist when they are missing or older than their sources: `npm start` (prestart) and the
// test setup call it, so neither needs an extra step. A fresh build is a file walk, a stale one a Vite build.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const webDir = path.dirname(fileURLToPath(import.meta.url));
const repoDir = path.dirname(webDir);
export const distDir = path.join(webDir, 'dist');
const STAMP = '.build-stamp';

/** The inputs of the build: the pages, the protocol code they bundle, and the locked dependency versions. */
function fingerprint(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name === 'node_modules' || entry.name.startsWith('dist') || entry.name.startsWith('.dist')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        const st = statSync(full);
        hash.update(`${path.relative(repoDir, full)}:${st.size}:${st.mtimeMs}\n`);
      }
    }
  };
  walk(webDir);
  walk(path.join(repoDir, 'protocol'));
  hash.update(readFileSync(path.join(repoDir, 'package-lock.json')));
  return hash.digest('hex');
}

/** True when web/dist holds a build of the current sources. */
export function isFresh(): boolean {
  try {
    return readFileSync(path.join(distDir, STAMP), 'utf8') === fingerprint();
  } catch {
    return false;
  }
}

const COMPRESSIBLE = /\.(js|css|html|svg|json)$/;

/** Brotli and gzip siblings for @fastify/static's `preCompressed`, so the pages load small without runtime compression. */
function precompress(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) precompress(full);
    else if (COMPRESSIBLE.test(entry.name)) {
      const data = readFileSync(full);
      if (data.length < 1024) continue;
      writeFileSync(`${full}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      writeFileSync(`${full}.gz`, gzipSync(data, { level: 9 }));
    }
  }
}

/**
 * Builds when stale. The output is built beside web/dist and swapped in, so a server reading web/dist never
 * sees a half-written build.
 * @returns whether a build ran
 */
export async function ensureWebBuilt(options: { force?: boolean; quiet?: boolean } = {}): Promise<boolean> {
  const stamp = fingerprint();
  if (!options.force && isFresh()) return false;
  const { build } = await import('vite');
  const tmp = path.join(webDir, `.dist-${process.pid}-${Date.now()}`);
  try {
    await build({
      configFile: path.join(webDir, 'vite.config.ts'),
      logLevel: options.quiet ? 'error' : 'warn',
      build: { outDir: tmp, emptyOutDir: true },
    });
    precompress(tmp);
    writeFileSync(path.join(tmp, STAMP), stamp);
    const old = `${distDir}.old-${process.pid}`;
    if (existsSync(distDir)) renameSync(distDir, old);
    renameSync(tmp, distDir);
    rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const force = process.argv.includes('--force');
  const started = Date.now();
  ensureWebBuilt({ force })
    .then((built) => {
      if (built) console.log(`web: pages built into web/dist in ${Date.now() - started} ms`);
    })
    .catch((err: unknown) => {
      // An install without development dependencies (npm ci --omit=dev) has no Vite: the API still starts and its
      // pages answer with how to build them, so `npm start` goes on.
      if (!force && (err as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && String((err as Error).message).includes("'vite'")) {
        console.warn('web: Vite is not installed (npm ci without dev dependencies), so the pages are not rebuilt; the API starts without fresh pages.');
        return;
      }
      console.error(`web: building the pages failed: ${(err as Error).stack ?? String(err)}`);
      process.exit(1);
    });
}
