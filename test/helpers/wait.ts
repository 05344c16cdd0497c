// The one poller of the tests: waits on a condition (rows, a status, a log line), never on time.

export interface WaitOptions {
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
  /** What is awaited, for the timeout's message. */
  what?: string;
}

/** Calls `condition` (10 ms apart at first, backing off to 250 ms) until it returns a truthy value, which it returns. */
export async function waitUntil<T>(
  condition: () => Promise<T | undefined | null | false>,
  options: WaitOptions = {},
): Promise<T> {
  const { timeoutMs = 30_000, what = 'condition' } = options;
  const deadline = Date.now() + timeoutMs;
  let delay = 10;
  while (Date.now() < deadline) {
    const value = await condition();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 250);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
