// Small numeric helpers shared by the orchestrator and the load process, and the A/B tools' rounds.
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

/**
 * The A/B tools' command line: two checkouts, then numbers (rounds, block, …) in the order
 * `defaults` gives them, a missing one its default.
 */
export function checkoutsAndCounts(usage: string, defaults: readonly number[]): { roots: string[]; counts: number[] } {
  // Flags (--name) are the tool's own.
  const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const roots = args.filter((a) => !/^\d+$/.test(a));
  if (roots.length !== 2) throw new Error(`usage: ${usage}`);
  const given = args.filter((a) => /^\d+$/.test(a)).map(Number);
  return { roots, counts: defaults.map((d, i) => given[i] ?? d) };
}

/** One side's samples of each case, one a recorded round (the same index across cases and sides): ms a run. */
export interface CaseTimes<C extends string> {
  /** Engine-thread CPU (process.threadCpuUsage): less moved by other processes than wall time on a busy host. */
  cpu: Record<C, number[]>;
  wall: Record<C, number[]>;
}

/**
 * Same-run A/B: `run(side, name)` for every side (a checkout's engine, loaded into this process)
 * and case, in rounds whose order of sides flips every round, after `warmups` rounds not
 * recorded. A sample is a block of `block` runs in a row, divided: this host counts thread CPU in
 * 4 ms ticks. Returns each side's samples.
 */
export function alternated<C extends string>(
  sides: number,
  cases: readonly C[],
  run: (side: number, name: C) => void,
  { rounds, block = 1, warmups = 3 }: { rounds: number; block?: number; warmups?: number },
): CaseTimes<C>[] {
  const samples = () => Object.fromEntries(cases.map((name) => [name, [] as number[]])) as Record<C, number[]>;
  const times = Array.from({ length: sides }, () => ({ cpu: samples(), wall: samples() }));
  for (let round = -warmups; round < rounds; round++) {
    for (let e = 0; e < sides; e++) {
      const side = round % 2 === 0 ? e : sides - 1 - e;
      for (const name of cases) {
        const c0 = process.threadCpuUsage();
        const w0 = performance.now();
        for (let b = 0; b < block; b++) run(side, name);
        const w = performance.now() - w0;
        const c = process.threadCpuUsage(c0);
        if (round < 0) continue;
        times[side].cpu[name].push((c.user + c.system) / 1000 / block);
        times[side].wall[name].push(w / block);
      }
    }
  }
  return times;
}
