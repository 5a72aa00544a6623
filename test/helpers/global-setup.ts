// vitest globalSetup: builds the service's bundle (dist/main.mjs) from the sources as they are, once per run, for the
// tests that start it as an operator would; and the pages once per run when they are stale, so the browser tests
// load what the sources say (a file walk when they are fresh).
import { buildService } from '../../bin/build-service.ts';
import { ensureWebBuilt } from '../../web/build.ts';

export default async function setup(): Promise<void> {
  await buildService();
  await ensureWebBuilt({ quiet: true });
}
