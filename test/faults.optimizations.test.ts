// A worker dies (SIGKILL) in the middle of an optimization: another worker takes its jobs over once
// their heartbeats are stale, the search steps go on from the evaluations as written, and the
// optimization finishes having tried exactly the points, in the same order, that the engine-direct
// search tries: no point twice, no round lost or written twice, one `finished`.
import t from 'tap';
import { bestIndex } from '../shared/optimizations.search.ts';
import { killAll } from './helpers/faults.ts';
import { getJson, postJson } from './helpers/http.ts';
import { engineEvaluator, mixProblem, runSearch, searchProblem } from './helpers/optimizations.problems.ts';
import { type Proc, slowEngine } from './helpers/processes.ts';
import { startStack } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const HEARTBEAT = { JOB_HEARTBEAT_SECONDS: '10', SUPERVISE_INTERVAL_SECONDS: '1' };
const stack = await startStack({ web: HEARTBEAT });
const workers: Proc[] = [];
t.teardown(async () => {
  await killAll(workers);
  await stack.stop();
});

const problem = mixProblem('killed mid-search', 200, 25);
const MAX = 30;

interface Progress {
  status: string;
  evaluations: number;
  rounds: number;
  best: { values: Record<string, number> } | null;
}

t.test('SIGKILL mid-search: the search finishes on another worker, the same points in the same order', async (t) => {
  const first = await stack.startWorker(HEARTBEAT, slowEngine(400));
  workers.push(first);
  const created = await postJson(`${stack.web.baseUrl}/api/optimizations`, { ...problem, max_evaluations: MAX });
  t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 300));
  const id = created.json.id as string;
  const read = async () => (await getJson(`${stack.web.baseUrl}/api/optimizations/${id}`)).json as unknown as Progress;
  // Mid-search: past round 0, some evaluations of a later round written.
  await waitUntil(async () => (await read()).rounds >= 2, { timeoutMs: 60_000, what: 'round 1' });
  t.equal(await first.stop('SIGKILL'), null, 'the first worker is gone');
  t.equal((await read()).status, 'running', 'killed while running');
  workers.push(await stack.startWorker(HEARTBEAT));
  await waitUntil(async () => (await read()).status !== 'running', { timeoutMs: 120_000, what: 'the end' });
  const end = await read();
  t.equal(end.status, 'succeeded');

  const ev = engineEvaluator(problem);
  const direct = runSearch(searchProblem(problem, MAX), ev.evaluate);
  const { rows } = await stack.pool.query<{ values: Record<string, number>; round: number; index: number }>(
    `SELECT variant_values AS values, optimization_round AS round, variant_index AS index
       FROM scenarios WHERE optimization_id = $1 ORDER BY variant_index`,
    [id],
  );
  t.same(
    rows.map((r) => r.index),
    rows.map((_, i) => i),
    'evaluation indices 0..n-1',
  );
  t.same(
    rows.map((r) => problem.variables.map((v) => r.values[v.path])),
    direct.history.map((h) => h.values),
    'the same points in the same order as the engine-direct search',
  );
  const b = bestIndex(searchProblem(problem, MAX), direct.history) as number;
  t.same(
    problem.variables.map((v) => end.best?.values[v.path]),
    direct.history[b].values,
    'the same best',
  );
  const { rows: finished } = await stack.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM optimization_events WHERE optimization_id = $1 AND name = 'finished'`,
    [id],
  );
  t.equal(finished[0].n, 1, 'one finished event');
});
