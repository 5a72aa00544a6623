// Bundles the service (main.ts and everything of ours it imports) into one plain-JavaScript file, dist/main.mjs, so
// that a process starts without a TypeScript loader: tsx's hooks thread and its per-module round trips cost an API
// process about 1.4 s of its 3.5 s start-up CPU here. Packages stay in node_modules. `npm start` builds it first;
// `npx tsx bin/build-service.ts` builds it by hand.
import { renameSync, writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');
const ENTRY = path.join(ROOT, 'main.ts');
export const SERVICE_BUNDLE = path.join(ROOT, 'dist', 'main.mjs');

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
      const relative = path.relative(path.dirname(SERVICE_BUNDLE), args.path).split(path.sep).join('/');
      return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(relative)}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

/** Builds dist/main.mjs (and its source map) and returns its path; written by rename, so a reader never sees half. */
export async function buildService(): Promise<string> {
  const result = await build({
    entryPoints: [ENTRY],
    outfile: SERVICE_BUNDLE,
    bundle: true,
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
  mkdirSync(path.dirname(SERVICE_BUNDLE), { recursive: true });
  for (const file of result.outputFiles) {
    const temp = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temp, file.contents);
    renameSync(temp, file.path);
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
