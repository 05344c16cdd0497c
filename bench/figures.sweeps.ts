// #12 sweeps: creating one, draining one whose variants reuse the worker's generation profiles and
// one whose variants cannot (latitude), a single scenario posted while a sweep drains, the results
// of a large sweep, disk per variant without hourly data, and the worker's memory while draining.
import { accepted, DEFAULT_SCENARIO, getJson, postJson as post } from '../test/helpers/http.ts';
import { waitUntil } from '../test/helpers/wait.ts';
import type { Bench } from './context.ts';
import { peakRssMb, resetPeakRss, rssMb, type Service, startWeb, startWorker } from './procs.ts';
import { median, sleep } from './stats.ts';
import type { Row } from './table.ts';

export interface SweepSizes {
  create: number;
  reuse: number;
  latitude: number;
  results: number;
  singles: number;
}
export const SWEEP_FULL: SweepSizes = { create: 1000, reuse: 1000, latitude: 400, results: 2000, singles: 7 };
export const SWEEP_QUICK: SweepSizes = { create: 50, reuse: 50, latitude: 20, results: 100, singles: 2 };

const { site } = DEFAULT_SCENARIO;

/** POSTs to the web; the created resource (or the 200 answer). */
export async function postJson(base: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  return accepted(await post(`${base}${path}`, body), path);
}

/** A sweep of `n` variants over capacities, export limit and price (all share one design). */
export function reuseSweep(n: number) {
  const solar = [50, 100, 150, 200, 250];
  const limits = [100, 120, 140, 160, 180, 200, 220, 240, 260, 280];
  const prices = Math.max(1, Math.ceil(n / (solar.length * limits.length)));
  return {
    name: `reuse ${n}`,
    base: { site, seed: 7 },
    vary: [
      { path: '/solar/capacity_mw_dc', values: solar },
      { path: '/grid/export_limit_mw', values: limits },
      { path: '/market/ppa_price_per_mwh', values: Array.from({ length: prices }, (_, i) => 40 + i) },
    ].slice(0, n >= 50 ? 3 : 2),
  };
}

/** A sweep of battery sizes behind a 120 MW limit with an evening price peak. */
export function batteryStudy(n: number) {
  const powers = Array.from({ length: 10 }, (_, i) => 10 * (i + 1));
  const energies = Math.max(1, Math.ceil(n / powers.length));
  return {
    name: `battery ${n}`,
    base: {
      site,
      seed: 7,
      grid: { export_limit_mw: 120 },
      market: { merchant_hour_of_day_multipliers: Array.from({ length: 24 }, (_, h) => (h >= 17 && h < 21 ? 1.8 : 1)) },
      storage: { power_mw: 50, energy_mwh: 200 },
    },
    vary: [
      { path: '/storage/power_mw', values: powers },
      { path: '/storage/energy_mwh', values: Array.from({ length: energies }, (_, i) => 20 + 8 * i) },
    ],
  };
}

export async function waitFinished(base: string, id: string, limitMs: number): Promise<void> {
  await waitUntil(
    async () => {
      const sweep = (await getJson(`${base}/api/sweeps/${id}`)).json as {
        finished_at: string | null;
        counts: { failed: number };
      };
      if (sweep.counts.failed > 0) throw new Error(`sweep ${id}: ${sweep.counts.failed} variants failed`);
      return sweep.finished_at !== null;
    },
    { timeoutMs: limitMs, everyMs: 100, what: `sweep ${id} to finish` },
  );
}

/** POST → succeeded of one single scenario, ms (polling its row every 5 ms). */
/** The row of a single scenario's latency under some load, beside the same on an idle system (≤ 2 ×). */
export function singleUnderLoad(n: string, figure: string, ms: { busy: number[]; idle: number[] }): Row {
  const busy = median(ms.busy);
  const idle = median(ms.idle);
  return {
    n,
    figure,
    value: busy,
    unit: 'ms',
    baseline: { label: 'on an idle system', value: idle },
    ratio: busy / idle,
    target: '≤ 2 × baseline',
    met: busy / idle <= 2,
  };
}

export async function singleLatency(b: Bench, url: string, base: string): Promise<number> {
  const pool = b.pool(url);
  const t0 = performance.now();
  const created = await postJson(base, '/api/scenarios', { name: 'single', site });
  await waitUntil(
    async () => {
      const { rows } = await pool.query<{ status: string }>('SELECT status FROM scenarios WHERE id = $1', [created.id]);
      if (rows[0]?.status === 'failed') throw new Error('the single scenario failed');
      return rows[0]?.status === 'succeeded';
    },
    { timeoutMs: 600_000, everyMs: 5, what: 'the single scenario to succeed' },
  );
  return performance.now() - t0;
}

