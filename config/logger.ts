// Structured pino logs shared by every role.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, name = 'pfws'): Logger {
  return pino({ name, level, redact: ['req.headers.authorization', 'req.headers["payment-signature"]'] });
}
