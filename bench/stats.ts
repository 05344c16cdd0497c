// Small numeric helpers shared by the orchestrator and the load process.

/**
 * Wall-clock milliseconds with sub-millisecond resolution. Postgres's now() and clock_timestamp()
 * read the same machine clock, so the two can be compared (Linux slews CLOCK_MONOTONIC and
 * CLOCK_REALTIME alike; only a clock step would break this, and checkClock() looks for one).
 */
export const epochMs = (): number => performance.timeOrigin + performance.now();

/** How far performance's clock and Date's clock disagree, ms: more than a few means the wall clock stepped. */
export const clockSkewMs = (): number => Math.abs(epochMs() - Date.now());

/** The q-quantile (0..1) by the nearest-rank method, over the finite samples; NaN for none. */
export function quantile(samples: readonly number[], q: number): number {
  const s = samples.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const rank = Math.ceil(q * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))];
}

export const median = (samples: readonly number[]): number => quantile(samples, 0.5);

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every `everyMs` until it returns a value other than undefined, or throws after timeoutMs. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 100,
): Promise<T> {
  // Monotonic: a step of the wall clock must not end the wait.
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Runs `fn` over `items` with at most `limit` at once; results in input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<R>) {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  });
  await Promise.all(lanes);
  return out;
}
