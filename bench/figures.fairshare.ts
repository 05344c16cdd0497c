// #40 fair share between workspaces: workspace B's 100-variant sweep, POST → finished, on an idle
// system (the baseline) and while workspace A's 2,000-variant sweep, queued first, drains (target:
// ≤ 2 × the baseline). Both sweeps vary capacities, the export limit and the price around one
// design, so their variants reuse the worker's generation profiles (the cheap engine configuration
// of #12's first sweep): a variant takes a few ms, and the figure is the queue's order, not the engine's.
import { accepted, getJson, postJson } from '../test/helpers/http.ts';
import { waitUntil } from '../test/helpers/wait.ts';
import type { Bench } from './context.ts';
import { reuseSweep } from './figures.sweeps.ts';
import { startWeb, startWorker } from './procs.ts';

export interface FairShareSizes {
  large: number;
  small: number;
}
export const FAIR_FULL: FairShareSizes = { large: 2000, small: 100 };
export const FAIR_QUICK: FairShareSizes = { large: 400, small: 20 };

const KEYS = { a: 'bench-fair-a-51c9e2', b: 'bench-fair-b-0a77d3' };
const auth = (key: string) => ({ authorization: `Bearer ${key}` });

interface Counts {
  succeeded: number;
  failed: number;
  total: number;
}

async function counts(base: string, key: string, id: string): Promise<Counts> {
  return (await getJson(`${base}/api/sweeps/${id}`, auth(key))).json.counts as Counts;
}

async function post(base: string, key: string, n: number): Promise<string> {
  return accepted(await postJson(`${base}/api/sweeps`, reuseSweep(n), auth(key)), `a ${n}-variant sweep`).id as string;
}

/** B's sweep, POST → every variant succeeded, ms; and how many of A's had finished by then. */
async function timedSmall(base: string, n: number, large?: string) {
  const t0 = performance.now();
  const id = await post(base, KEYS.b, n);
  await waitUntil(
    async () => {
      const c = await counts(base, KEYS.b, id);
      if (c.failed > 0) throw new Error(`${c.failed} variants failed`);
      return c.succeeded === c.total;
    },
    { timeoutMs: 600_000, everyMs: 20, what: "B's sweep" },
  );
  const ms = performance.now() - t0;
  return { ms, largeDone: large ? (await counts(base, KEYS.a, large)).succeeded : 0 };
}

export async function fairShare(b: Bench, url: string, sizes: FairShareSizes): Promise<void> {
  const web = await startWeb(url, b.logDir, 'web-fair', { API_KEYS: `alpha:${KEYS.a},beta:${KEYS.b}` });
  const worker = await startWorker(url, b.logDir, 'worker-fair');
  try {
    const base = `http://127.0.0.1:${web.port}`;
    // Warm the worker's profile cache and the statements' plans, as the loaded run will find them.
    await timedSmall(base, sizes.small);
    const idle = await timedSmall(base, sizes.small);
    const large = await post(base, KEYS.a, sizes.large);
    await waitUntil(async () => (await counts(base, KEYS.a, large)).succeeded >= 20, {
      timeoutMs: 120_000,
      what: "A's sweep under way",
    });
    const busy = await timedSmall(base, sizes.small, large);
    const ratio = busy.ms / idle.ms;
    b.rows.push({
      n: '40',
      figure: `Workspace B's ${sizes.small}-variant sweep while A's ${sizes.large.toLocaleString('en-US')}-variant one (queued first) drains, POST → finished`,
      value: busy.ms,
      unit: 'ms',
      baseline: { label: 'the same on an idle system', value: idle.ms },
      ratio,
      target: '≤ 2 × baseline',
      met: ratio <= 2,
    });
    b.notes.push(
      `#40: when B's ${sizes.small} variants had finished, A's had finished ${busy.largeDone} of ${sizes.large} (1 worker, WORKER_CONCURRENCY 1, batches of 4)`,
    );
  } finally {
    await worker.stop();
    await web.stop();
  }
}
