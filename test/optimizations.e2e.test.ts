// An optimization end to end on real processes: posted through the API, its rounds calculated by a
// real worker (claimed like sweep variants, without hourly data) and stepped by it, followed live
// over SSE (evaluation, improved, finished; resumed from an event id); the best found is the best
// of its evaluations and matches the engine-direct search on the same problem; its evaluations read
// back as JSON and CSV; the list pages; a bad request writes nothing; cancel stops the next round.
import t from 'tap';
import { bestIndex } from '../shared/optimizations.search.ts';
import { getJson } from './helpers/http.ts';
import { engineEvaluator, mixProblem, runSearch, searchProblem } from './helpers/optimizations.problems.ts';
import { startStack, withProcessLogs } from './helpers/stack.ts';

const stack = await startStack({ workers: [{}] });
t.teardown(() => stack.stop());

const problem = mixProblem('e2e best mix', 200, 20, [{ kpi: 'curtailment_percent', max: 1 }]);
const MAX = 40;
const body = {
  name: problem.name,
  base: problem.base,
  variables: problem.variables,
  objective: problem.objective,
  constraints: problem.constraints,
  max_evaluations: MAX,
};

async function post(path: string, payload: unknown) {
  const res = await fetch(`${stack.web.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : {} };
}

interface Row {
  index: number;
  round: number;
  scenario_id: string;
  status: string;
  values: Record<string, number>;
  kpis: Record<string, number> | null;
  feasible: boolean;
}

t.test('an optimization through the API, followed live, matches the engine-direct search', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const created = await post('/api/optimizations', body);
    t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 400));
    const o = created.json;
    t.equal(created.headers.get('location'), `/api/optimizations/${o.id}`);
    t.equal(o.status, 'running');
    t.ok(o.queued > 0, `round 0 queued: ${o.queued}`);

    const follower = stack.follow(`/api/optimizations/${o.id}/events`);
    const finished = await follower.until((e) => e.event === 'finished', 240_000);
    const evaluationEvents = follower.events.filter((e) => e.event === 'evaluation');
    const improved = follower.events.filter((e) => e.event === 'improved');
    t.same(
      follower.events.map((e) => e.id),
      Array.from({ length: follower.events.length }, (_, i) => i + 1),
      'event ids 1..n, in order, no gap',
    );
    t.ok(improved.length >= 1, `improved events: ${improved.length}`);
    const final = (await getJson(`${stack.web.baseUrl}/api/optimizations/${o.id}`)).json as Record<string, unknown> & {
      best: { scenario_id: string; values: Record<string, number>; kpis: Record<string, number> };
      evaluations: number;
      rounds: number;
      feasible: boolean;
      status: string;
    };
    t.equal(final.status, 'succeeded');
    t.equal(evaluationEvents.length, final.evaluations, 'one evaluation event per evaluation');
    t.ok(final.evaluations <= MAX, `${final.evaluations} ≤ max_evaluations`);
    t.ok(final.rounds > 1, `${final.rounds} rounds`);
    t.same(
      (finished.data as { best: { scenario_id: string } }).best.scenario_id,
      final.best.scenario_id,
      'finished names the best',
    );
    t.equal(
      improved[improved.length - 1].data && (improved[improved.length - 1].data as { scenario_id: string }).scenario_id,
      final.best.scenario_id,
      'the last improvement is the best',
    );

    // The same search against the engine directly: the same points, the same best.
    const ev = engineEvaluator(problem);
    const direct = runSearch(searchProblem(problem, MAX), ev.evaluate);
    const evaluations = (await getJson(`${stack.web.baseUrl}/api/optimizations/${o.id}/evaluations`)).json as {
      variables: string[];
      evaluations: Row[];
    };
    t.same(
      evaluations.variables,
      problem.variables.map((v) => v.path),
    );
    t.same(
      evaluations.evaluations.map((e) => problem.variables.map((v) => e.values[v.path])),
      direct.history.map((h) => h.values),
      'the service tried the points the engine-direct search tries, in the same order',
    );
    const b = bestIndex(searchProblem(problem, MAX), direct.history) as number;
    t.same(
      problem.variables.map((v) => final.best.values[v.path]),
      direct.history[b].values,
      'and found the same best',
    );
    t.ok(
      Math.abs(final.best.kpis.equity_npv - (direct.history[b].metrics?.equity_npv as number)) <= 1,
      'with the same equity NPV',
    );
    t.equal(final.feasible, true);

    // Evaluations are scenarios: claimed as variants, no hourly data kept. A point that is not a
    // valid scenario (both capacities 0) is an evaluation that failed at once, without a job.
    const { rows } = await stack.pool.query<{ n: number; hourly: number; behind: boolean; invalid: number }>(
      `SELECT count(j.id)::int AS n, count(*) FILTER (WHERE s.keep_hourly)::int AS hourly,
              bool_and(j.priority <= -1) FILTER (WHERE j.id IS NOT NULL) AS behind,
              count(*) FILTER (WHERE s.error ->> 'code' = 'invalid_point' AND j.id IS NULL)::int AS invalid
         FROM scenarios s LEFT JOIN pgboss.job j ON j.id = s.id WHERE s.optimization_id = $1`,
      [o.id],
    );
    t.same(
      rows[0],
      { n: final.evaluations - 1, hourly: 0, behind: true, invalid: 1 },
      "one job each at a variant's priority (a fair-share round, behind singles), no hourly data; (0, 0) failed without a job",
    );
    const csv = await fetch(`${stack.web.baseUrl}/api/optimizations/${o.id}/evaluations?format=csv`);
    const lines = (await csv.text()).trim().split('\n');
    t.equal(lines.length, final.evaluations + 1, 'CSV: a header and one row per evaluation');
    t.match(
      lines[0],
      /^index,round,scenario_id,status,feasible,\/solar\/capacity_mw_dc,\/wind\/capacity_mw,.*equity_npv/,
    );

    // Resume after the third event: the rest, and nothing before.
    const resumed = stack.follow(`/api/optimizations/${o.id}/events`, { lastEventId: 3 });
    const again = await resumed.until((e) => e.event === 'finished', 30_000);
    t.equal(resumed.events[0].id, 4, 'resumed after event 3');
    t.equal(again.id, finished.id);
  });
});

t.test('the rules: a 400 names the field and nothing is written', async (t) => {
  const before = await stack.pool.query(
    'SELECT (SELECT count(*) FROM optimizations) AS o, (SELECT count(*) FROM scenarios) AS s',
  );
  const cases: Array<[string, unknown, string]> = [
    ['non-numeric input', { ...body, variables: [{ path: '/solar/array_type', min: 0, max: 1 }] }, '/variables/0/path'],
    ['no such input', { ...body, variables: [{ path: '/solar/nope', min: 0, max: 1 }] }, '/variables/0/path'],
    ['min > max', { ...body, variables: [{ path: '/solar/capacity_mw_dc', min: 300, max: 100 }] }, '/variables/0/min'],
    ['unknown objective KPI', { ...body, objective: { maximize: 'happiness' } }, '/objective/maximize'],
    ['unknown constraint KPI', { ...body, constraints: [{ kpi: 'nope', max: 1 }] }, '/constraints/0/kpi'],
    ['a constraint without a bound', { ...body, constraints: [{ kpi: 'min_dscr' }] }, '/constraints/0'],
    [
      "out of the input's range at a face",
      { ...body, variables: [{ path: '/solar/capacity_mw_dc', min: 0, max: 200_000 }] },
      '/variables/0/max',
    ],
    [
      'a base invalid everywhere',
      { ...body, base: { ...problem.base, wind: { hub_height_m: 1 } } },
      '/base/wind/hub_height_m',
    ],
    ['a variable twice', { ...body, variables: [problem.variables[0], problem.variables[0]] }, '/variables/1/path'],
    [
      'a step too fine for the grid',
      { ...body, variables: [{ path: '/site/latitude', min: -90, max: 90, step: 1e-300 }] },
      '/variables/0/step',
    ],
    [
      'an item of an array the base does not give',
      { ...body, variables: [{ path: '/market/merchant_hour_of_day_multipliers/18', min: 1, max: 3 }] },
      '/variables/0/path',
    ],
  ];
  for (const [what, payload, path] of cases) {
    const res = await post('/api/optimizations', payload);
    t.equal(res.status, 400, what);
    const paths = (res.json.errors ?? []).map((e: { path: string }) => e.path);
    t.ok(paths.includes(path), `${what}: names ${path} (${JSON.stringify(paths)})`);
  }
  const after = await stack.pool.query(
    'SELECT (SELECT count(*) FROM optimizations) AS o, (SELECT count(*) FROM scenarios) AS s',
  );
  t.same(after.rows, before.rows, 'nothing written');
});

t.test('cancel, list and paging', async (t) => {
  const created = await post('/api/optimizations', { ...body, name: 'to cancel', max_evaluations: 200 });
  t.equal(created.status, 201);
  const cancelled = await post(`/api/optimizations/${created.json.id}/cancel`, {});
  t.equal(cancelled.status, 200);
  t.equal(cancelled.json.status, 'cancelled');
  const again = await post(`/api/optimizations/${created.json.id}/cancel`, {});
  t.equal(again.status, 409, 'a second cancel: nothing to cancel');
  const page1 = await getJson(`${stack.web.baseUrl}/api/optimizations?limit=1`);
  const items1 = (page1.json as { items: Array<{ id: string }>; next_cursor: string }).items;
  t.equal(items1[0].id, created.json.id, 'newest first');
  const next = (page1.json as { next_cursor: string }).next_cursor;
  t.ok(next, 'a next cursor');
  const page2 = await getJson(`${stack.web.baseUrl}/api/optimizations?limit=1&cursor=${next}`);
  t.not((page2.json as { items: Array<{ id: string }> }).items[0].id, created.json.id, 'the next page starts after it');
  const { rows } = await stack.pool.query<{ status: string }>(
    'SELECT status FROM optimization_progress WHERE id = $1',
    [created.json.id],
  );
  t.same(rows, [{ status: 'cancelled' }], 'the psql view shows it');
});
