// The suites' service handle: a service that exits while starting fails its start at once, not at the timeout.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../chaos/ports.ts';
import { ServiceProcess } from '../../chaos/service-process.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('ServiceProcess', () => {
  it('fails a start as soon as the service exits (here: Redis unreachable)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pfws-service-process-'));
    dirs.push(dir);
    const proc = new ServiceProcess({
      env: { PORT: String(await freePort()), DATA_DIR: dir, REDIS_URL: `redis://127.0.0.1:${await freePort()}`, API_WORKERS: '0' },
      logFile: path.join(dir, 'service.log'),
      apiWorkers: 0,
      args: ['--role', 'api'],
    });
    const started = Date.now();
    await expect(proc.start(60_000)).rejects.toThrow(/the service exited/);
    expect(Date.now() - started).toBeLessThan(30_000);
    proc.close();
  });
});
