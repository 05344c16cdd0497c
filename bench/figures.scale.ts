// #30: one Postgres, many workers. N worker processes (bench/worker.replay.ts) whose engine is a
// recording of the real one (bench/engine.replay.ts): each calculation waits the engine's measured
// time without using the CPU, then the worker stores a real-size result row, so the queue and the
// database do the real work. For each N, on a database of its own: pickup with N workers listening
// on an empty queue, then a backlog and a fixed window in which are measured scenarios a second,
// the CPU of the Postgres processes and of the workers, the WAL written, and the connections.
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { CALCULATE_QUEUE } from '../shared/queue.ts';
import { resolvedInputs } from '../test/fixtures/inputs.ts';
import type { Bench } from './context.ts';
import { record } from './engine.replay.ts';
import { cpuSince, cpuSnapshot, machineBusyMs, type Service, startWeb, startWorker } from './procs.ts';
import { median, quantile, sleep } from './stats.ts';

export interface ScaleSizes {
  workers: number[];
  /** The measured window per N (shorter when the backlog runs out first). */
  windowMs: number;
  pickupSamples: number;
}

export const SCALE_FULL: ScaleSizes = { workers: [1, 2, 4, 8, 16, 32], windowMs: 12_000, pickupSamples: 30 };
export const SCALE_QUICK: ScaleSizes = { workers: [1, 2, 4], windowMs: 4_000, pickupSamples: 10 };

export interface ScalePoint {
  workers: number;
  perSecond: number;
  pickupP50Ms: number;
  pickupP99Ms: number;
  /** CPU ms per scenario: every Postgres process (backends, WAL writer, checkpointer, autovacuum). */
  postgresCpuMs: number;
  /** CPU ms per scenario of the N worker processes together. */
  workerCpuMs: number;
  /** The most connections to the database at once in the window, and by application_name then. */
  connections: number;
  connectionsBy: Record<string, number>;
  walBytesPerScenario: number;
  /** The host's busy CPU in the window, 0–1 of all its cores, and what processes not the bench's took of it. */
  hostBusy: number;
  othersBusy: number;
  scenarios: number;
  windowSeconds: number;
  backlog: number;
}

const WORKER_BATCH = 8;

async function point(b: Bench, n: number, sizes: ScaleSizes, recording: string, backlog: number): Promise<ScalePoint> {
  const url = await b.cluster.database(`scale${n}`);
  const pool = b.pool(url);
  const web = await startWeb(url, b.logDir, `web-scale${n}`);
  const workers: Service[] = [];
  const held = await pool.connect();
  try {
    // The backlog is queued before the workers start, and its jobs are held (row locks: pg-boss
    // claims with SKIP LOCKED) until every worker runs, so that the window sees N workers on a
    // full queue, not the first ones draining it while the others start.
    await b.load.call('createMany', { port: web.port, count: backlog, connections: 20 });
    await held.query('BEGIN');
    await held.query("SELECT id FROM pgboss.job WHERE name = $1 AND state = 'created' FOR UPDATE", [CALCULATE_QUEUE]);
    // In batches: 32 Node processes starting at once on a small host time out their ready line.
    for (let i = 0; i < n; i += WORKER_BATCH) {
      const batch = Array.from({ length: Math.min(WORKER_BATCH, n - i) }, (_, j) =>
        startWorker(
          url,
          b.logDir,
          `worker-scale${n}-${i + j + 1}`,
          {},
          {
            entry: 'bench/worker.replay.ts',
            args: [recording],
          },
        ),
      );
      workers.push(...(await Promise.all(batch)));
    }
    // Pickup with N workers listening, on a queue whose backlog they cannot claim yet.
    const pickup = await b.load.call('pickup', { databaseUrl: url, samples: sizes.pickupSamples });
    // The release wakes the workers as a create does: pg-boss's NOTIFY for the queue (its channel
    // is derived from the schema, as in pg-boss's plans.js), sent on commit.
    await held.query("SELECT pg_notify('pgboss_' || left(encode(sha224('pgboss'::bytea), 'hex'), 24), $1)", [
      CALCULATE_QUEUE,
    ]);
    await held.query('COMMIT');
    await sleep(1_000);

    const named = {
      web: web.pid,
      load: b.load.pid,
      bench: process.pid,
      ...Object.fromEntries(workers.map((w) => [w.name, w.pid])),
    };
    const progress = async () =>
      (
        await pool.query<{ done: number; queued: number; failed: number; lsn: string }>(
          `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS done,
                  count(*) FILTER (WHERE status = 'queued')::int AS queued,
                  count(*) FILTER (WHERE status = 'failed')::int AS failed,
                  pg_current_wal_lsn()::text AS lsn
             FROM scenarios`,
        )
      ).rows[0];
    const start = await progress();
    const cpuBefore = cpuSnapshot(named);
    const machineBefore = machineBusyMs();
    const t0 = performance.now();
    let connections = 0;
    let connectionsBy: Record<string, number> = {};
    let end = start;
    for (;;) {
      await sleep(250);
      const { rows } = await pool.query<{ app: string; n: number }>(
        `SELECT application_name AS app, count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() GROUP BY 1`,
      );
      const total = rows.reduce((s, r) => s + r.n, 0);
      if (total > connections) {
        connections = total;
        connectionsBy = Object.fromEntries(rows.map((r) => [r.app, r.n]));
      }
      end = await progress();
      if (end.failed > 0) throw new Error(`${end.failed} scenarios failed with ${n} workers`);
      if (performance.now() - t0 >= sizes.windowMs || end.queued < 2 * n + 2) break;
    }
    const seconds = (performance.now() - t0) / 1000;
    const used = cpuSince(cpuBefore, cpuSnapshot(named));
    const machine = machineBusyMs() - machineBefore;
    const { rows: wal } = await pool.query<{ bytes: string }>(
      'SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::text AS bytes',
      [end.lsn, start.lsn],
    );
    const done = end.done - start.done;
    const workerMs = workers.reduce((s, w) => s + used[w.name], 0);
    const ours = Object.values(used).reduce((s, ms) => s + (Number.isFinite(ms) ? ms : 0), 0);
    const capacity = seconds * 1000 * cpus().length;
    if (end.queued < 2 * n + 2)
      b.notes.push(`#30: with ${n} workers the backlog of ${backlog} ran out after ${seconds.toFixed(1)} s`);
    return {
      workers: n,
      perSecond: done / seconds,
      pickupP50Ms: median(pickup.runningMs),
      pickupP99Ms: quantile(pickup.runningMs, 0.99),
      postgresCpuMs: used.postgres / done,
      workerCpuMs: workerMs / done,
      connections,
      connectionsBy,
      walBytesPerScenario: Number(wal[0].bytes) / done,
      hostBusy: machine / capacity,
      othersBusy: Math.max(0, machine - ours) / capacity,
      scenarios: done,
      windowSeconds: seconds,
      backlog,
    };
  } finally {
    await held.query('ROLLBACK').catch(() => {});
    held.release();
    await Promise.all(workers.map((w) => w.stop()));
    await web.stop();
    await b.cluster.drop(`scale${n}`);
  }
}

