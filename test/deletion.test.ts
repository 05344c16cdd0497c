// DELETE racing what is under way: a running calculation, a sweep being claimed, an optimization
// mid-round, open event streams, and a worker SIGKILLed in the middle. After each, nothing is
// orphaned (checked in SQL): no job without its scenario, no event or result without its
// scenario, no scenario without its parent; the worker neither crashed nor retried for ever; open
// streams ended with `deleted`. And retention, with a clock the test controls, under load.
import pino from 'pino';
import t, { type Test } from 'tap';
import { loadConfig } from '../shared/config.ts';
import { openDb } from '../shared/db.ts';
import { createBoss } from '../shared/queue.ts';
import { retentionRun } from '../worker/retention.ts';
import { alive, HEARTBEAT, subtestWorkers, waitForAllFinished, waitForEvent } from './helpers/faults.ts';
import { DEFAULT_SCENARIO, postJson, postScenario } from './helpers/http.ts';
import type { Proc } from './helpers/processes.ts';
import { follow } from './helpers/sse.ts';
import { startStack } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const stack = await startStack({ web: HEARTBEAT });
const { web, pool } = stack;
t.teardown(() => stack.stop());

const workerWith = subtestWorkers(t, stack);
/** A worker whose calculations each take `delayMs` longer. */
const worker = (delayMs: number, env: Record<string, string> = {}) => workerWith(env, delayMs);

const del = async (path: string) => (await fetch(`${web.baseUrl}${path}`, { method: 'DELETE' })).status;
const get = async (path: string) => (await fetch(`${web.baseUrl}${path}`)).status;

/** Everything that would be an orphan, counted in SQL: each must be 0. */
async function orphans(): Promise<Record<string, number>> {
  const count = async (text: string) => Number((await pool.query<{ n: string }>(text)).rows[0].n);
  return {
    'jobs without their scenario': await count(
      `SELECT count(*) AS n FROM pgboss.job j WHERE j.name = 'calculate' AND NOT EXISTS (SELECT 1 FROM scenarios s WHERE s.id = j.id)`,
    ),
    'events without their scenario': await count(
      'SELECT count(*) AS n FROM scenario_events e WHERE NOT EXISTS (SELECT 1 FROM scenarios s WHERE s.id = e.scenario_id)',
    ),
    'results without their scenario': await count(
      'SELECT count(*) AS n FROM scenario_results r WHERE NOT EXISTS (SELECT 1 FROM scenarios s WHERE s.id = r.scenario_id)',
    ),
    'variants without their sweep': await count(
      'SELECT count(*) AS n FROM scenarios s WHERE s.sweep_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sweeps w WHERE w.id = s.sweep_id)',
    ),
    'evaluations without their optimization': await count(
      'SELECT count(*) AS n FROM scenarios s WHERE s.optimization_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM optimizations o WHERE o.id = s.optimization_id)',
    ),
    'sweep events without their sweep': await count(
      'SELECT count(*) AS n FROM sweep_events e WHERE NOT EXISTS (SELECT 1 FROM sweeps w WHERE w.id = e.sweep_id)',
    ),
    'optimization events without their optimization': await count(
      'SELECT count(*) AS n FROM optimization_events e WHERE NOT EXISTS (SELECT 1 FROM optimizations o WHERE o.id = e.optimization_id)',
    ),
  };
}
const NONE = {
  'jobs without their scenario': 0,
  'events without their scenario': 0,
  'results without their scenario': 0,
  'variants without their sweep': 0,
  'evaluations without their optimization': 0,
  'sweep events without their sweep': 0,
  'optimization events without their optimization': 0,
};

/** The worker is alive and still calculates: a fresh scenario succeeds. */
async function stillWorks(t: Test, w: Proc): Promise<void> {
  t.ok(alive(w), 'the worker is alive');
  const id = (await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: 'after the delete' })).json.id as string;
  await waitForAllFinished(pool, 60_000, [id]);
  const { rows } = await pool.query('SELECT status, attempt FROM scenarios WHERE id = $1', [id]);
  t.same(rows[0], { status: 'succeeded', attempt: 1 }, 'a new scenario succeeds on its first attempt');
}

