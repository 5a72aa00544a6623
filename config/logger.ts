// Structured pino logs shared by every role: readable lines on a terminal (pino-pretty), JSON lines otherwise.
import { createRequire } from 'node:module';
import { pino, type Logger } from 'pino';
import type { PrettyOptions, PrettyStream } from 'pino-pretty';

export type { Logger };

export type LogFormat = 'auto' | 'pretty' | 'json';

/**
 * @param format - `auto` is pretty when stdout is a terminal, JSON otherwise
 * @defaultValue format `json`, so that a caller that does not choose gets machine-readable lines
 */
export function createLogger(level: string, format: LogFormat = 'json', name = 'pfws'): Logger {
  const options = { name, level, redact: ['req.headers.authorization', 'req.headers["payment-signature"]'] };
  const usePretty = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
  if (!usePretty) return pino(options);
  // Loaded only for a terminal: a JSON logger (every API process of a deployment) never needs its code.
  const pretty = createRequire(import.meta.url)('pino-pretty') as (options: PrettyOptions) => PrettyStream;
  // In-process and synchronous: lines are never lost when the process exits right after logging (a failed start).
  return pino(options, pretty({ sync: true, colorize: process.stdout.isTTY === true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
}
