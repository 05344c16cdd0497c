// #14 a 512 MB dyno: the Procfile's processes (`npm run migrate`, `npm run web`, `npm run worker`,
// default settings) each inside a kernel memory cgroup of 512 MB without swap, as a standard dyno
// enforces it, under one burst of work: a latitude sweep (nothing reusable), a sweep over
// capacities and the export limit (one design, reused) and single scenarios with hourly data, all
// posted together. Peak resident memory of each process, kills, and whether every scenario
// succeeded on its first attempt. Where the machine has no memory cgroups, the same run with RSS
// sampled and a note that says so.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import type { Pool } from 'pg';
import { commandLine, type MemoryCgroup, memoryCgroup, processRss } from '../test/helpers/cgroup.ts';
import { QUOTAS_OFF } from '../test/helpers/processes.ts';
import type { Bench } from './context.ts';
import { startCommand } from './procs.ts';
import { sleep } from './stats.ts';

export interface DynoSizes {
  /** Variants of the latitude sweep. */
  latitude: number;
  /** Solar capacities × wind capacities × export limits of the reuse sweep. */
  solar: number[];
  wind: number[];
  limits: number[];
  singles: number;
}
export const DYNO_FULL: DynoSizes = {
  latitude: 401,
  solar: [50, 100, 150, 200, 250],
  wind: [0, 40, 80, 120, 160, 200],
  limits: [100, 120, 140, 160, 180, 200, 220, 240, 260, 280],
  singles: 10,
};
export const DYNO_QUICK: DynoSizes = {
  latitude: 40,
  solar: [50, 100],
  wind: [40, 80, 120],
  limits: [100, 150, 200],
  singles: 3,
};

/** A dyno size and the settings the sizing guide (docs/sizing.md) gives it; `--dyno=<MB>` picks one. */
export interface DynoProfile {
  mb: number;
  env: Record<string, string>;
}
export const DYNO_PROFILES: Record<string, DynoProfile> = {
  '512': { mb: 512, env: {} },
  '1024': { mb: 1024, env: { WORKER_CONCURRENCY: '2', ENGINE_CACHE_MB: '64' } },
  '2560': { mb: 2560, env: { WORKER_CONCURRENCY: '2', WORKER_PREFETCH: '1', ENGINE_CACHE_MB: '512' } },
};
const site = { latitude: 35.2, longitude: -101.8 };

/** A process type of the Procfile, in its own cgroup (or none), and the peak memory seen. */
interface Dyno {
  name: string;
  cgroup: MemoryCgroup | null;
  /** Peak VmHWM of the dyno's Node process that runs the entry (not npm's). */
  peakMb: number;
  /** Peak resident memory of every process of the dyno together (sampled). */
  treePeakMb: number;
}

function makeDyno(name: string, mb: number, notes: string[]): Dyno {
  const made = memoryCgroup(`hourglass-${name}`, mb);
  if ('unavailable' in made) {
    notes.push(`#14: ${name}: no ${mb} MB limit enforced (${made.unavailable}); its RSS is sampled instead`);
    return { name, cgroup: null, peakMb: 0, treePeakMb: 0 };
  }
  return { name, cgroup: made, peakMb: 0, treePeakMb: 0 };
}

/** `npm run <script>` inside the dyno's cgroup (the Procfile's command line). */
function npmArgv(dyno: Dyno, script: string): [string, string[]] {
  return dyno.cgroup ? dyno.cgroup.wrap('npm', ['run', script]) : ['npm', ['run', script]];
}

/** The pids of a process and its descendants. */
function tree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const ppid = Number(/^\d+ \(.*\) \S (\d+)/s.exec(readFileSync(`/proc/${d}/stat`, 'utf8'))?.[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {}
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]) ?? []));
  return out;
}

/** Samples every dyno's processes every 50 ms: the peak of their RSS together, and each entry's VmHWM. */
function sampler(dynos: { dyno: Dyno; root: () => number; entry: string }[]): () => Promise<void> {
  let running = true;
  const done = (async () => {
    while (running) {
      for (const { dyno, root, entry } of dynos) {
        const pids = dyno.cgroup ? dyno.cgroup.pids() : tree(root());
        let sum = 0;
        for (const pid of pids) {
          const { rssMb, peakMb } = processRss(pid);
          if (Number.isFinite(rssMb)) sum += rssMb;
          if (commandLine(pid).includes(entry) && Number.isFinite(peakMb)) dyno.peakMb = Math.max(dyno.peakMb, peakMb);
        }
        dyno.treePeakMb = Math.max(dyno.treePeakMb, sum);
      }
      await sleep(50);
    }
  })();
  return async () => {
    running = false;
    await done;
  };
}