t.test('a running calculation: 204, its stream ends with deleted, the worker writes nothing and goes on', async (t) => {
  const w = await worker(3000);
  const id = (await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: 'deleted while running' })).json
    .id as string;
  const stream = follow(`${web.baseUrl}/api/scenarios/${id}/events`);
  await waitForEvent(pool, id, (e) => e.name === 'progress', 30_000, 'progress');
  t.equal(await del(`/api/scenarios/${id}`), 204, 'DELETE: 204');
  t.equal(await get(`/api/scenarios/${id}`), 404, 'then 404');
  const last = await stream.until((e) => e.event === 'deleted', 10_000);
  t.equal(last.event, 'deleted', 'the open stream ends with `deleted`');
  // The calculation runs on (3 s) and its save finds no scenario.
  await new Promise((resolve) => setTimeout(resolve, 4000));
  const { rows } = await pool.query('SELECT count(*)::int AS n FROM scenarios WHERE id = $1', [id]);
  t.equal(rows[0].n, 0, 'no row came back');
  t.same(await orphans(), NONE, 'nothing orphaned');
  await stillWorks(t, w);
});

t.test('a sweep being claimed, with its stream open: every variant, event and job is gone', async (t) => {
  const w = await worker(800, { WORKER_VARIANT_BATCH: '2' });
  const created = await postJson(`${web.baseUrl}/api/sweeps`, {
    name: 'deleted sweep',
    base: { site: DEFAULT_SCENARIO.site },
    vary: [{ path: '/solar/capacity_mw_dc', values: [10, 20, 30, 40, 50, 60, 70, 80] }],
  });
  const id = created.json.id as string;
  const stream = follow(`${web.baseUrl}/api/sweeps/${id}/events`);
  await waitUntil(
    async () =>
      Number(
        (
          await pool.query(
            `SELECT count(*) AS n FROM scenarios WHERE sweep_id = $1 AND status IN ('running', 'succeeded')`,
            [id],
          )
        ).rows[0].n,
      ) > 0,
    { what: 'a variant claimed' },
  );
  t.equal(await del(`/api/sweeps/${id}`), 204, 'DELETE: 204');
  t.equal(await get(`/api/sweeps/${id}`), 404, 'then 404');
  t.equal((await stream.until((e) => e.event === 'deleted', 10_000)).event, 'deleted', 'the stream ends with deleted');
  const { rows } = await pool.query('SELECT count(*)::int AS n FROM scenarios WHERE sweep_id = $1', [id]);
  t.equal(rows[0].n, 0, 'no variant is left');
  await new Promise((resolve) => setTimeout(resolve, 2500));
  t.same(await orphans(), NONE, 'nothing orphaned, after the claimed variants ran out');
  await stillWorks(t, w);
});

t.test('an optimization mid-round: no later round appears', async (t) => {
  const w = await worker(500);
  const created = await postJson(`${web.baseUrl}/api/optimizations`, {
    name: 'deleted optimization',
    base: { site: DEFAULT_SCENARIO.site },
    variables: [{ path: '/solar/capacity_mw_dc', min: 0, max: 200, step: 10 }],
    objective: { maximize: 'equity_npv' },
    max_evaluations: 30,
  });
  const id = created.json.id as string;
  await waitUntil(
    async () =>
      Number(
        (
          await pool.query(`SELECT count(*) AS n FROM scenarios WHERE optimization_id = $1 AND status = 'succeeded'`, [
            id,
          ])
        ).rows[0].n,
      ) > 0,
    { what: 'an evaluation finished' },
  );
  t.equal(await del(`/api/optimizations/${id}`), 204, 'DELETE: 204');
  await new Promise((resolve) => setTimeout(resolve, 2500));
  const { rows } = await pool.query('SELECT count(*)::int AS n FROM scenarios WHERE optimization_id = $1', [id]);
  t.equal(rows[0].n, 0, 'no evaluation is left, and no round was written after');
  t.equal(await get(`/api/optimizations/${id}`), 404, 'then 404');
  t.same(await orphans(), NONE, 'nothing orphaned');
  await stillWorks(t, w);
});

