// MAX_SSE_STREAMS is one count per web process: scenario and sweep streams share it. At the limit a
// new stream of either kind is a 503 with Retry-After; a stream that closes frees its place.
import t from 'tap';
import { DEFAULT_SCENARIO, getJson, postScenario } from './helpers/http.ts';
import { startStack } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

t.test('scenario and sweep streams share one limit per process', async (t) => {
  // No worker: everything stays queued, so every stream stays open.
  const stack = await startStack({ web: { MAX_SSE_STREAMS: '2' } });
  t.teardown(() => stack.stop());
  const base = stack.web.baseUrl;
  const scenario = await postScenario(base, DEFAULT_SCENARIO);
  const sweepRes = await fetch(`${base}/api/sweeps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 's', base: DEFAULT_SCENARIO, vary: [{ path: '/seed', values: [1, 2] }] }),
  });
  t.equal(sweepRes.status, 201, 'a sweep is created');
  const sweep = (await sweepRes.json()) as { id: string };
  const scenarioEvents = `/api/scenarios/${scenario.json.id}/events`;
  const sweepEvents = `/api/sweeps/${sweep.id}/events`;

  const a = stack.follow(scenarioEvents);
  await a.until((e) => e.event === 'queued');
  const controller = new AbortController();
  const b = await fetch(`${base}${sweepEvents}`, { signal: controller.signal });
  t.equal(b.status, 200, 'a sweep stream beside a scenario stream');
  const ready = async () => ((await getJson(`${base}/readyz`)).json.sse as { streams: number }).streams;
  await waitUntil(async () => (await ready()) === 2, { what: 'two open streams counted by /readyz' });

  for (const path of [scenarioEvents, sweepEvents]) {
    const refused = await fetch(`${base}${path}`);
    t.equal(refused.status, 503, `a third stream (${path.split('/')[2]}) is refused`);
    t.equal(refused.headers.get('retry-after'), '5', 'with Retry-After');
    t.match(refused.headers.get('content-type'), /problem\+json/);
    await refused.body?.cancel();
  }

  controller.abort();
  await waitUntil(async () => (await ready()) === 1, { what: 'the closed sweep stream freed its place' });
  const again = await fetch(`${base}${sweepEvents}`);
  t.equal(again.status, 200, 'a stream is admitted again once one has closed');
  await again.body?.cancel();
  a.close();
});
