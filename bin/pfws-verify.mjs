#!/usr/bin/env node
// `npx pfws-verify` inside this repository: the verifier's TypeScript run through tsx. Installed on its
// own (verifier/package.json, `npm pack`), it is plain JavaScript built by verifier/build.mjs.
import { register } from 'tsx/esm/api';

register();
await import('../verifier/main.ts');