const TABLES = ['scenarios', 'scenario_events', 'scenario_results', 'sweeps', 'sweep_events', 'pgboss.job'];
/** The bytes of these tables with their indexes and TOAST. */
export async function diskBytes(b: Bench, url: string, tables: readonly string[] = TABLES): Promise<number> {
  const { rows } = await b
    .pool(url)
    .query<{ bytes: string }>(
      `SELECT sum(pg_total_relation_size(t::regclass))::bigint AS bytes FROM unnest($1::text[]) t`,
      [tables],
    );
  return Number(rows[0].bytes);
}

/** A sweep over `n` latitudes (no variant can reuse another's generation). */
export function latitudeSweep(name: string, seed: number, n: number) {
  return {
    name,
    base: { site, seed },
    vary: [{ path: '/site/latitude', values: Array.from({ length: n }, (_, i) => 25 + (20 * i) / n) }],
  };
}

/** Variants finished per second over a sweep's drain, from the database's own timestamps. */
async function drainRate(b: Bench, url: string, sweepId: unknown): Promise<number> {
  const { rows } = await b.pool(url).query<{ seconds: number; n: number }>(
    `SELECT extract(epoch FROM max(finished_at) - min(started_at))::float8 AS seconds, count(*)::int AS n
     FROM scenarios WHERE sweep_id = $1`,
    [sweepId],
  );
  return rows[0].n / rows[0].seconds;
}

/** 12a: creating a sweep, against the same number of single creates in a row (no worker runs). */
async function createFigure(b: Bench, url: string, base: string, sizes: SweepSizes): Promise<number> {
  const singleBody = { name: 'single', site };
  const t1 = performance.now();
  for (let i = 0; i < sizes.create; i++) await postJson(base, '/api/scenarios', singleBody);
  const singlesMs = performance.now() - t1;
  const createMs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const s = await postJson(base, '/api/sweeps', {
      name: 'create',
      base: { site },
      vary: [{ path: '/seed', from: 1, to: sizes.create, step: 1 }],
    });
    createMs.push(performance.now() - t);
    await postJson(base, `/api/sweeps/${s.id}/cancel`, {});
  }
  await b.pool(url).query(`UPDATE scenarios SET status = 'cancelled' WHERE status = 'queued'`);
  const create = median(createMs);
  b.rows.push({
    n: '12',
    figure: `Create a ${sizes.create.toLocaleString('en-US')}-variant sweep, median of 3`,
    value: create,
    unit: 'ms',
    baseline: { label: `${sizes.create.toLocaleString('en-US')} single creates in a row`, value: singlesMs },
    ratio: create / singlesMs,
    target: '≤ 1 s and ≤ 0.05 × baseline',
    met: create <= 1000 && create / singlesMs <= 0.05,
  });
  return singlesMs;
}

/** 12b: a sweep whose variants share one design, POST → finished with one worker; its disk per variant. */
async function reuseFigures(b: Bench, url: string, base: string, worker: Service, sizes: SweepSizes) {
  resetPeakRss(worker.pid);
  const diskBefore = await diskBytes(b, url);
  const reuse = await sweepDrained(base, reuseSweep(sizes.reuse), 600_000);
  b.rows.push(againstEngine(b, 'sweep (capacities, limit, price)', reuse));
  const rssReuse = peakRssMb(worker.pid);
  await sleep(500);
  const perVariant = ((await diskBytes(b, url)) - diskBefore) / reuse.total / 1024;
  b.rows.push({
    n: '12',
    figure: 'Disk per variant without hourly (tables, indexes, TOAST, pg-boss job)',
    value: perVariant,
    unit: 'kB',
    target: '≤ 30 kB',
    met: perVariant <= 30,
  });
  await batteryFigures(b, base, sizes);
  return { reuseId: reuse.id, rssReuse };
}

/** A sweep posted, then drained: its id, its variants and the time from POST to finished. */
export async function sweepDrained(base: string, body: unknown, timeoutMs: number) {
  const t0 = performance.now();
  const sweep = await postJson(base, '/api/sweeps', body);
  const total = (sweep.counts as { total: number }).total;
  await waitFinished(base, sweep.id as string, timeoutMs);
  return { id: sweep.id, total, ms: performance.now() - t0 };
}

/**
 * A drained sweep's row against as many runs of the engine (#1), at most `target` × them: 0.25 when
 * its variants reuse their plant; 0.5 for battery sizes (issue 39: each variant dispatches its own
 * battery, so its DP is its own work).
 */
