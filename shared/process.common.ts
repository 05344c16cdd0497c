// What the web and the worker process do alike around their own work: the config and the logger at
// start (exiting when the config is wrong or names no database), their start-up retried while the
// database is not there yet (startup.backoff.ts), and one stop on SIGTERM or SIGINT.
import type { Logger } from 'pino';
import { type Config, loadConfigOrExit } from './config.ts';
import { createLogger } from './logger.ts';
import { retryWithBackoff } from './startup.backoff.ts';

/** A process's config, its logger, and the database it runs on. */
export interface ProcessBasics {
  config: Readonly<Config>;
  logger: Logger;
  databaseUrl: string;
}

/** The config and a logger named `name`; exits when the config is wrong or DATABASE_URL is not set. */
export function processBasics(name: 'web' | 'worker'): ProcessBasics {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel, name);
  if (!config.databaseUrl) {
    logger.fatal('DATABASE_URL is not set (use `npm start` to run on an embedded Postgres)');
    process.exit(1);
  }
  return { config, logger, databaseUrl: config.databaseUrl };
}

/**
 * Runs the start-up `attempt` until the database lets it (retryWithBackoff: `attempt` cleans up
 * after a failure); a configuration error exits. A signal while waiting needs no handler: nothing is
 * served or claimed yet, so the default (exit) is right.
 */
export async function startOrExit<T>({ config, logger }: ProcessBasics, attempt: () => Promise<T>): Promise<T> {
  try {
    return await retryWithBackoff('start', attempt, logger, {
      firstDelayMs: 250,
      maxDelayMs: config.dbRetryMaxDelayMs,
    });
  } catch (err) {
    logger.fatal({ err }, 'could not start: a configuration error');
    process.exit(1);
  }
}

/** Runs `stop` on the first SIGTERM or SIGINT; a signal while it runs changes nothing. */
export function stopOnSignals(stop: (signal: string) => Promise<void>): void {
  let stopping = false;
  const once = (signal: string) => {
    if (stopping) return;
    stopping = true;
    void stop(signal);
  };
  process.on('SIGTERM', () => once('SIGTERM'));
  process.on('SIGINT', () => once('SIGINT'));
}
