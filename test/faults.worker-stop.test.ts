// A worker stopped gracefully (SIGTERM): it claims nothing new, finishes what it holds within its
// grace period or hands it back, and exits 0; no scenario is left `running` without a live worker.
import t from 'tap';
import {
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
import { startStack } from './helpers/stack.ts';

const stack = await startStack({ web: HEARTBEAT });
const { web } = stack;
t.teardown(() => stack.stop());

const worker = subtestWorkers(t, stack);

async function create(name: string): Promise<string> {
  const res = await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name });
  if (res.status !== 201) throw new Error(`create ${name}: ${res.status}`);
  return res.json.id as string;
}

const runningScenarios = async () =>
  (await stack.pool.query<{ id: string }>(`SELECT id FROM scenarios WHERE status = 'running'`)).rows.map((r) => r.id);

t.test('within the grace period: the running calculation finishes, nothing new is claimed, exit 0', async (t) => {
  const w = await worker({ SHUTDOWN_GRACE_SECONDS: '20' }, 3000);
  const held = await create('held while stopping');
  const waiting = [await create('waiting 1'), await create('waiting 2')];
  await waitForEvent(stack.pool, held, (e) => e.name === 'progress', 30_000, 'progress');

  const t0 = Date.now();
  const code = await w.stop('SIGTERM');
  const took = Date.now() - t0;
  t.equal(code, 0, 'exit code 0');
  t.ok(took < 20_000, `exited within the grace period (${took} ms)`);

  const row = await scenarioRow(stack.pool, held);
  t.equal(row.status, 'succeeded', 'the calculation it held finished');
  t.equal(row.attempt, 1, 'on its first attempt');
  t.same(await scenarioProblems(stack.pool, { ids: [held] }), []);
  for (const id of waiting) {
    t.match(await scenarioRow(stack.pool, id), { status: 'queued', attempt: 0 }, 'a waiting scenario was not claimed');
    t.match(await jobOf(stack.pool, id), { state: 'created' });
  }
  t.equal(w.logs.filter((l) => l.msg === 'calculated').length, 1, 'exactly one calculation by the stopped worker');
  t.same(await runningScenarios(), [], 'nothing left running');

  // The next worker does the rest.
  await worker({});
  await waitForAllFinished(stack.pool, 60_000, waiting);
  t.same(await scenarioProblems(stack.pool, { ids: waiting }), []);
});

t.test('beyond the grace period: the calculation is handed back and retried at once by the next worker', async (t) => {
  const w = await worker({ SHUTDOWN_GRACE_SECONDS: '1' }, 60_000);
  const id = await create('longer than the grace period');
  await waitForEvent(stack.pool, id, (e) => e.name === 'progress', 30_000, 'progress');

  const t0 = Date.now();
  t.equal(await w.stop('SIGTERM'), 0, 'exit code 0');
  const took = Date.now() - t0;
  t.ok(took < 10_000, `exited soon after the 1 s grace period (${took} ms)`);

  const job = await jobOf(stack.pool, id);
  t.not(job?.state, 'active', `the job is not left active with no worker (state ${job?.state})`);
  t.same(await runningScenarios(), [], 'the scenario does not claim to be running');
  t.equal((await scenarioRow(stack.pool, id)).status, 'queued');

  // Handed back, not lost: the next worker takes it without waiting for a heartbeat to go stale.
  const next = await worker({});
  const t1 = Date.now();
  await waitForAllFinished(stack.pool, 60_000, [id]);
  t.ok(Date.now() - t1 < 15_000, `retried promptly (${Date.now() - t1} ms)`);
  const row = await scenarioRow(stack.pool, id);
  t.equal(row.status, 'succeeded');
  t.equal(row.attempt, 2);
  const events = await eventLog(stack.pool, id);
  t.same(runningAttempts(events), [1, 2]);
  t.same(
    events.filter((e) => e.name === 'queued').map((e) => e.data),
    [{}, { attempt: 2, reason: 'retry' }],
    'the hand-back shows as one queued {attempt: 2, reason: retry}',
  );
  t.same(await scenarioProblems(stack.pool, { ids: [id] }), []);
  t.equal(await next.stop('SIGTERM'), 0, 'an idle worker also stops with 0');
});
