// echo.reqPerSec: the same client and concurrency against a bare Fastify echo on this machine.
import { fork } from 'node:child_process';
import path from 'node:path';
import { poolFor, runFor } from './client.ts';

export async function benchEcho(concurrency = 64, durationMs = 6_000): Promise<Record<string, number>> {
  const port = 40_000 + Math.floor(Math.random() * 10_000);
  const child = fork(path.join(import.meta.dirname, 'echo-server.ts'), [String(port)], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', () => reject(new Error('echo server exited')));
  });
  const { pool, apiPath } = poolFor(`http://127.0.0.1:${port}/api`, concurrency);
  const body = JSON.stringify({ commitment: 'ab'.repeat(32), sessionPubkey: '9'.repeat(44), direction: 'under', target: 49.5, wager: 0.01 });
  const run = await runFor(concurrency, durationMs, async () => {
    const res = await pool.request({ method: 'POST', path: `${apiPath}/echo`, headers: { 'content-type': 'application/json' }, body });
    await res.body.json();
  });
  await pool.close();
  child.kill('SIGTERM');
  return { 'echo.reqPerSec': Math.round((run.done / run.elapsedMs) * 1000) };
}
