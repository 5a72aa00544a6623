// Start-up failures that name their fix: a refused start says what is wrong and what to change, and exits non-zero.
import { createServer } from 'node:net';

/** The operator's way out when the ledger went back behind what the chain or the archive holds (design §13). */
export const RECOVER_COMMAND = 'npm run ledger -- recover';

/** A start that cannot go on; the message names the cause and the fix, and main exits 1 with it. */
export class StartupError extends Error {
  override readonly name: string = 'StartupError';
}

/** A URL with its password hidden, fit for a log line. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

/**
 * The start-up error of a failed `listen`, naming the variable that chose the port; other errors pass through.
 * @example listenError(err, 'PORT', '0.0.0.0', 8080)
 */
export function listenError(err: unknown, variable: string, host: string, port: number): unknown {
  const code = (err as { code?: string }).code;
  if (code === 'EADDRINUSE') {
    return new StartupError(
      `${variable}=${port}: port ${port} on ${host} is already in use by another process; stop that process, or set ${variable} to a free port`,
    );
  }
  if (code === 'EACCES') return new StartupError(`${variable}=${port}: this user may not listen on port ${port}; use a port above 1023`);
  if (code === 'EADDRNOTAVAIL') return new StartupError(`HOST=${host}: no network interface of this machine has that address; use 0.0.0.0 or 127.0.0.1`);
  return err;
}

/**
 * Fails fast when `port` cannot be listened on, before anything slow starts (the real listen reports the same).
 * Port 0 (any free port) always passes.
 * @throws {StartupError} naming `variable`
 */
export async function assertPortFree(variable: string, host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err) => reject(listenError(err, variable, host, port)));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}
