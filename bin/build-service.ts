// Bundles the service (main.ts and everything of ours it imports) into plain JavaScript, dist/main.mjs, so that a
// process starts without a TypeScript loader: tsx's hooks thread and its per-module round trips cost an API process
// about 1.4 s of its 3.5 s start-up CPU here. Packages stay in node_modules. What main.ts or a module imports only when
// needed (chDB's engine, over 130 MB of library) goes into a chunk of its own beside it, so it still loads only then.
// `npm start` builds it first; `npx tsx bin/build-service.ts` builds it by hand.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');
const ENTRY = path.join(ROOT, 'main.ts');
const OUT_DIR = path.join(ROOT, 'dist');
export const SERVICE_BUNDLE = path.join(OUT_DIR, 'main.mjs');

/**
 * A module that finds its files next to itself (`new URL('./scripts/x.lua', import.meta.url)`) keeps finding them:
 * its `import.meta.url` becomes its own source file's URL, reached from the bundle's, so the bundle may move with
 * the tree. The entry keeps the bundle's own, which its "am I the main module" check compares with argv.
 */
const sourceLocations: Plugin = {
  name: 'source-locations',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`) || args.path === ENTRY) return undefined;
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return { contents: source, loader: 'ts' };
      const relative = path.relative(OUT_DIR, args.path).split(path.sep).join('/');
      return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(relative)}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

/**
 * Builds dist/main.mjs, its chunks and their source maps, and returns its path. Each file is written by rename, so a
 * reader never sees half of one, and a build from the same sources writes the same names.
 */
export async function buildService(): Promise<string> {
  const result = await build({
    entryPoints: [ENTRY],
    outdir: OUT_DIR,
    outExtension: { '.js': '.mjs' },
    chunkNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    plugins: [sourceLocations],
    write: false,
    logLevel: 'warning',
    legalComments: 'none',
  });
  mkdirSync(OUT_DIR, { recursive: true });
  for (const file of result.outputFiles) {
    const temp = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temp, file.contents);
    renameSync(temp, file.path);
  }
  // Chunks of older sources go; another build from these sources wrote the same names (and its temp files stay).
  const current = new Set(result.outputFiles.map((f) => path.basename(f.path)));
  for (const name of readdirSync(OUT_DIR)) {
    if (!current.has(name) && !name.endsWith('.tmp')) rmSync(path.join(OUT_DIR, name), { force: true });
  }
  return SERVICE_BUNDLE;
}

let built: Promise<string> | null = null;

/** Builds the bundle once per process (tests, benchmarks and the fault suites spawn it), from the sources as they are. */
export function serviceBundle(): Promise<string> {
  built ??= buildService();
  return built;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(`built ${path.relative(process.cwd(), await buildService())}`);
}