/** The Node process of a dyno that runs `worker/main.ts` (not the shell npm runs it with), or the root itself. */
function nodePid(d: Dyno, root: number): number {
  const pids = (d.cgroup ? d.cgroup.pids() : tree(root)).filter((p) => commandLine(p).includes('worker/main.ts'));
  return pids.sort((x, y) => processRss(y).rssMb - processRss(x).rssMb)[0] ?? root;
}

/** CPU time a process has used (all its threads), ms; NaN if it is not on this machine. */
function cpuMsOf(pid: number): number {
  try {
    const f = /^\d+ \(.*\) (.*)$/s.exec(readFileSync(`/proc/${pid}/stat`, 'utf8').trim())?.[1].split(' ') ?? [];
    // After the state (field 3): utime and stime are fields 14 and 15, in 1/100 s.
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * What the processes ask of Postgres: the most connections each application name held at once,
 * and the CPU time of the backends serving the worker (when the server runs on this machine).
 */
class DatabaseUse {
  readonly #pool: Pool;
  readonly peak = new Map<string, number>();
  /** Worker backends: CPU ms when first seen, and last read. */
  readonly #backends = new Map<number, { first: number; last: number }>();

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  async sample(): Promise<void> {
    const { rows } = await this.#pool.query<{ pid: number; app: string }>(
      `SELECT pid, application_name AS app FROM pg_stat_activity
        WHERE datname = current_database() AND application_name LIKE 'hourglass-%' AND application_name <> 'hourglass-bench'`,
    );
    const counts = new Map<string, number>();
    for (const { pid, app } of rows) {
      counts.set(app, (counts.get(app) ?? 0) + 1);
      if (!app.startsWith('hourglass-worker')) continue;
      const cpu = cpuMsOf(pid);
      const seen = this.#backends.get(pid);
      if (seen) seen.last = cpu;
      else this.#backends.set(pid, { first: cpu, last: cpu });
    }
    for (const [app, n] of counts) this.peak.set(app, Math.max(n, this.peak.get(app) ?? 0));
  }

  /** CPU ms the worker's backends used while sampled (backends that started mid-run count from then). */
  workerBackendsCpuMs(): number {
    let sum = 0;
    for (const { first, last } of this.#backends.values()) sum += last - first;
    return sum;
  }
}

/** Connections and CPU per scenario of the worker and of the Postgres backends serving it. */
async function reportUse(
  b: Bench,
  url: string,
  use: { database: DatabaseUse; workerCpuMs: number; seconds: number; profile: DynoProfile },
): Promise<void> {
  const { rows } = await b
    .pool(url)
    .query<{ n: number }>(`SELECT count(*)::int AS n FROM scenarios WHERE status = 'succeeded'`);
  const n = rows[0].n;
  const workerConnections = [...use.database.peak]
    .filter(([app]) => app.startsWith('hourglass-worker'))
    .reduce((sum, [, c]) => sum + c, 0);
  const pgMs = use.database.workerBackendsCpuMs() / n;
  b.rows.push(
    {
      n: '14',
      figure: `Postgres connections one worker held at most (${use.profile.mb} MB settings)`,
      value: workerConnections,
      unit: 'count',
      target: 'context',
      met: null,
    },
    {
      n: '14',
      figure: "CPU per scenario of the Postgres backends serving the worker (this workload's mix)",
      value: pgMs,
      unit: 'ms',
      baseline: { label: 'the worker process', value: use.workerCpuMs / n },
      target: 'context',
      met: null,
    },
  );
  b.notes.push(
    `#14: ${n} scenarios in ${use.seconds.toFixed(0)} s; connections at most, by application: ${[...use.database.peak]
      .map(([app, c]) => `${app} ${c}`)
      .join(', ')}`,
  );
}

function signal(pid: number): void {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {}
}

/** Waits (up to 30 s) until the dyno's cgroup has no process left, so that it can be removed. */
async function emptied(d: Dyno): Promise<void> {
  for (let i = 0; i < 300 && d.cgroup && d.cgroup.pids().length > 0; i++) await sleep(100);
}

async function post(base: string, path: string, body: unknown): Promise<{ id: string }> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${(await res.text()).slice(0, 300)}`);
  return (await res.json()) as { id: string };
}

/** The workload, all posted at once; resolves with the latitude sweep's id. */
async function postWorkload(base: string, sizes: DynoSizes): Promise<string> {
  const latitudes = Array.from({ length: sizes.latitude }, (_, i) => 25 + (20 * i) / Math.max(1, sizes.latitude - 1));
  const [lat] = await Promise.all([
    post(base, '/api/sweeps', {
      name: 'dyno: latitude',
      base: { site, seed: 11 },
      vary: [{ path: '/site/latitude', values: latitudes }],
    }),
    post(base, '/api/sweeps', {
      name: 'dyno: capacities and limit',
      base: { site, seed: 12 },
      vary: [
        { path: '/solar/capacity_mw_dc', values: sizes.solar },
        { path: '/wind/capacity_mw', values: sizes.wind },
        { path: '/grid/export_limit_mw', values: sizes.limits },
      ],
    }),
    ...Array.from({ length: sizes.singles }, (_, i) =>
      post(base, '/api/scenarios', { name: `dyno single ${i}`, site }),
    ),
  ]);
  return lat.id;
}

export async function dyno(b: Bench, url: string, sizes: DynoSizes, profile: DynoProfile): Promise<void> {
  const release = makeDyno('release', 512, b.notes);
  const webDyno = makeDyno('web', 512, b.notes);
  const workerDyno = makeDyno('worker', profile.mb, b.notes);
  const dynos = [release, webDyno, workerDyno];
  const env = { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' };
  try {
    // release: `npm run migrate` (the template is migrated already: this checks it, as a release does).
    const [command, args] = npmArgv(release, 'migrate');
    const migrate = spawn(command, args, { env, stdio: 'ignore' });
    const stopSampling = sampler([{ dyno: release, root: () => migrate.pid ?? 0, entry: 'migrate.main.ts' }]);
    const [code] = (await once(migrate, 'exit')) as [number | null];
    await stopSampling();
    if (code !== 0) throw new Error(`#14: npm run migrate exited with ${code}`);
    const web = await startCommand({
      name: 'dyno-web',
      role: 'web',
      argv: npmArgv(webDyno, 'web'),
      env: { DATABASE_URL: url, PORT: '0', HOST: '127.0.0.1', ...QUOTAS_OFF },
      logDir: b.logDir,
    });
    const worker = await startCommand({
      name: 'dyno-worker',
      role: 'worker',
      argv: npmArgv(workerDyno, 'worker'),
      env: { DATABASE_URL: url, ...profile.env },
      logDir: b.logDir,
    });
    const idleMb = Math.max(
      0,
      ...tree(worker.pid).map((p) => (commandLine(p).includes('worker/main.ts') ? processRss(p).rssMb : 0)),
    );
    const stop = sampler([
      { dyno: webDyno, root: () => web.pid, entry: 'server/main.ts' },
      { dyno: workerDyno, root: () => worker.pid, entry: 'worker/main.ts' },
    ]);
    const pool = b.pool(url);
    const database = new DatabaseUse(pool);
    const workerCpu0 = cpuMsOf(nodePid(workerDyno, worker.pid));
    let latId = '';
    let workerCpuMs = Number.NaN;
    const t0 = performance.now();
    try {
      latId = await postWorkload(`http://127.0.0.1:${web.port}`, sizes);
      const deadline = performance.now() + 900_000;
      for (;;) {
        await database.sample();
        const { rows } = await pool.query<{ open: number }>(
          `SELECT count(*)::int AS open FROM scenarios WHERE status IN ('queued', 'running')`,
        );
        if (rows[0].open === 0) break;
        if (workerDyno.cgroup?.oomKills() || performance.now() > deadline) break;
        await sleep(200);
      }
      workerCpuMs = cpuMsOf(nodePid(workerDyno, worker.pid)) - workerCpu0;
    } finally {
      await stop();
      // As the platform stops a dyno: SIGTERM to every process in it (npm does not pass it on).
      for (const [d, service] of [
        [workerDyno, worker],
        [webDyno, web],
      ] as const) {
        for (const pid of d.cgroup ? d.cgroup.pids() : tree(service.pid)) signal(pid);
        await service.stop();
        await emptied(d);
      }
    }
    const seconds = (performance.now() - t0) / 1000;
    await report(b, url, latId, dynos, idleMb, profile);
    await reportUse(b, url, { database, workerCpuMs, seconds, profile });
  } finally {
    for (const d of dynos) {
      try {
        d.cgroup?.remove();
      } catch (err) {
        b.notes.push(`#14: could not remove the ${d.name} cgroup: ${(err as Error).message}`);
      }
    }
  }
}