t.test('a worker SIGKILLed mid-calculation of a scenario deleted meanwhile: no job comes back', async (t) => {
  const first = await worker(5000);
  const id = (await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: 'killed and deleted' })).json.id as string;
  await waitForEvent(pool, id, (e) => e.name === 'progress', 30_000, 'progress');
  t.equal(await first.stop('SIGKILL'), null, 'the worker is killed mid-calculation');
  t.equal(await del(`/api/scenarios/${id}`), 204, 'DELETE: 204');
  const second = await worker(0);
  // Past a heartbeat's expiry and a supervise round: a job left behind would be retried by now.
  await new Promise((resolve) => setTimeout(resolve, 12_000));
  t.same(await orphans(), NONE, 'nothing orphaned: no job to retry');
  const { rows } = await pool.query('SELECT count(*)::int AS n FROM scenarios WHERE id = $1', [id]);
  t.equal(rows[0].n, 0, 'the scenario stays deleted');
  await stillWorks(t, second);
});

t.test('retention: a clock the test controls, batches under load', async (t) => {
  const w = await worker(0);
  const config = loadConfig({ DATABASE_URL: stack.url });
  const db = openDb(stack.url);
  t.teardown(() => db.close());
  const boss = createBoss(config, stack.url, 'web');
  await boss.start();
  t.teardown(() => boss.stop({ graceful: false, close: true }));
  // Finished resources to expire: 12 scenarios and a sweep of 3.
  const old = await Promise.all(
    Array.from(
      { length: 12 },
      async (_, i) => (await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: `old ${i}` })).json.id as string,
    ),
  );
  const sweep = (
    await postJson(`${web.baseUrl}/api/sweeps`, {
      name: 'old sweep',
      base: { site: DEFAULT_SCENARIO.site },
      vary: [{ path: '/solar/capacity_mw_dc', values: [10, 20, 30] }],
    })
  ).json.id as string;
  await waitForAllFinished(pool, 120_000, old);
  await waitUntil(
    async () => (await pool.query('SELECT finished_at FROM sweeps WHERE id = $1', [sweep])).rows[0].finished_at,
    {
      timeoutMs: 60_000,
      what: 'the sweep to finish',
    },
  );
  // The cut: everything above finished before it, everything below after it.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const cut = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const logger = pino({ level: 'silent' });
  const options = { db, boss, logger, days: 30, intervalMs: 1000, pauseMs: 50, batch: 5 };
  const today = await retentionRun({ ...options, now: () => new Date() });
  t.same(today, { scenarios: 0, sweeps: 0, optimizations: 0 }, 'nothing is older than 30 days today');
  // Under load: a backlog calculates while retention deletes, 30 days after the cut.
  const backlog = await Promise.all(
    Array.from(
      { length: 10 },
      async (_, i) => (await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: `live ${i}` })).json.id as string,
    ),
  );
  const later = new Date(cut + 30 * 86_400_000);
  const run = await retentionRun({ ...options, now: () => later });
  t.ok(run.scenarios >= 12, `the old scenarios are deleted, in batches of 5 (${run.scenarios})`);
  t.equal(run.sweeps, 1, 'and the old sweep');
  const gone = await pool.query('SELECT count(*)::int AS n FROM scenarios WHERE id = ANY($1::uuid[])', [old]);
  t.equal(gone.rows[0].n, 0, 'none of the old scenarios is left');
  await waitForAllFinished(pool, 120_000, backlog);
  const live = await pool.query<{ status: string; attempt: number }>(
    'SELECT status, attempt FROM scenarios WHERE id = ANY($1::uuid[])',
    [backlog],
  );
  t.equal(live.rows.length, backlog.length, 'retention kept the backlog (it finished after the cut)');
  t.ok(
    live.rows.every((r) => r.status === 'succeeded' && r.attempt === 1),
    'the backlog calculated beside retention, each on its first attempt',
  );
  t.same(await orphans(), NONE, 'nothing orphaned');
  t.ok(alive(w), 'the worker is alive');
});
