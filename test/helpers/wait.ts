// The one poller of the tests and the bench: waits on a condition (rows, a status, a log line),
// never on time; and the one way to wait for something pushed (a log line, an event) to arrive.

/**
 * Wall-clock milliseconds with sub-millisecond resolution. Postgres's now() and clock_timestamp()
 * read the same machine clock, so the two can be compared (Linux slews CLOCK_MONOTONIC and
 * CLOCK_REALTIME alike; only a clock step would break this, and the bench's clockSkewMs() looks for one).
 */
export const epochMs = (): number => performance.timeOrigin + performance.now();

export interface WaitOptions {
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
  /** What is awaited, for the timeout's message. */
  what?: string;
  /** Poll at this fixed interval instead of backing off (10 ms → 250 ms). */
  everyMs?: number;
}

/** Calls `condition` (10 ms apart at first, backing off to 250 ms) until it returns a truthy value, which it returns. */
export async function waitUntil<T>(
  condition: () => Promise<T | undefined | null | false>,
  options: WaitOptions = {},
): Promise<T> {
  const { timeoutMs = 30_000, what = 'condition', everyMs } = options;
  // Monotonic: a step of the wall clock must not end the wait.
  const deadline = performance.now() + timeoutMs;
  let delay = everyMs ?? 10;
  while (performance.now() < deadline) {
    const value = await condition();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, delay));
    if (everyMs === undefined) delay = Math.min(delay * 2, 250);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** Things that arrive one by one (a process's log lines, a stream's events), kept in order. */
export class Arrivals<T> {
  readonly items: T[] = [];
  readonly #waiters = new Set<() => void>();

  push(item: T): void {
    this.items.push(item);
    for (const w of this.#waiters) w();
  }

  /**
   * Resolves with the first item, already here or still to come, that matches. Rejects with
   * `timedOut()`'s error after `timeoutMs`, or with the error `ended` resolves to, if it does first
   * (the process exited, the stream closed).
   */
  until(
    predicate: (item: T) => boolean,
    options: { timeoutMs: number; timedOut: () => Error; ended?: Promise<Error> },
  ): Promise<T> {
    return new Promise((resolve, reject) => {
      const settle = (result: { item: T } | { error: Error }) => {
        if (!this.#waiters.delete(check)) return;
        clearTimeout(timer);
        if ('item' in result) resolve(result.item);
        else reject(result.error);
      };
      const check = () => {
        const hit = this.items.find(predicate);
        if (hit !== undefined) settle({ item: hit });
      };
      const timer = setTimeout(() => settle({ error: options.timedOut() }), options.timeoutMs);
      this.#waiters.add(check);
      void options.ended?.then((error) => settle({ error }));
      check();
    });
  }
}
