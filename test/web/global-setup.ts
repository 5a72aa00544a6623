// vitest globalSetup: builds the pages once per run when they are stale, so the browser tests load what the
// sources say (a file walk when they are fresh).
import { ensureWebBuilt } from '../../web/build.ts';

export default async function setup(): Promise<void> {
  await ensureWebBuilt({ quiet: true });
}