function againstEngine(b: Bench, what: string, sweep: { total: number; ms: number }, target = 0.25): Row {
  const n = sweep.total.toLocaleString('en-US');
  const engineAll = sweep.total * b.engine.engineMs;
  return {
    n: '12',
    figure: `${n}-variant ${what}, POST → finished, 1 worker`,
    value: sweep.ms / 1000,
    unit: 's',
    baseline: { label: `${n} × engine (#1)`, value: engineAll / 1000, unit: 's' },
    ratio: sweep.ms / engineAll,
    target: `≤ ${target} × baseline`,
    met: sweep.ms / engineAll <= target,
  };
}

/** 12b with a battery: its power × energy varied behind a limit (the generation profiles are shared). */
async function batteryFigures(b: Bench, base: string, sizes: SweepSizes) {
  const sweep = await sweepDrained(base, batteryStudy(sizes.reuse), 900_000);
  b.rows.push(againstEngine(b, 'sweep of battery power × energy (arbitrage behind a limit)', sweep, 0.5));
}

/** 12c/12d: a sweep varying latitude (no reuse), with single scenarios posted while it drains. */
async function latitudeFigures(b: Bench, url: string, base: string, worker: Service, sizes: SweepSizes) {
  resetPeakRss(worker.pid);
  const lat = await postJson(base, '/api/sweeps', latitudeSweep('latitude', 7, sizes.latitude));
  const busy: number[] = [];
  await sleep(1000);
  for (let i = 0; i < sizes.singles; i++) {
    busy.push(await singleLatency(b, url, base));
    await sleep(300);
  }
  await waitFinished(base, lat.id as string, 900_000);
  return { busy, rssLat: peakRssMb(worker.pid), rate: await drainRate(b, url, lat.id) };
}

/**
 * Hot-row check while `drained` runs: how often a worker's connection waits on a lock (the sweep
 * row's seq is the one row every finishing variant updates), sampled every 5 ms; each wait named by
 * the statement that waits (a row lock is a wait on the holder's transaction, which names no table)
 * and the relation of its ungranted lock when it has one (`object pg_database` is the lock NOTIFY
 * takes at commit to order the notification queue).
 */
async function lockWaitsDuring(b: Bench, url: string, drained: Promise<void>): Promise<string> {
  const sampler = b.pool(url);
  let samples = 0;
  let lockWaits = 0;
  const waiting = new Map<string, number>();
  let sampling = true;
  const sampled = (async () => {
    while (sampling) {
      const { rows: w } = await sampler.query<{ what: string }>(
        `SELECT left(regexp_replace(a.query, '\\s+', ' ', 'g'), 48)
                || ' [' || string_agg(DISTINCT coalesce(c.relname, l.locktype || coalesce(' ' || l.classid::regclass, '')), ',') || ']' AS what
           FROM pg_stat_activity a
           JOIN pg_locks l ON l.pid = a.pid AND NOT l.granted
           LEFT JOIN pg_class c ON c.oid = l.relation
          WHERE a.application_name LIKE 'hourglass-worker%' AND a.wait_event_type = 'Lock'
          GROUP BY a.pid, a.query`,
      );
      samples++;
      if (w.length > 0) lockWaits++;
      for (const { what } of w) waiting.set(what, (waiting.get(what) ?? 0) + 1);
      await sleep(5);
    }
  })();
  try {
    await drained;
  } finally {
    sampling = false;
    await sampled;
  }
  const byStatement = [...waiting]
    .sort((x, y) => y[1] - x[1])
    .map(([what, n]) => `${n} × ${what}`)
    .join('; ');
  return `#12: two workers draining a sweep: a worker connection waited on a lock in ${lockWaits} of ${samples} samples (${((100 * lockWaits) / Math.max(1, samples)).toFixed(1)} %)${byStatement ? `; waiting: ${byStatement}` : ''}`;
}

/** 12f: the same kind of sweep (another seed: nothing cached) drained by two worker processes. */
async function twoWorkersFigure(b: Bench, url: string, base: string, sizes: SweepSizes, oneWorkerRate: number) {
  const second = await startWorker(url, b.logDir, 'worker-sweeps-2');
  try {
    const lat2 = await postJson(base, '/api/sweeps', latitudeSweep('latitude, two workers', 8, sizes.latitude));
    b.notes.push(await lockWaitsDuring(b, url, waitFinished(base, lat2.id as string, 900_000)));
    const rate2 = await drainRate(b, url, lat2.id);
    b.rows.push({
      n: '12',
      figure: `The latitude sweep (${sizes.latitude}), 2 worker processes`,
      value: rate2,
      unit: '/s',
      baseline: { label: '1 worker (above)', value: oneWorkerRate, unit: '/s' },
      ratio: rate2 / oneWorkerRate,
      target: '≥ 1 × baseline',
      met: rate2 >= oneWorkerRate,
    });
  } finally {
    await second.stop();
  }
}

