/** JSON logs on standard output (pino), one logger per process. */
import pino, { type Logger } from 'pino';

export type { Logger };

/** `destination`: standard output unless given (tests read the lines back). */
export function createLogger(level: string, name = 'scan-indexer', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}
