// A child process of the mixed benchmark: preloads a service's chDB (before the service starts) with plays, then
// exits, so that chDB's threads and memory leave with it.
import path from 'node:path';
import { openChdbEngine } from '../analytics/chdb-engine.ts';
import { preloadPlays } from './analytics.ts';

const [dataDir, countText, nowText] = process.argv.slice(2) as [string, string, string];
const engine = await openChdbEngine({ dataDir: path.join(dataDir, 'chdb') });
try {
  await preloadPlays(engine, Number(countText), new Date(nowText));
} finally {
  await engine.close();
}
process.send?.({ done: true });
