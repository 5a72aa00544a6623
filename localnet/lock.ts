// Exclusive use of a data directory by one running localnet, so two processes never interleave writes.
import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

export const LOCK_FILE = 'localnet.lock';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Returns a release function. A lock left by a dead process is taken over. */
export async function lockDataDir(dataDir: string, held: Set<string>): Promise<() => Promise<void>> {
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fh = await open(path, 'wx');
      await fh.writeFile(String(process.pid));
      await fh.close();
      held.add(path);
      return async () => {
        held.delete(path);
        await rm(path, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      // The same process may hold it through another, still open, localnet.
      const inUse = held.has(path) || (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid));
      if (inUse) throw new Error(`localnet: data dir ${dataDir} is in use by another localnet (pid ${pid || 'unknown'})`);
      await rm(path, { force: true });
    }
  }
  throw new Error(`localnet: could not lock data dir ${dataDir}`);
}
