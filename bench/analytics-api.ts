// An API process for the analytics benchmark: a real Fastify app with the analytics routes and the error envelope,
// reading through cluster-style IPC from the chDB owner (the parent), as the forked API processes of `npm start` do.
// It measures its own event-loop delay and peak RSS on request.
import Fastify from 'fastify';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { IpcReader } from '../analytics/cluster-ipc.ts';
import errorsPlugin from '../api/plugins/errors.ts';
import analyticsRoutes from '../api/routes/analytics.ts';

const app = Fastify();
await app.register(errorsPlugin);
await app.register(analyticsRoutes, { prefix: '/api', analytics: new IpcReader(process, 10_000) });
const address = await app.listen({ port: 0, host: '127.0.0.1' });

const delay = monitorEventLoopDelay({ resolution: 5 });
process.on('message', (message: { type?: string }) => {
  if (message?.type === 'bench:loop:start') {
    delay.reset();
    delay.enable();
  } else if (message?.type === 'bench:loop:stop') {
    delay.disable();
    process.send?.({
      type: 'bench:loop',
      maxMs: delay.max / 1e6,
      p99Ms: delay.percentile(99) / 1e6,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
    });
  }
});
process.send?.({ type: 'bench:ready', address });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