/** Runs every N in turn; writes the points to bench/scale.json (bench/scale.chart.ts draws them). */
export async function scale(b: Bench, sizes: ScaleSizes, step: (what: string) => void): Promise<void> {
  const recording = join(b.logDir, 'engine.recording');
  record(recording, resolvedInputs(), b.engine.engineMs);
  const points: ScalePoint[] = [];
  let rate = 1000 / b.engine.engineMs;
  for (const n of sizes.workers) {
    // Enough for the window (and the poll before it) at up to twice the last rate.
    const backlog = Math.min(3000, Math.max(100, Math.ceil(2 * rate * (sizes.windowMs / 1000 + 3))));
    step(`#30 ${n} worker process(es), replayed engine: a backlog of ${backlog}`);
    const p = await point(b, n, sizes, recording, backlog);
    points.push(p);
    rate = p.perSecond;
  }
  const one = points[0];
  for (const p of points) {
    b.rows.push({
      n: '30',
      figure: `${p.workers} worker process(es), engine replayed (${b.engine.engineMs.toFixed(0)} ms, no CPU), one Postgres`,
      value: p.perSecond,
      unit: '/s',
      baseline: { label: '1 worker', value: one.perSecond },
      ratio: p.perSecond / one.perSecond,
      target: 'context',
      met: null,
    });
    b.notes.push(
      `#30 N=${p.workers}: ${p.perSecond.toFixed(1)}/s (${p.scenarios} in ${p.windowSeconds.toFixed(1)} s); pickup p50 ${p.pickupP50Ms.toFixed(1)} / p99 ${p.pickupP99Ms.toFixed(1)} ms; CPU per scenario: Postgres ${p.postgresCpuMs.toFixed(1)} ms, workers ${p.workerCpuMs.toFixed(1)} ms; WAL ${(p.walBytesPerScenario / 1e6).toFixed(2)} MB per scenario; ${p.connections} connections (${Object.entries(
        p.connectionsBy,
      )
        .map(([app, c]) => `${app || '(none)'} ${c}`)
        .join(', ')}); host CPU ${(100 * p.hostBusy).toFixed(0)} % busy, others ${(100 * p.othersBusy).toFixed(0)} %`,
    );
  }
  writeFileSync(
    new URL('./scale.json', import.meta.url),
    `${JSON.stringify({ measured_at: new Date().toISOString(), engine_ms: b.engine.engineMs, cpus: cpus().length, quick: b.quick, points }, null, 2)}\n`,
  );
}
