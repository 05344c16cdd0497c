import { type Logger, pino } from 'pino';

export function createLogger(level: string, name: string): Logger {
  return pino({
    name,
    level,
    // Keys must never reach the log, whatever logs a request, including the headers other APIs
    // use for keys (a client may send its key there by mistake).
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["proxy-authorization"]',
        'req.headers["x-api-key"]',
        'req.headers["api-key"]',
        'req.headers["x-auth-token"]',
        'req.headers.cookie',
        'headers.authorization',
      ],
      censor: '[redacted]',
    },
  });
}
