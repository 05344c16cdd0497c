import { type Logger, pino } from 'pino';

export function createLogger(level: string, name: string): Logger {
  return pino(
    {
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
    },
    // Asynchronous writes: a line is handed to the OS off the main thread, and lines written
    // while one is in flight go out together (a synchronous write per request was ~9 % of the
    // web's busy time under load). pino flushes what is buffered when the process exits.
    pino.destination({ dest: 1, sync: false }),
  );
}
