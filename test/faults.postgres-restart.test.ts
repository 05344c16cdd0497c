// Postgres stops and starts again while the web and worker run, in the middle of a calculation;
// then it freezes (SIGSTOP), which looks to the web like a lost network.
// During the outage writes get a fast 503 problem and /readyz says 503; afterwards /readyz is 200
// again, the listening connection and pg-boss reconnect by themselves, every scenario created
// before the outage succeeds, and neither process restarts. This test runs a Postgres of its own
// (persistent data in a temp folder), of the suite's server's major version (helpers/own-postgres),
// so it can stop it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { alive, HEARTBEAT, scenarioProblems, waitForAllFinished, waitForEvent } from './helpers/faults.ts';
import { DEFAULT_SCENARIO, getJson, postScenario } from './helpers/http.ts';
import { restartableMigratedPostgres } from './helpers/own-postgres.ts';
import { slowEngine } from './helpers/processes.ts';
import { startStack, withProcessLogs } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const postgres = await restartableMigratedPostgres('hourglass-pg-restart-');
t.comment(`the test's own Postgres: ${postgres.kind}`);
const { url } = postgres;
const stack = await startStack({ databaseUrl: url, web: false });
const { pool } = stack;
t.teardown(async () => {
  await stack.stop();
  await postgres.remove();
});

t.test('a Postgres restart mid-calculation: 503s during it, everything recovers by itself', (t) =>
  withProcessLogs(t, stack, async () => {
    const web = await stack.startWeb(HEARTBEAT);
    const worker = await stack.startWorker(HEARTBEAT, slowEngine(3000));

    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push(
        (await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: `before the outage ${i}` })).json.id as string,
      );
    }
    const streams = ids.map((id) => stack.follow(`/api/scenarios/${id}/events`));
    await Promise.all(streams.map((s) => s.until((e) => e.event === 'queued')));
    await waitForEvent(pool, ids[0], (e) => e.name === 'progress', 30_000, 'progress');

    await postgres.stop();

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

    await postgres.start();

    await waitUntil(async () => (await getJson(`${web.baseUrl}/readyz`)).status === 200, {
      timeoutMs: 30_000,
      what: '/readyz 200',
    });
    t.pass('/readyz: 200 again');
    const listening = await waitUntil(
      async () =>
        (
          await pool.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'hourglass-web-listen'`,
          )
        ).rows[0].n === 1,
      { timeoutMs: 30_000, what: 'the listening connection to come back' },
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
    const after = stack.follow(`/api/scenarios/${retried.json.id}/events`);

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
    t.equal(web.child.pid, stack.procs[0].child.pid);
  }),
);

/** The postmaster (first line of postmaster.pid) and its children: the whole cluster, to freeze. */
function clusterPids(): number[] {
  const postmaster = Number(readFileSync(join(postgres.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces, so split after ')'.
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

/** Signals a process; one that has exited since the list was read (a backend closing, an autovacuum worker) needs none. */
function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

t.test('a frozen Postgres (SIGSTOP, like a lost network): 503s within the timeout, never a hang', (t) =>
  withProcessLogs(t, stack, async () => {
    // Queries give up 1 s after the statement timeout even when the server cannot answer.
    const web = await stack.startWeb({ STATEMENT_TIMEOUT_MS: '1000' });
    const id = (await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: 'before the freeze' })).json.id as string;
    // Several open connections in the pool, so requests meet a connection to a server that is frozen.
    await Promise.all(Array.from({ length: 8 }, () => getJson(`${web.baseUrl}/api/scenarios/${id}`)));
    const before = (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM scenarios')).rows[0].n;

    const pids = clusterPids();
    t.ok(pids.length > 3, `${pids.length} Postgres processes frozen`);
    for (const pid of pids) signal(pid, 'SIGSTOP');
    let frozen = true;
    t.teardown(() => {
      if (frozen) for (const pid of pids) signal(pid, 'SIGCONT');
    });
    /** A request the test gives up on after 15 s (status 0): a hang fails the test instead of stalling it. */
    const timed = async (what: string, path: string, init: RequestInit = {}) => {
      const t0 = Date.now();
      const status = await fetch(`${web.baseUrl}${path}`, { ...init, signal: AbortSignal.timeout(15_000) }).then(
        async (r) => {
          await r.arrayBuffer();
          return r.status;
        },
        () => 0,
      );
      return { what, status, ms: Date.now() - t0 };
    };
    const create = (i: number): RequestInit => ({
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `frozen-${i}` },
      body: JSON.stringify({ ...DEFAULT_SCENARIO, name: `frozen ${i}` }),
    });
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, (_, i) => timed(`POST ${i}`, '/api/scenarios', create(i))),
      ...Array.from({ length: 5 }, (_, i) => timed(`GET ${i}`, `/api/scenarios/${id}`)),
      timed('readyz', '/readyz'),
    ]);
    for (const a of answers) t.ok(a.status === 503 && a.ms < 8_000, `${a.what}: ${a.status} after ${a.ms} ms`);

    for (const pid of pids) signal(pid, 'SIGCONT');
    frozen = false;
    await waitUntil(async () => (await getJson(`${web.baseUrl}/readyz`)).status === 200, {
      timeoutMs: 30_000,
      what: '/readyz 200',
    });
    // The refused creates, repeated with their keys: one row per key, each with its job.
    for (let i = 0; i < 5; i++) {
      const again = await postScenario(
        web.baseUrl,
        { ...DEFAULT_SCENARIO, name: `frozen ${i}` },
        {
          'idempotency-key': `frozen-${i}`,
        },
      );
      t.equal(again.status, 201, `POST ${i} repeated: 201`);
    }
    const { rows } = await pool.query<{ n: number; orphans: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE j.id IS NULL)::int AS orphans
     FROM scenarios s LEFT JOIN pgboss.job j ON j.id = s.id AND j.name = 'calculate'`,
    );
    t.same(rows[0], { n: before + 5, orphans: 0 }, 'five new scenarios, none without its job');
    // Connections that gave up mid-query were closed, not lent out again: everything works.
    const after = await Promise.all(Array.from({ length: 12 }, () => getJson(`${web.baseUrl}/api/scenarios/${id}`)));
    t.same(
      after.map((r) => r.status),
      after.map(() => 200),
      'every request after the thaw succeeds',
    );
    t.ok(alive(web), 'the web never restarted');
  }),
);
