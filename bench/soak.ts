// The soak (not part of `npm test`): `node bench/soak.ts [--minutes=10]`. A Postgres of its own
// (embedded, 127.0.0.1 only), one web with three workspaces at the default quotas, one worker;
// three clients send mixed traffic for the given minutes (creates, sweeps, optimizations, deletes,
// event streams followed to their end, reads), while the worker is killed (SIGKILL) a third of the
// way in and Postgres restarted two thirds in. Then the queue drains, and it checks: every
// accepted create's work finished exactly once (one result, one `succeeded`, gapless events),
// deleted resources left no rows, no orphan rows or jobs, every list shows only its workspace's
// rows, and the worker's peak RSS stayed within 512 MB. Prints the figures; exits 1 on a failed check.
import { randomInt } from 'node:crypto';
import { restartableMigratedPostgres } from '../test/helpers/own-postgres.ts';
import { type Proc, startWeb, startWorker, type Web } from '../test/helpers/processes.ts';
import { waitUntil } from '../test/helpers/wait.ts';
import { peakRssMb } from './procs.ts';

const minutes = Number(process.argv.find((a) => a.startsWith('--minutes='))?.slice(10) ?? 10);
const WORKSPACES = ['north', 'south', 'east'] as const;
type Workspace = (typeof WORKSPACES)[number];
const KEYS: Record<Workspace, string> = { north: 'soak-north-4e1a', south: 'soak-south-9b27', east: 'soak-east-03cd' };
const site = { latitude: 35.2, longitude: -101.8 };
type Kind = 'scenarios' | 'sweeps' | 'optimizations';

interface Created {
  kind: Kind;
  id: string;
  deleted: boolean;
}
const created: Record<Workspace, Created[]> = { north: [], south: [], east: [] };
const counts = { requests: 0, accepted: 0, refused429: 0, streams: 0, deletes: 0, errors: 0, unavailable: 0 };

const pg = await restartableMigratedPostgres('hourglass-soak-');
let web: Web | undefined;
let worker: Proc | undefined;
let peakMb = 0;
const memory = setInterval(() => {
  // A killed worker's /proc entry is gone until the next one starts.
  try {
    if (worker?.child.pid) peakMb = Math.max(peakMb, peakRssMb(worker.child.pid) || 0);
  } catch {}
}, 1000);

