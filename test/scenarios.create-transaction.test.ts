// The create is one transaction: a scenario without its job, or a job without its scenario,
// cannot exist. Failures are injected with triggers inside this test's own database.
import t from 'tap';
import { DEFAULT_SCENARIO, postScenario } from './helpers/http.ts';
import { startStack } from './helpers/stack.ts';

const stack = await startStack();
const { web } = stack;
t.teardown(() => stack.stop());

async function counts() {
  const { rows } = await stack.pool.query<{ scenarios: number; events: number; jobs: number }>(`
    SELECT (SELECT count(*)::int FROM scenarios) AS scenarios,
           (SELECT count(*)::int FROM scenario_events) AS events,
           (SELECT count(*)::int FROM pgboss.job WHERE name = 'calculate') AS jobs`);
  return rows[0];
}

t.test('when the job insert fails, no scenario row remains', async (t) => {
  await stack.pool.query(`
    CREATE FUNCTION fail_job_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'injected: job insert refused'; END $$;
    CREATE TRIGGER fail_job_insert BEFORE INSERT ON pgboss.job FOR EACH ROW EXECUTE FUNCTION fail_job_insert();`);
  t.teardown(() => stack.pool.query('DROP TRIGGER fail_job_insert ON pgboss.job; DROP FUNCTION fail_job_insert()'));
  const res = await postScenario(web.baseUrl, DEFAULT_SCENARIO);
  t.equal(res.status, 500);
  t.match(res.headers.get('content-type'), /^application\/problem\+json/);
  t.notMatch(JSON.stringify(res.json), /injected|pgboss|INSERT/, 'no SQL or internals in the answer');
  t.same(await counts(), { scenarios: 0, events: 0, jobs: 0 });
});

t.test('when pg-boss inserts no job (and says so without an error), no scenario commits', async (t) => {
  // The row is skipped silently, as ON CONFLICT DO NOTHING would: COMMIT is already on its way
  // behind the job insert, so only the job check in the same transaction can stop it.
  await stack.pool.query(`
    CREATE FUNCTION skip_job_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
    CREATE TRIGGER skip_job_insert BEFORE INSERT ON pgboss.job FOR EACH ROW EXECUTE FUNCTION skip_job_insert();`);
  t.teardown(() => stack.pool.query('DROP TRIGGER skip_job_insert ON pgboss.job; DROP FUNCTION skip_job_insert()'));
  const res = await postScenario(web.baseUrl, DEFAULT_SCENARIO);
  t.equal(res.status, 500);
  t.notMatch(JSON.stringify(res.json), /division|pgboss/, 'no SQL or internals in the answer');
  t.same(await counts(), { scenarios: 0, events: 0, jobs: 0 });
});

t.test('when the scenario fails at commit (after the job was inserted), no job remains', async (t) => {
  // A deferred constraint trigger fires at COMMIT, i.e. after boss.send() inserted the job.
  await stack.pool.query(`
    CREATE FUNCTION fail_scenario_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'injected: scenario refused at commit'; END $$;
    CREATE CONSTRAINT TRIGGER fail_scenario_commit AFTER INSERT ON scenarios
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fail_scenario_commit();`);
  t.teardown(() =>
    stack.pool.query('DROP TRIGGER fail_scenario_commit ON scenarios; DROP FUNCTION fail_scenario_commit()'),
  );
  const res = await postScenario(web.baseUrl, DEFAULT_SCENARIO);
  t.equal(res.status, 500);
  t.same(await counts(), { scenarios: 0, events: 0, jobs: 0 });
});

t.test(
  'with nothing injected, one create makes exactly one scenario, one queued event and one job with the same id',
  async (t) => {
    const res = await postScenario(web.baseUrl, DEFAULT_SCENARIO);
    t.equal(res.status, 201);
    t.same(await counts(), { scenarios: 1, events: 1, jobs: 1 });
    const { rows } = await stack.pool.query(
      `SELECT id::text, state, data->>'scenario_id' AS scenario_id FROM pgboss.job WHERE name = 'calculate'`,
    );
    t.equal(rows[0].id, res.json.id, 'job id = scenario id');
    t.equal(rows[0].scenario_id, res.json.id);
  },
);

t.test('Idempotency-Key: a repeat returns the first scenario and creates nothing; another body is a 409', async (t) => {
  const before = await counts();
  const key = `key-${Date.now()}`;
  const body = { ...DEFAULT_SCENARIO, name: 'idempotent' };
  const first = await postScenario(web.baseUrl, body, { 'idempotency-key': key });
  t.equal(first.status, 201);
  const repeats = await Promise.all(
    Array.from({ length: 5 }, () => postScenario(web.baseUrl, body, { 'idempotency-key': key })),
  );
  for (const r of repeats) {
    t.equal(r.status, 201);
    t.equal(r.json.id, first.json.id);
    t.equal(r.headers.get('idempotent-replayed'), 'true');
  }
  const after = await counts();
  t.equal(after.scenarios, before.scenarios + 1);
  t.equal(after.jobs, before.jobs + 1);
  const other = await postScenario(web.baseUrl, { ...body, name: 'different' }, { 'idempotency-key': key });
  t.equal(other.status, 409);
  t.match(other.headers.get('content-type'), /^application\/problem\+json/);
});

t.test('concurrent creates with one new Idempotency-Key make one scenario', async (t) => {
  const before = await counts();
  const key = `race-${Date.now()}`;
  const results = await Promise.all(
    Array.from({ length: 8 }, () => postScenario(web.baseUrl, DEFAULT_SCENARIO, { 'idempotency-key': key })),
  );
  t.ok(results.every((r) => r.status === 201));
  t.equal(new Set(results.map((r) => r.json.id)).size, 1, 'one id for all');
  const after = await counts();
  t.equal(after.scenarios, before.scenarios + 1);
  t.equal(after.jobs, before.jobs + 1);
});
