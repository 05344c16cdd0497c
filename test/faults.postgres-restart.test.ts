// Postgres stops and starts again while the web and worker run, in the middle of a calculation.
// During the outage writes get a fast 503 problem and /readyz says 503; afterwards /readyz is 200
// again, the listening connection and pg-boss reconnect by themselves, every scenario created
// before the outage succeeds, and neither process restarts. This test runs its own embedded
// Postgres (persistent data in a temp folder), whatever DATABASE_URL says, so it can stop it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import t from 'tap';
import { type EmbeddedServer, ensureDatabase, startEmbeddedPostgres } from '../scripts/embedded-postgres.ts';
import { loadConfig } from '../shared/config.ts';
import { migrateAll } from '../shared/migrate.ts';
import { alive, killAll, scenarioProblems, waitForAllFinished, waitForEvent } from './helpers/faults.ts';
import { DEFAULT_SCENARIO, getJson, postScenario, waitFor } from './helpers/http.ts';
import { type Proc, startWeb, startWorker } from './helpers/processes.ts';
import { type Follower, follow } from './helpers/sse.ts';

const HEARTBEAT = { JOB_HEARTBEAT_SECONDS: '10', SUPERVISE_INTERVAL_SECONDS: '1' };

const dataDir = mkdtempSync(join(tmpdir(), 'hourglass-pg-restart-'));
let server: EmbeddedServer = await startEmbeddedPostgres({ dataDir, persistent: true });
const port = server.port;
await ensureDatabase(server.adminUrl, 'hourglass');
const url = server.urlFor('hourglass');
await migrateAll(loadConfig({}), url);
const pool = new pg.Pool({ connectionString: url, max: 2 });
pool.on('error', () => {});

const procs: Proc[] = [];
const followers: Follower[] = [];
t.teardown(async () => {
  for (const f of followers) f.close();
  await killAll(procs);
  await pool.end().catch(() => {});
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

t.test('a Postgres restart mid-calculation: 503s during it, everything recovers by itself', async (t) => {
  const web = await startWeb(url, HEARTBEAT);
  const worker = await startWorker(url, { ...HEARTBEAT, ENGINE_TEST_DELAY_MS: '3000' });
  procs.push(web, worker);

  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    ids.push(
      (await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: `before the outage ${i}` })).json.id as string,
    );
  }
  const streams = ids.map((id) => follow(`${web.baseUrl}/api/scenarios/${id}/events`));
  followers.push(...streams);
  await Promise.all(streams.map((s) => s.until((e) => e.event === 'queued')));
  await waitForEvent(pool, ids[0], (e) => e.name === 'progress', 30_000, 'progress');

  await server.stop();

  const t0 = Date.now();
  const refused = await postScenario(
    web.baseUrl,
    { ...DEFAULT_SCENARIO, name: 'during the outage' },
    {
      'idempotency-key': 'during-the-outage',
    },
  );
  const took = Date.now() - t0;
  t.equal(refused.status, 503, 'a write during the outage is a 503');
  t.match(refused.headers.get('content-type'), /^application\/problem\+json/);
  t.match(refused.json, { status: 503, title: String });
  t.ok(took < 5_000, `answered fast, not hung (${took} ms)`);
  t.equal((await getJson(`${web.baseUrl}/api/scenarios/${ids[0]}`)).status, 503, 'a read is a 503 too');
  t.equal((await getJson(`${web.baseUrl}/readyz`)).status, 503, '/readyz: 503');
  t.equal((await getJson(`${web.baseUrl}/healthz`)).status, 200, '/healthz: still 200 (the process is alive)');

  server = await startEmbeddedPostgres({ dataDir, port, persistent: true });

  await waitFor(async () => (await getJson(`${web.baseUrl}/readyz`)).status === 200, 30_000, '/readyz 200');
  t.pass('/readyz: 200 again');
  const listening = await waitFor(
    async () =>
      (
        await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'hourglass-web-listen'`,
        )
      ).rows[0].n === 1,
    30_000,
    'the listening connection to come back',
  );
  t.ok(listening, 'the web listens again, on one connection');

  // The client retries its refused write with the same key: created once.
  const retried = await postScenario(
    web.baseUrl,
    { ...DEFAULT_SCENARIO, name: 'during the outage' },
    {
      'idempotency-key': 'during-the-outage',
    },
  );
  t.equal(retried.status, 201, 'the retried write succeeds');
  ids.push(retried.json.id as string);
  const after = follow(`${web.baseUrl}/api/scenarios/${retried.json.id}/events`);
  followers.push(after);

  await waitForAllFinished(pool, 120_000);
  t.same(await scenarioProblems(pool, { ids }), [], 'every scenario succeeded, one result each, gapless events');
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM scenarios');
  t.equal(rows[0].n, 5, 'the refused write created nothing; its retry created one');

  for (const [i, s] of [...streams, after].entries()) {
    const end = await s.until((e) => e.event === 'succeeded', 30_000);
    t.same(
      s.events.map((e) => e.id),
      Array.from({ length: end.id }, (_, k) => k + 1),
      `stream ${i}: every event once, across the outage`,
    );
  }
  t.ok(alive(web) && alive(worker), 'neither process exited');
  t.equal(web.child.pid, procs[0].child.pid);
});
