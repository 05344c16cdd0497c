// A worker dies (SIGKILL) or freezes (SIGSTOP) in the middle of a calculation: another worker takes
// the job over once its heartbeat is stale, the scenario succeeds on attempt 2, the stream shows the
// retry, and there is exactly one result. Calculations are stretched by 4 s (slowEngine) so the
// fault lands while the engine is visibly under way.
import t from 'tap';
import {
  alive,
  eventLog,
  HEARTBEAT,
  jobOf,
  runningAttempts,
  scenarioProblems,
  scenarioRow,
  subtestWorkers,
  waitForAllFinished,
  waitForEvent,
} from './helpers/faults.ts';
import { DEFAULT_SCENARIO, postScenario } from './helpers/http.ts';
import { follow } from './helpers/sse.ts';
import { startStack } from './helpers/stack.ts';

const stack = await startStack({ web: HEARTBEAT });
const { web } = stack;
t.teardown(() => stack.stop());

const workerWith = subtestWorkers(t, stack);
/** A worker whose calculations each take 4 s longer. */
const worker = (env: Record<string, string> = {}) => workerWith(env, 4000);

const progressOf =
  (attempt: number) =>
  (
    e: { name: string; data: Record<string, unknown> },
    i: number,
    all: Array<{ name: string; data: Record<string, unknown> }>,
  ) =>
    e.name === 'progress' && all.slice(0, i).filter((x) => x.name === 'running').length === attempt;

t.test('SIGKILL mid-calculation: another worker takes over, attempt 2 succeeds, one result', async (t) => {
  const first = await worker();
  const created = await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: 'killed mid-run' });
  t.equal(created.status, 201);
  const id = created.json.id as string;
  const stream = follow(`${web.baseUrl}/api/scenarios/${id}/events`);

  // Mid-calculation: running, with some progress written, nowhere near done.
  await waitForEvent(stack.pool, id, (e) => e.name === 'progress', 30_000, 'first progress');
  t.equal((await scenarioRow(stack.pool, id)).status, 'running');
  // Killed before the next worker starts: on a loaded machine a start can outlast the stretched
  // calculation, which then finished before the kill.
  t.equal(await first.stop('SIGKILL'), null, 'the first worker is gone');
  t.equal(first.child.signalCode, 'SIGKILL');
  const second = await worker(); // takes the job once its heartbeat is stale

  await waitForAllFinished(stack.pool, 90_000, [id]);
  const end = await stream.until((e) => e.event === 'succeeded' || e.event === 'failed', 15_000);
  t.equal(end.event, 'succeeded', JSON.stringify(end.data));
  const row = await scenarioRow(stack.pool, id);
  t.equal(row.status, 'succeeded');
  t.equal(row.attempt, 2, 'succeeded on attempt 2');

  const events = await eventLog(stack.pool, id);
  t.same(runningAttempts(events), [1, 2], 'running {attempt: 1}, then running {attempt: 2}');
  const retry = events.findIndex((e) => e.name === 'queued' && e.seq > 1);
  t.ok(retry > 0, 'a second queued event');
  t.same(events[retry].data, { attempt: 2, reason: 'retry' });
  t.equal(events[retry + 1].name, 'running', 'queued {retry} is followed by running');
  t.ok(events.some(progressOf(1)), 'attempt 1 had made progress before the kill');
  t.same(
    stream.events.map((e) => e.id),
    events.map((e) => e.seq),
    'the live stream saw every event of both attempts, once, in order',
  );
  t.same(await scenarioProblems(stack.pool, { ids: [id] }), [], 'one result, gapless events, one terminal event last');
  t.match(await jobOf(stack.pool, id), { state: 'completed', retry_count: 1 });
  t.ok(alive(second), 'the worker that took over is still running');
});

t.test('SIGSTOP mid-calculation, taken over, then SIGCONT: still one result and one terminal event', async (t) => {
  const frozen = await worker();
  const created = await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: 'frozen mid-run' });
  const id = created.json.id as string;
  await waitForEvent(stack.pool, id, (e) => e.name === 'progress', 30_000, 'first progress');
  frozen.child.kill('SIGSTOP');
  const other = await worker();

  // The frozen worker's heartbeat goes stale; the other worker starts attempt 2 …
  await waitForEvent(stack.pool, id, (e) => e.name === 'running' && e.data.attempt === 2, 60_000, 'attempt 2');
  // … and the frozen one wakes up in the middle of it, still holding attempt 1.
  frozen.child.kill('SIGCONT');

  await waitForAllFinished(stack.pool, 60_000, [id]);
  // Let both workers go idle, so nothing can still write after the assertions.
  await Promise.all([frozen.stop(), other.stop()]);
  const row = await scenarioRow(stack.pool, id);
  t.equal(row.status, 'succeeded');
  t.equal(row.progress, 1, 'progress 1 at the end, not a late progress report of the losing attempt');
  t.equal(row.stage, 'done');
  t.same(await scenarioProblems(stack.pool, { ids: [id] }), [], 'one result, one terminal event, last');
  const events = await eventLog(stack.pool, id);
  t.same(runningAttempts(events), [1, 2], 'attempt 2 ran, and no third');
  // Once attempt 2 has started, the thawed attempt 1 writes nothing: pg-boss sees its claim is gone.
  const fractions = events
    .slice(events.findLastIndex((e) => e.name === 'running'))
    .filter((e) => e.name === 'progress')
    .map((e) => e.data.progress as number);
  t.same(
    fractions,
    [...fractions].sort((a, b) => a - b),
    'progress after attempt 2 started never goes back',
  );
});

t.test('a calculation lost on its last allowed attempt fails with retries_exhausted, never stuck', async (t) => {
  // No retries allowed (the limit travels with the job, so the web that creates it sets it).
  const strictWeb = await stack.startWeb({ ...HEARTBEAT, JOB_RETRY_LIMIT: '0' });
  const doomed = await worker({ JOB_RETRY_LIMIT: '0' });
  const id = (await postScenario(strictWeb.baseUrl, { ...DEFAULT_SCENARIO, name: 'lost for good' })).json.id as string;
  const stream = follow(`${strictWeb.baseUrl}/api/scenarios/${id}/events`);
  await waitForEvent(stack.pool, id, (e) => e.name === 'progress', 30_000, 'progress');
  // Killed before the next worker starts (a slow start could outlast the calculation).
  await doomed.stop('SIGKILL');
  await worker({ JOB_RETRY_LIMIT: '0' });

  // The database first (heartbeat, then the dead-letter queue), then what the stream delivered.
  await waitForAllFinished(stack.pool, 90_000, [id]);
  const end = await stream.until((e) => e.event === 'failed' || e.event === 'succeeded', 15_000);
  t.equal(end.event, 'failed');
  const row = await scenarioRow(stack.pool, id);
  t.equal(row.status, 'failed');
  t.match(
    row.error,
    { code: 'retries_exhausted', message: /did not finish after 1 attempt/ },
    JSON.stringify(row.error),
  );
  t.same(
    await scenarioProblems(stack.pool, { ids: [id], expected: 'failed' }),
    [],
    'no result, one terminal event, last',
  );
  t.same(runningAttempts(await eventLog(stack.pool, id)), [1]);
});
