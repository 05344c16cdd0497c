// Small numeric helpers shared by the orchestrator and the load process.
import { epochMs } from '../test/helpers/wait.ts';

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
