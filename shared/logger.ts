import { type Logger, pino } from 'pino';

export function createLogger(level: string, name: string): Logger {
  return pino({
    name,
    level,
    // Keys must never reach the log, whatever logs a request.
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'],
      censor: '[redacted]',
    },
  });
}
