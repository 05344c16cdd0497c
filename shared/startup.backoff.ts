// Start-up against a database that may not be there yet. A process started during an outage (a
// platform that starts everything at once, a Postgres being restarted) waits for the database,
// retrying its whole start-up with capped exponential backoff and logging each attempt, instead of
// exiting: a platform that does not restart it would otherwise leave nothing calculating. Only a
// configuration error stops the waiting, because no amount of retrying fixes it.

interface BackoffLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

interface BackoffOptions {
  /** The wait after the first failure; each later wait doubles, up to maxDelayMs. */
  firstDelayMs: number;
  maxDelayMs: number;
}

/**
 * A failure that retrying cannot fix: the server refused our credentials (SQLSTATE class 28,
 * invalid authorization) or the connection settings are unusable. Network errors, "the database
 * system is starting up" (57P03), a missing pg-boss schema (the release phase has not migrated yet)
 * and a missing database all may clear by themselves, so they are retried.
 */
export function isConfigurationError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('28')) return true;
  // node-pg's connection-string parser and Node's URL parser report a malformed DATABASE_URL so.
  return err instanceof TypeError && /Invalid URL|ERR_INVALID_URL/.test(`${err.message} ${String(code)}`);
}

/**
 * Runs `attempt` until it succeeds. After each failure that is not a configuration error, logs the
 * attempt and waits (firstDelayMs, doubling, capped at maxDelayMs). `attempt` must clean up after
 * itself when it fails, since the next attempt starts from scratch.
 */
export async function retryWithBackoff<T>(
  what: string,
  attempt: () => Promise<T>,
  logger: BackoffLogger,
  options: BackoffOptions,
): Promise<T> {
  let delayMs = options.firstDelayMs;
  for (let n = 1; ; n++) {
    try {
      const value = await attempt();
      if (n > 1) logger.info({ attempt: n }, `${what}: done after ${n} attempts`);
      return value;
    } catch (err) {
      if (isConfigurationError(err)) throw err;
      logger.warn(
        { attempt: n, retryInMs: delayMs, err: (err as Error).message },
        `${what}: the database is not available yet; retrying`,
      );
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      delayMs = Math.min(delayMs * 2, options.maxDelayMs);
    }
  }
}