async function report(
  b: Bench,
  url: string,
  latId: string,
  dynos: Dyno[],
  idleMb: number,
  profile: DynoProfile,
): Promise<void> {
  const [release, web, worker] = dynos;
  const { rows } = await b.pool(url).query<{
    total: number;
    succeeded: number;
    retried: number;
    lat_n: number;
    lat_seconds: number;
  }>(
    `SELECT count(*)::int AS total,
            count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
            count(*) FILTER (WHERE attempt > 1)::int AS retried,
            count(*) FILTER (WHERE sweep_id = $1)::int AS lat_n,
            extract(epoch FROM max(finished_at) FILTER (WHERE sweep_id = $1)
                             - min(started_at) FILTER (WHERE sweep_id = $1))::float8 AS lat_seconds
       FROM scenarios`,
    [latId],
  );
  const r = rows[0];
  const kills = dynos.reduce((n, d) => n + (d.cgroup?.oomKills() ?? 0), 0);
  const limited = worker.cgroup !== null;
  const how = (mb: number) => (limited ? `in a ${mb} MB cgroup` : 'RSS sampled, no cgroup');
  const settings = Object.entries(profile.env)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const targetMb = Math.round(0.85 * profile.mb);
  const rate = r.lat_n / r.lat_seconds;
  b.rows.push(
    {
      n: '14',
      figure: `Worker (npm run worker, ${settings || 'defaults'}) ${how(profile.mb)}: peak RSS of its Node process`,
      value: worker.peakMb,
      unit: 'MB',
      baseline: { label: 'the same worker, started and idle', value: idleMb },
      target: `≤ ${targetMb} MB (85 % of ${profile.mb})`,
      met: worker.peakMb <= targetMb,
    },
    {
      n: '14',
      figure: `Web (npm run web) ${how(512)}: peak RSS of its Node process`,
      value: web.peakMb,
      unit: 'MB',
      target: '≤ 300 MB',
      met: web.peakMb <= 300,
    },
    {
      n: '14',
      figure: limited
        ? 'Processes the kernel killed (release, web, worker cgroups)'
        : 'Kills (no cgroup: not measurable)',
      value: kills,
      unit: 'count',
      target: '0',
      met: limited ? kills === 0 : null,
    },
    {
      n: '14',
      figure: `Scenarios not succeeded on their first attempt (of ${r.total})`,
      value: r.total - r.succeeded + r.retried,
      unit: 'count',
      target: '0',
      met: r.total > 0 && r.succeeded === r.total && r.retried === 0,
    },
    {
      n: '14',
      figure: `The latitude sweep (${r.lat_n}) in that run, beside the other work`,
      value: rate,
      unit: '/s',
      baseline: { label: '1 / engine', value: 1000 / b.engine.engineMs, unit: '/s' },
      ratio: rate / (1000 / b.engine.engineMs),
      target: 'context',
      met: null,
    },
  );
  const cg = (d: Dyno) =>
    d.cgroup
      ? `${d.name}: cgroup peak ${(d.cgroup.peakBytes() / 2 ** 20).toFixed(0)} MB (page cache included), all its processes' RSS together ≤ ${d.treePeakMb.toFixed(0)} MB, kills ${d.cgroup.oomKills()}`
      : `${d.name}: all its processes' RSS together ≤ ${d.treePeakMb.toFixed(0)} MB`;
  b.notes.push(`#14: ${dynos.map(cg).join('; ')}; release's migrate process peak ${release.peakMb.toFixed(0)} MB`);
}