/** 12e: the results of a large sweep: its variants made finished by SQL with a real variant's KPIs. */
async function resultsFigure(b: Bench, url: string, base: string, sizes: SweepSizes, finishedSweepId: unknown) {
  const big = await postJson(base, '/api/sweeps', {
    name: 'results',
    base: { site },
    vary: [{ path: '/seed', from: 1, to: sizes.results, step: 1 }],
  });
  await b.pool(url).query(
    `UPDATE scenarios s SET status = 'succeeded', summary = d.summary, totals = d.totals, finished_at = now()
     FROM (SELECT summary, totals FROM scenarios WHERE sweep_id = $2 AND status = 'succeeded' LIMIT 1) d
     WHERE s.sweep_id = $1`,
    [big.id, finishedSweepId],
  );
  const resultsMs: number[] = [];
  const selectMs: number[] = [];
  for (let i = 0; i < 15; i++) {
    const t = performance.now();
    const res = await fetch(`${base}/api/sweeps/${big.id}/results?sort=-equity_npv`);
    await res.arrayBuffer();
    resultsMs.push(performance.now() - t);
    const s = performance.now();
    await b
      .pool(url)
      .query(
        'SELECT variant_index, id, status, variant_values, summary, totals FROM scenarios WHERE sweep_id = $1 ORDER BY variant_index',
        [big.id],
      );
    selectMs.push(performance.now() - s);
  }
  b.rows.push({
    n: '12',
    figure: `GET /api/sweeps/{id}/results?sort=-equity_npv, ${sizes.results.toLocaleString('en-US')} variants, p50`,
    value: median(resultsMs),
    unit: 'ms',
    baseline: { label: 'SELECT of the rows', value: median(selectMs) },
    ratio: median(resultsMs) / median(selectMs),
    target: '≤ 100 ms',
    met: median(resultsMs) <= 100,
  });
}

export async function sweeps(b: Bench, url: string, sizes: SweepSizes): Promise<void> {
  const web = await startWeb(url, b.logDir, 'web-sweeps', {
    MAX_SWEEP_VARIANTS: String(Math.max(2000, sizes.results)),
  });
  const base = `http://127.0.0.1:${web.port}`;
  let worker: Service | null = null;
  try {
    const singlesMs = await createFigure(b, url, base, sizes);
    // Idle single latency, for the row under drain.
    worker = await startWorker(url, b.logDir, 'worker-sweeps');
    const rssIdle = rssMb(worker.pid);
    const idle: number[] = [];
    for (let i = 0; i < sizes.singles; i++) idle.push(await singleLatency(b, url, base));
    const { reuseId, rssReuse } = await reuseFigures(b, url, base, worker, sizes);
    const { busy, rssLat, rate } = await latitudeFigures(b, url, base, worker, sizes);
    const perEngine = 1000 / b.engine.engineMs;
    b.rows.push(
      {
        n: '12',
        figure: `Sweep varying latitude (${sizes.latitude}, no reuse), 1 worker`,
        value: rate,
        unit: '/s',
        baseline: { label: '1 / engine', value: perEngine, unit: '/s' },
        ratio: rate / perEngine,
        target: '≥ 0.8 × baseline',
        met: rate / perEngine >= 0.8,
      },
      singleUnderLoad('12', `Single scenario posted while that sweep drains, POST → succeeded p50 (${sizes.singles})`, {
        busy,
        idle,
      }),
      {
        n: '12',
        figure: 'Worker peak RSS while draining (defaults, but WORKER_PREFETCH=1 as every bench worker)',
        value: Math.max(rssReuse, rssLat),
        unit: 'MB',
        baseline: { label: 'the same worker, started and idle', value: rssIdle, unit: 'MB' },
        target: '≤ 435 MB (85 % of a 512 MB dyno)',
        met: Math.max(rssReuse, rssLat) <= 435,
      },
    );
    await twoWorkersFigure(b, url, base, sizes, rate);
    await worker.stop();
    worker = null;
    await resultsFigure(b, url, base, sizes, reuseId);
    b.notes.push(
      `#12: single creates took ${(singlesMs / sizes.create).toFixed(2)} ms each in a row; the idle single scenario p50 ${median(idle).toFixed(0)} ms, under the latitude sweep ${median(busy).toFixed(0)} ms`,
      `#12: worker peak RSS ${rssReuse.toFixed(0)} MB in the reuse sweep, ${rssLat.toFixed(0)} MB in the latitude sweep (idle ${rssIdle.toFixed(0)} MB)`,
    );
  } finally {
    await worker?.stop();
    await web.stop();
  }
}
