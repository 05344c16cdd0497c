// Fair share between workspaces (shared/fair.share.ts), on a real Postgres and a real worker whose
// calculations are slowed down: workspace A's large sweep is queued and under way first, then
// workspace B's small sweep arrives; B's finishes while most of A's still waits (in arrival order
// it would wait for all of A's), and a single scenario posted after both goes ahead of both.
import t from 'tap';
import { accepted, getJson, postJson } from './helpers/http.ts';
import { slowEngine } from './helpers/processes.ts';
import { startStack } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const KEYS = { a: 'fair-share-key-a-7d1c', b: 'fair-share-key-b-93e0' };
const A_VARIANTS = 240;
const B_VARIANTS = 24;
const stack = await startStack({ web: { API_KEYS: `alpha:${KEYS.a},beta:${KEYS.b}` } });
t.teardown(() => stack.stop());
await stack.startWorker({ WORKER_VARIANT_BATCH: '4' }, slowEngine(20));
const base = stack.web.baseUrl;
const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const site = { latitude: 35.2, longitude: -101.8 };

/** A sweep over the PPA price only: every variant shares one generation profile (cheap but for the delay). */
async function sweep(key: string, name: string, n: number): Promise<string> {
  const body = { name, base: { site }, vary: [{ path: '/market/ppa_price_per_mwh', from: 20, to: 19 + n, step: 1 }] };
  return accepted(await postJson(`${base}/api/sweeps`, body, auth(key)), name).id as string;
}
async function counts(key: string, id: string): Promise<{ succeeded: number; total: number }> {
  return (await getJson(`${base}/api/sweeps/${id}`, auth(key))).json.counts as { succeeded: number; total: number };
}

t.test("B's small sweep finishes long before A's large one drains; a single goes ahead of both", async (t) => {
  const a = await sweep(KEYS.a, 'alpha large', A_VARIANTS);
  await waitUntil(async () => (await counts(KEYS.a, a)).succeeded >= 8, { timeoutMs: 60_000, what: 'A under way' });
  const b = await sweep(KEYS.b, 'beta small', B_VARIANTS);
  const single = accepted(
    await postJson(`${base}/api/scenarios`, { name: 'beta single', site }, auth(KEYS.b)),
    'single',
  ).id as string;

  let singleDone: { a: number; b: number } | null = null;
  let bDone: { a: number } | null = null;
  await waitUntil(
    async () => {
      const [ca, cb] = await Promise.all([counts(KEYS.a, a), counts(KEYS.b, b)]);
      if (!singleDone) {
        const s = (await getJson(`${base}/api/scenarios/${single}`, auth(KEYS.b))).json;
        if (s.status === 'succeeded') singleDone = { a: ca.succeeded, b: cb.succeeded };
      }
      if (!bDone && cb.succeeded === B_VARIANTS) bDone = { a: ca.succeeded };
      return bDone !== null && singleDone !== null;
    },
    { timeoutMs: 90_000, everyMs: 20, what: "B's sweep and the single to finish" },
  ).catch((err) => {
    throw stack.explain(err);
  });
  const atB = (bDone as unknown as { a: number }).a;
  const atSingle = singleDone as unknown as { a: number; b: number };
  t.ok(atB < A_VARIANTS / 2, `when B's ${B_VARIANTS} finished, A had finished ${atB} of ${A_VARIANTS}`);
  // Round-robin: B's variants each wait about one of A's, so A advanced about B's size meanwhile.
  t.ok(atB <= 8 + 2 * B_VARIANTS + 16, `A advanced about one variant per B variant (${atB})`);
  t.ok(atSingle.b < B_VARIANTS, `the single finished before B's sweep (B had ${atSingle.b} of ${B_VARIANTS})`);
});