async function call(ws: Workspace, method: string, path: string, body?: unknown) {
  counts.requests++;
  const res = await fetch(`${web?.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEYS[ws]}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status === 429) counts.refused429++;
  if (res.status === 503) counts.unavailable++;
  return {
    status: res.status,
    json: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : {},
  };
}

const BODIES: Record<Kind, () => unknown> = {
  scenarios: () => ({ name: 'soak single', site: { ...site, latitude: 30 + randomInt(10) } }),
  sweeps: () => ({
    name: 'soak sweep',
    base: { site },
    vary: [{ path: '/market/ppa_price_per_mwh', from: 30, to: 30 + randomInt(4, 16), step: 1 }],
  }),
  optimizations: () => ({
    name: 'soak optimization',
    base: { site },
    variables: [{ path: '/solar/capacity_mw_dc', min: 0, max: 200, step: 25 }],
    objective: { maximize: 'equity_npv' },
    max_evaluations: 6,
  }),
};

async function step(ws: Workspace): Promise<void> {
  const mine = created[ws].filter((c) => !c.deleted);
  const pick = mine[randomInt(Math.max(1, mine.length))];
  const r = randomInt(100);
  if (r < 35) {
    const kind: Kind = r < 20 ? 'scenarios' : r < 30 ? 'sweeps' : 'optimizations';
    const res = await call(ws, 'POST', `/api/${kind}`, BODIES[kind]());
    if (res.status === 201) {
      counts.accepted++;
      created[ws].push({ kind, id: res.json.id, deleted: false });
    }
  } else if (r < 42 && pick) {
    const res = await call(ws, 'DELETE', `/api/${pick.kind}/${pick.id}`);
    // A variant's own delete is refused (409); a resource is deleted with everything of it.
    if (res.status === 204) {
      pick.deleted = true;
      counts.deletes++;
    }
  } else if (r < 55 && pick) {
    counts.streams++;
    counts.requests++;
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), 20_000);
    await fetch(`${web?.baseUrl}/api/${pick.kind}/${pick.id}/events`, {
      headers: { authorization: `Bearer ${KEYS[ws]}` },
      signal: ac.signal,
    })
      .then((res) => res.text())
      .catch(() => {})
      .finally(() => clearTimeout(timer));
  } else {
    const path =
      pick && r < 80
        ? `/api/${pick.kind}/${pick.id}`
        : `/api/${['scenarios', 'sweeps', 'optimizations'][r % 3]}?limit=20`;
    await call(ws, 'GET', path);
  }
}

async function client(ws: Workspace, until: number): Promise<void> {
  while (Date.now() < until) {
    // Connection errors while Postgres restarts are expected; each is counted.
    await step(ws).catch(() => counts.errors++);
    await new Promise((r) => setTimeout(r, 60 + randomInt(200)));
  }
}

const faults: string[] = [];
async function run(): Promise<void> {
  const env = { API_KEYS: WORKSPACES.map((w) => `${w}:${KEYS[w]}`).join(','), QUOTA_REQUESTS_PER_MINUTE: '1200' };
  web = await startWeb(pg.url, { ...env, QUOTA_QUEUED_VARIANTS: '20000' });
  worker = await startWorker(pg.url, { SUPERVISE_INTERVAL_SECONDS: '2', JOB_HEARTBEAT_SECONDS: '10' });
  const t0 = Date.now();
  const until = t0 + minutes * 60_000;
  const clients = WORKSPACES.map((w) => client(w, until));
  await new Promise((r) => setTimeout(r, (minutes * 60_000) / 3));
  worker.child.kill('SIGKILL');
  await worker.exited;
  faults.push(`worker killed (SIGKILL) at ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  worker = await startWorker(pg.url, { SUPERVISE_INTERVAL_SECONDS: '2' });
  await new Promise((r) => setTimeout(r, (minutes * 60_000) / 3));
  await pg.stop();
  faults.push(`Postgres stopped at ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  await new Promise((r) => setTimeout(r, 3000));
  await pg.start();
  faults.push(`Postgres started again at ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  await Promise.all(clients);
}

async function check(): Promise<string[]> {
  const failures: string[] = [];
  const { default: pgLib } = await import('pg');
  const pool = new pgLib.Pool({ connectionString: pg.url, max: 2 });
  try {
    await waitUntil(
      async () => {
        const { rows } = await pool.query(
          `SELECT count(*)::int AS n FROM scenarios WHERE status IN ('queued', 'running')`,
        );
        const { rows: o } = await pool.query(`SELECT count(*)::int AS n FROM optimizations WHERE finished_at IS NULL`);
        return rows[0].n === 0 && o[0].n === 0;
      },
      { timeoutMs: 600_000, everyMs: 1000, what: 'the queue to drain' },
    );
    const { rows: bad } = await pool.query(`
      SELECT s.id, s.status,
        (SELECT count(*) FROM scenario_results r WHERE r.scenario_id = s.id)::int AS results,
        (SELECT count(*) FROM scenario_events e WHERE e.scenario_id = s.id AND e.name IN ('succeeded', 'failed', 'cancelled'))::int AS ends,
        (SELECT count(*) = max(seq) FROM scenario_events e WHERE e.scenario_id = s.id) AS gapless
      FROM scenarios s`);
    const wrong = bad.filter(
      (r) => !(r.ends === 1 && r.gapless && (r.status === 'succeeded' ? r.results === 1 : r.results === 0)),
    );
    if (wrong.length)
      failures.push(`${wrong.length} scenarios not finished exactly once: ${JSON.stringify(wrong.slice(0, 3))}`);
    const notSucceeded = bad.filter((r) => r.status !== 'succeeded');
    if (notSucceeded.length)
      failures.push(`${notSucceeded.length} scenarios did not succeed: ${JSON.stringify(notSucceeded.slice(0, 3))}`);
    const { rows: orphans } = await pool.query(`SELECT
      (SELECT count(*) FROM scenario_events e WHERE NOT EXISTS (SELECT 1 FROM scenarios s WHERE s.id = e.scenario_id))::int AS events,
      (SELECT count(*) FROM scenario_results r WHERE NOT EXISTS (SELECT 1 FROM scenarios s WHERE s.id = r.scenario_id))::int AS results,
      (SELECT count(*) FROM scenarios s WHERE s.sweep_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sweeps w WHERE w.id = s.sweep_id))::int AS variants,
      (SELECT count(*) FROM scenarios s WHERE s.optimization_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM optimizations o WHERE o.id = s.optimization_id))::int AS evaluations,
      (SELECT count(*) FROM pgboss.job j WHERE j.name = 'calculate' AND j.state IN ('created', 'retry', 'active'))::int AS waiting_jobs`);
    if (Object.values(orphans[0]).some((n) => n !== 0)) failures.push(`orphans: ${JSON.stringify(orphans[0])}`);
    for (const ws of WORKSPACES) {
      for (const c of created[ws]) {
        const res = await call(ws, 'GET', `/api/${c.kind}/${c.id}`);
        if (c.deleted !== (res.status === 404))
          failures.push(`${ws} ${c.kind} ${c.id}: ${res.status}, deleted ${c.deleted}`);
        if (!c.deleted && c.kind !== 'scenarios' && !res.json.finished_at)
          failures.push(`${c.kind} ${c.id} not finished`);
      }
      const { rows } = await pool.query(
        `SELECT id FROM scenarios WHERE workspace = $1 AND sweep_id IS NULL AND optimization_id IS NULL`,
        [ws],
      );
      const own = new Set(created[ws].filter((c) => c.kind === 'scenarios' && !c.deleted).map((c) => c.id));
      if (rows.length !== own.size || rows.some((r) => !own.has(r.id)))
        failures.push(`${ws}: its scenarios in the database differ from what it created`);
      const listed = (await call(ws, 'GET', '/api/scenarios')).json.items as Array<{ id: string }>;
      const others = listed.filter((s) => !own.has(s.id) && !created[ws].some((c) => c.id === s.id));
      const variantsOfOwn = await pool.query(
        `SELECT count(*)::int AS n FROM scenarios WHERE id = ANY($1) AND workspace <> $2`,
        [listed.map((s) => s.id), ws],
      );
      if (variantsOfOwn.rows[0].n > 0)
        failures.push(
          `${ws}: its list shows ${variantsOfOwn.rows[0].n} rows of another workspace (${others.length} unknown)`,
        );
    }
  } finally {
    await pool.end();
  }
  if (peakMb > 512) failures.push(`worker peak RSS ${peakMb.toFixed(0)} MB > 512 MB`);
  return failures;
}

let failures: string[] = [];
const started = Date.now();
try {
  await run();
  failures = await check();
} catch (err) {
  failures.push(`the soak stopped: ${(err as Error).message}`);
} finally {
  clearInterval(memory);
  await worker?.stop().catch(() => {});
  await web?.stop().catch(() => {});
  await pg.remove().catch(() => {});
}
const finished = WORKSPACES.map(
  (w) => `${w} ${created[w].length} created (${created[w].filter((c) => c.deleted).length} deleted)`,
);
console.log(
  JSON.stringify(
    {
      minutes,
      seconds: Math.round((Date.now() - started) / 1000),
      ...counts,
      faults,
      workspaces: finished,
      worker_peak_rss_mb: Math.round(peakMb),
      failures,
    },
    null,
    2,
  ),
);
process.exit(failures.length ? 1 : 0);
