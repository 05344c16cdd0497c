// What deleting gives back on disk: a database of its own on DATABASE_URL's server, the real web
// and worker; for each workload (single scenarios, a 1,000-variant sweep, an optimization) its
// size once finished, after DELETE and VACUUM (space the tables reuse: the same workload again
// grows nothing), and after VACUUM FULL (space the files give back). Prints one table.
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/deletion.disk.ts
import pg from 'pg';
import { loadConfig } from '../shared/config.ts';
import { migrateAll } from '../shared/migrate.ts';
import { withDatabase } from '../test/helpers/db.ts';
import { DEFAULT_SCENARIO, postJson, postScenario } from '../test/helpers/http.ts';
import { startStack } from '../test/helpers/stack.ts';
import { waitUntil } from '../test/helpers/wait.ts';

const admin = process.env.DATABASE_URL;
if (!admin) throw new Error('DATABASE_URL: an admin URL of a Postgres server');
const name = `hourglass_disk_${process.pid}`;
const adminClient = new pg.Client({ connectionString: admin });
await adminClient.connect();
await adminClient.query(`CREATE DATABASE ${name}`);
const url = withDatabase(admin, name);
await migrateAll(loadConfig({ DATABASE_URL: url }), url);
const stack = await startStack({ databaseUrl: url, workers: [{}] });
const { web, pool } = stack;

const RELATIONS = `('scenarios', 'scenario_events', 'scenario_results', 'sweeps', 'sweep_events', 'optimizations', 'optimization_events')`;
/** Bytes on disk of our tables (with TOAST and indexes) and pg-boss's jobs. */
async function onDisk(): Promise<number> {
  const { rows } = await pool.query<{ bytes: string }>(
    `SELECT (SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE n.nspname = 'public' AND c.relname IN ${RELATIONS})
          + (SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE n.nspname = 'pgboss' AND c.relkind = 'r' AND c.relname LIKE 'j%') AS bytes`,
  );
  return Number(rows[0].bytes);
}
const vacuum = async (full: boolean) => {
  for (const r of [
    'scenarios',
    'scenario_events',
    'scenario_results',
    'sweeps',
    'sweep_events',
    'optimizations',
    'optimization_events',
  ]) {
    await pool.query(`VACUUM ${full ? 'FULL ' : ''}${r}`);
  }
  const { rows } = await pool.query<{ t: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS t FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'pgboss' AND c.relkind = 'r' AND c.relname LIKE 'j%'`,
  );
  for (const { t } of rows) await pool.query(`VACUUM ${full ? 'FULL ' : ''}${t}`);
};
const finished = (table: string, id: string) =>
  waitUntil(
    async () => (await pool.query(`SELECT finished_at FROM ${table} WHERE id = $1`, [id])).rows[0]?.finished_at,
    {
      timeoutMs: 600_000,
      what: `${table} ${id}`,
    },
  );

interface Workload {
  what: string;
  count: number;
  create: () => Promise<{ ids: string[]; delete: string[] }>;
}
const site = DEFAULT_SCENARIO.site;
const WORKLOADS: Workload[] = [
  {
    what: 'single scenarios (hourly data kept)',
    count: 50,
    async create() {
      const ids = await Promise.all(
        Array.from(
          { length: 50 },
          async (_, i) => (await postScenario(web.baseUrl, { name: `disk ${i}`, site })).json.id as string,
        ),
      );
      for (const id of ids) await finished('scenarios', id);
      return { ids, delete: ids.map((id) => `/api/scenarios/${id}`) };
    },
  },
  {
    what: 'a 1,000-variant sweep (no hourly data)',
    count: 1000,
    async create() {
      const id = (
        await postJson(`${web.baseUrl}/api/sweeps`, {
          name: 'disk sweep',
          base: { site },
          vary: [
            { path: '/solar/capacity_mw_dc', from: 10, to: 400, step: 10 },
            {
              path: '/grid/export_limit_mw',
              values: [
                100, 120, 140, 160, 180, 200, 220, 240, 260, 280, 300, 320, 340, 360, 380, 400, 420, 440, 460, 480, 500,
                520, 540, 560, 580,
              ],
            },
          ],
        })
      ).json.id as string;
      await finished('sweeps', id);
      return { ids: [id], delete: [`/api/sweeps/${id}`] };
    },
  },
  {
    what: 'an optimization (≈90 evaluations)',
    count: 1,
    async create() {
      const id = (
        await postJson(`${web.baseUrl}/api/optimizations`, {
          name: 'disk optimization',
          base: { site, grid: { export_limit_mw: 150 } },
          variables: [
            { path: '/solar/capacity_mw_dc', min: 0, max: 300, step: 10 },
            { path: '/wind/capacity_mw', min: 0, max: 300, step: 10 },
          ],
          objective: { maximize: 'equity_npv' },
          max_evaluations: 96,
        })
      ).json.id as string;
      await finished('optimizations', id);
      return { ids: [id], delete: [`/api/optimizations/${id}`] };
    },
  },
];

const mb = (b: number) => `${(b / 1e6).toFixed(2)} MB`;
const lines = [
  '| Workload | Written (finished) | After DELETE + VACUUM: file size | The same workload again: growth | After VACUUM FULL: given back |',
  '|---|--:|--:|--:|--:|',
];
try {
  for (const w of WORKLOADS) {
    await vacuum(true);
    const empty = await onDisk();
    const first = await w.create();
    await vacuum(false);
    const written = (await onDisk()) - empty;
    for (const path of first.delete) {
      const status = (await fetch(`${web.baseUrl}${path}`, { method: 'DELETE' })).status;
      if (status !== 204) throw new Error(`DELETE ${path}: ${status}`);
    }
    await vacuum(false);
    const afterVacuum = await onDisk();
    const again = await w.create();
    await vacuum(false);
    const growth = (await onDisk()) - afterVacuum;
    for (const path of again.delete) await fetch(`${web.baseUrl}${path}`, { method: 'DELETE' });
    const beforeFull = await onDisk();
    await vacuum(true);
    const givenBack = beforeFull - (await onDisk());
    lines.push(
      `| ${w.what} | ${mb(written)} | ${mb(afterVacuum - empty)} over empty | ${mb(growth)} | ${mb(givenBack)} |`,
    );
    console.log(lines.at(-1));
  }
  // Interleaved, as in a live database: 50 scenarios deleted while 25 newer ones stay, so VACUUM
  // cannot cut the files' ends; the freed space is reused by the next 50.
  const single = WORKLOADS[0];
  await vacuum(true);
  const base = await onDisk();
  const doomed = await single.create();
  const kept = await single.create();
  await vacuum(false);
  const full = await onDisk();
  for (const path of doomed.delete) await fetch(`${web.baseUrl}${path}`, { method: 'DELETE' });
  await vacuum(false);
  const afterDelete = await onDisk();
  const next = await single.create();
  await vacuum(false);
  const reused = (await onDisk()) - afterDelete;
  lines.push(
    `| 50 scenarios deleted while 50 newer stay (interleaved) | ${mb(full - base)} for 100 | ${mb(afterDelete - base)} (the ends are in use) | ${mb(reused)} for the next 50 | — |`,
  );
  void kept;
  void next;
  console.log(`\n${lines.join('\n')}`);
} finally {
  await stack.stop();
  await adminClient.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await adminClient.end();
}
