// Poison input: stored inputs that the engine cannot calculate. The engine trusts what is stored
// (validation happened at the door), so the test poisons rows directly in SQL after a valid create.
// Each poisoned scenario fails once, with a readable error, on attempt 1 without a retry, and the
// same worker goes on to calculate the next scenario.
import t from 'tap';
import { alive, eventLog, jobOf, runningAttempts, scenarioProblems, waitForAllFinished } from './helpers/faults.ts';
import { DEFAULT_SCENARIO, getJson, postScenario } from './helpers/http.ts';
import { startStack } from './helpers/stack.ts';

const stack = await startStack({ web: false });
t.teardown(() => stack.stop());

interface Poison {
  name: string;
  /** SQL expression of the new inputs, from the stored `inputs`. */
  inputs: string;
  code: string;
  message: RegExp;
}

const poisons: Poison[] = [
  {
    name: 'a power curve whose wind speeds go backwards',
    inputs: `jsonb_set(inputs::jsonb, '{wind,turbine,power_curve}', '[[3, 0], [12, 3000], [8, 1500], [25, 3000]]')`,
    code: 'invalid_power_curve',
    message: /wind speeds must increase/,
  },
  {
    name: 'a power curve that never produces power',
    inputs: `jsonb_set(inputs::jsonb, '{wind,turbine,power_curve}', '[[3, 0], [25, 0]]')`,
    code: 'invalid_power_curve',
    message: /never produces power/,
  },
  {
    name: 'a SAM CSV weather file that does not parse',
    inputs: `jsonb_set(inputs::jsonb, '{weather}', '{"source": "sam_csv", "text": "not,a\\nweather,file"}')`,
    code: 'invalid_weather',
    message: /line \d+/,
  },
  {
    // On PVWatts v5, whose chain turns these into NaN (v8 takes negative irradiance as night and
    // these winds as above cut-out: a finite, empty year).
    name: 'supplied weather with NaN-producing values',
    inputs: `jsonb_set(jsonb_set(inputs::jsonb, '{solar,model}', '"pvwatts_v5"'), '{weather}', jsonb_build_object('source', 'supplied', 'ghi', to_jsonb(array_fill(-1e308::float8, ARRAY[8760])), 'dni', to_jsonb(array_fill(1e308::float8, ARRAY[8760])), 'dhi', to_jsonb(array_fill(0::float8, ARRAY[8760])), 'temp_air_c', to_jsonb(array_fill(1e308::float8, ARRAY[8760])), 'wind_speed_ms', to_jsonb(array_fill(1e308::float8, ARRAY[8760])), 'wind_height_m', 10))`,
    code: 'non_finite_result',
    message: /not a finite number/,
  },
  {
    name: 'inputs missing a whole section (the engine throws a TypeError)',
    inputs: `inputs::jsonb #- '{wind,turbine}'`,
    code: 'engine_exception',
    message: /turbine|undefined|reading/,
  },
];

t.test('poisoned scenarios fail once with a readable error; the worker goes on', async (t) => {
  // The poisoned inputs are stored as no client could send them, so a read of them does not match the
  // documented schema: this test's web does not check its answers (test/helpers/web.checked.ts).
  const web = await stack.startWeb({ HOURGLASS_TEST_UNCHECKED_RESPONSES: '1' });
  const create = async (name: string) =>
    (await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name })).json.id as string;

  // Interleaved: poison, valid, poison, valid … so each poison is followed by work to go on with.
  const poisoned: Array<Poison & { id: string }> = [];
  const valid: string[] = [];
  for (const p of poisons) {
    const id = await create(p.name);
    await stack.pool.query(`UPDATE scenarios SET inputs = (${p.inputs})::json WHERE id = $1`, [id]);
    poisoned.push({ ...p, id });
    valid.push(await create(`valid after ${p.name}`));
  }
  const streams = poisoned.map((p) => stack.follow(`/api/scenarios/${p.id}/events`));

  const worker = await stack.startWorker();
  await waitForAllFinished(stack.pool, 120_000);

  for (const [i, p] of poisoned.entries()) {
    const shown = await getJson(`${web.baseUrl}/api/scenarios/${p.id}`);
    t.equal(shown.json.status, 'failed', `${p.name}: failed`);
    t.equal(shown.json.attempt, 1, `${p.name}: on attempt 1`);
    const error = shown.json.error as { code: string; message: string };
    t.equal(error?.code, p.code, `${p.name}: error code`);
    t.match(error?.message, p.message, `${p.name}: a readable message (${error?.message})`);
    t.ok(error.message.length < 500 && !/\n\s+at /.test(error.message), `${p.name}: no stack trace`);

    const events = await eventLog(stack.pool, p.id);
    t.same(runningAttempts(events), [1], `${p.name}: ran once, no retry`);
    t.notOk(
      events.some((e) => e.name === 'queued' && e.seq > 1),
      `${p.name}: no queued {retry} event`,
    );
    t.match(
      await jobOf(stack.pool, p.id),
      { state: 'completed', retry_count: 0 },
      `${p.name}: the job is done, not retried`,
    );

    const end = await streams[i].until((e) => e.event === 'failed' || e.event === 'succeeded');
    t.same(end.data, { error }, `${p.name}: the stream ends with failed {error}`);
    const statements = await getJson(`${web.baseUrl}/api/scenarios/${p.id}/statements`);
    t.equal(statements.status, 409, `${p.name}: statements are a 409`);
  }
  t.same(await scenarioProblems(stack.pool, { ids: poisoned.map((p) => p.id), expected: 'failed' }), []);
  t.same(await scenarioProblems(stack.pool, { ids: valid }), [], 'every valid scenario succeeded');
  t.ok(alive(worker), 'the same worker process did all of it');
  t.equal(worker.logs.filter((l) => l.msg === 'worker started').length, 1);
});
