// The web and the worker start while their Postgres is down: each waits, logging every attempt
// with a growing delay, and neither exits; once Postgres is up they carry on by themselves (the
// web listens and serves, the worker calculates). A malformed DATABASE_URL, a configuration error,
// exits 1 at once. This test runs a Postgres of its own (persistent data in a temp folder), of the
// suite's server's major version (helpers/own-postgres), so it can start it late.
import type pg from 'pg';
import t from 'tap';
import { quietPool } from './helpers/db.ts';
import { alive, killAll, scenarioProblems, waitForAllFinished } from './helpers/faults.ts';
import { DEFAULT_SCENARIO, getJson, postScenario } from './helpers/http.ts';
import { restartableMigratedPostgres } from './helpers/own-postgres.ts';
import { launchWeb, launchWorker, type Proc, webListening, workerStarted } from './helpers/processes.ts';

// Made and migrated once, then stopped: the processes start against a server that is not there.
const postgres = await restartableMigratedPostgres('hourglass-pg-cold-');
t.comment(`the test's own Postgres: ${postgres.kind}`);
const { url } = postgres;
await postgres.stop();

const procs: Proc[] = [];
let pool: pg.Pool | undefined;
t.teardown(async () => {
  await killAll(procs);
  await pool?.end().catch(() => {});
  await postgres.remove();
});

const retries = (p: Proc) => p.logs.filter((l) => /the database is not available yet; retrying/.test(String(l.msg)));

t.test('started during an outage, the web and the worker wait, then serve and calculate', async (t) => {
  // A 1 s cap keeps the test short; the doubling from 250 ms is still visible below it.
  const env = { DB_RETRY_MAX_DELAY_MS: '1000' };
  const web = launchWeb(url, env);
  const worker = launchWorker(url, env);
  procs.push(web, worker);

  // Three failed attempts each (0.25 + 0.5 + 1 s of waiting at least), and both still running.
  await web.waitForLog(() => retries(web).length >= 3, 30_000);
  await worker.waitForLog(() => retries(worker).length >= 3, 30_000);
  t.ok(alive(web) && alive(worker), 'neither process exited during the outage');
  for (const [name, proc] of [
    ['web', web],
    ['worker', worker],
  ] as const) {
    const delays = retries(proc).map((l) => l.retryInMs);
    t.same(delays.slice(0, 3), [250, 500, 1000], `${name}: each attempt logged, the delay doubling to its cap`);
    t.same(
      retries(proc).map((l) => l.attempt),
      delays.map((_, i) => i + 1),
      `${name}: attempts numbered`,
    );
    t.equal(proc.logs.filter((l) => l.level === 60).length, 0, `${name}: nothing fatal logged`);
  }

  await postgres.start();
  pool = quietPool(url, { max: 2 });

  const serving = await webListening(web, 30_000).catch((err: Error) => {
    throw new Error(`${err.message}; web: ${web.output(20)}`);
  });
  await worker.waitForLog(workerStarted, 30_000).catch((err: Error) => {
    throw new Error(`${err.message}; worker: ${worker.output(20)}`);
  });
  t.equal((await getJson(`${serving.baseUrl}/readyz`)).status, 200, '/readyz: 200 once Postgres is up');

  const created = await postScenario(serving.baseUrl, { ...DEFAULT_SCENARIO, name: 'after a cold start' });
  t.equal(created.status, 201, 'the web creates a scenario');
  const id = created.json.id as string;
  await waitForAllFinished(pool, 120_000, [id]);
  t.same(await scenarioProblems(pool, { ids: [id] }), [], 'the worker calculated it: succeeded, one result');
  const fetched = await getJson(`${serving.baseUrl}/api/scenarios/${id}`);
  t.equal(fetched.json.status, 'succeeded', 'and the web serves it');
  t.ok(alive(web) && alive(worker), 'neither process restarted');
});

t.test('a malformed DATABASE_URL is a configuration error: exit 1 at once, no waiting', async (t) => {
  for (const [what, bad] of [
    ['not a URL', 'postgres//no-scheme-colon'],
    ['another scheme', 'mysql://root@127.0.0.1:3306/hourglass'],
  ] as const) {
    for (const launch of [launchWeb, launchWorker]) {
      const proc = launch(bad);
      procs.push(proc);
      const code = await proc.exited;
      t.equal(code, 1, `${what}: exits 1`);
      t.match(proc.output(), /configuration error: DATABASE_URL/, `${what}: says why`);
      t.equal(retries(proc).length, 0, `${what}: no retry`);
    }
  }
});

t.test('a rejected password is a configuration error too: exit 1 after one attempt', async (t) => {
  const wrong = new URL(url);
  wrong.password = 'not-the-password';
  for (const launch of [launchWeb, launchWorker]) {
    const proc = launch(wrong.toString());
    procs.push(proc);
    t.equal(await proc.exited, 1, 'exits 1');
    t.equal(retries(proc).length, 0, 'no retry');
    t.match(proc.output(20), /password authentication failed/, 'the fatal line says why');
  }
});
