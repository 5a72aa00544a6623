#!/usr/bin/env node
// Entry point of `npx pfws-verify`: the verifier is TypeScript run through tsx, with no build step.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../verifier/cli.ts');
process.exitCode = await runCli(process.argv.slice(2));
