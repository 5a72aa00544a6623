// Builds the installable verifier: one plain-JavaScript file (no tsx at run time) that is both the CLI and
// its worker threads. Run by `npm pack` (prepack) in this folder; esbuild comes from the repository.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

const here = new URL('.', import.meta.url).pathname;
rmSync(`${here}dist`, { recursive: true, force: true });
await build({
  entryPoints: [`${here}main.ts`],
  outfile: `${here}dist/pfws-verify.mjs`,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // libsodium is an optional native dependency, loaded at run time when installed.
  external: ['sodium-native'],
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __pfwsCreateRequire } from 'node:module';\nconst require = __pfwsCreateRequire(import.meta.url);",
  },
  legalComments: 'none',
  logLevel: 'warning',
});
