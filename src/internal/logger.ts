/** JSON logs on standard output (pino), one logger per process. */
import pino, { type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, name = 'scan-indexer'): Logger {
  return pino({
    name,
    level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
  });
}
