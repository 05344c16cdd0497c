// #2 pickup, #3 end to end, #5 backlog drain with one worker, #6 the same with two workers.
import type { Bench } from './context.ts';
import { count } from './context.ts';
import { cpuSince, cpuSnapshot, type Service, startWorker, threadCpuMs } from './procs.ts';
import { median, quantile, sleep } from './stats.ts';

/** #2 and #3 on an idle web + worker pair. Returns the ids of the scenarios they calculated. */
export async function pickupAndEndToEnd(b: Bench, url: string, webPort: number): Promise<string[]> {
  const { sizes, load, rows } = b;
  const notify = await load.call('notifyLatency', { databaseUrl: url, samples: sizes.notifySamples });
  const pickup = await load.call('pickup', { databaseUrl: url, samples: sizes.pickupSamples });
  const n = count(sizes.pickupSamples);
  rows.push(
    {
      n: '2',
      figure: `Pickup p50: create committed → worker's running tx (${n})`,
      value: median(pickup.runningMs),
      unit: 'ms',
      baseline: { label: 'NOTIFY→LISTEN p50', value: median(notify.latencyMs) },
      ratio: median(pickup.runningMs) / median(notify.latencyMs),
      target: '≤ 3 ms',
      met: median(pickup.runningMs) <= 3,
    },
    {
      n: '2',
      figure: `Pickup p99 (${n})`,
      value: quantile(pickup.runningMs, 0.99),
      unit: 'ms',
      baseline: { label: 'NOTIFY→LISTEN p99', value: quantile(notify.latencyMs, 0.99) },
      ratio: quantile(pickup.runningMs, 0.99) / quantile(notify.latencyMs, 0.99),
      target: '≤ 10 ms',
      met: quantile(pickup.runningMs, 0.99) <= 10,
    },
    {
      n: '2',
      figure: 'Pickup to pg-boss claim (started_on), p50',
      value: median(pickup.claimMs),
      unit: 'ms',
      target: 'context',
      met: null,
    },
    {
      n: '2',
      figure: 'Pickup to pg-boss claim (started_on), p99',
      value: quantile(pickup.claimMs, 0.99),
      unit: 'ms',
      target: 'context',
      met: null,
    },
  );

  b.notes.push(
    `#2: the create's COMMIT (WAL flush) took p50 ${median(pickup.commitMs).toFixed(2)} ms / p99 ${quantile(pickup.commitMs, 0.99).toFixed(2)} ms; the baseline's NOTIFY-only COMMIT flushes nothing`,
  );

  const e2e = await load.call('endToEnd', { port: webPort, databaseUrl: url, samples: sizes.endToEndSamples });
  const limit = b.engine.engineMs + 40;
  rows.push({
    n: '3',
    figure: `End to end p50: POST → succeeded on SSE (${count(sizes.endToEndSamples)})`,
    value: median(e2e.latencyMs),
    unit: 'ms',
    baseline: { label: 'engine (#1)', value: b.engine.engineMs },
    ratio: median(e2e.latencyMs) / b.engine.engineMs,
    target: `≤ engine + 40 ms = ${limit.toFixed(0)} ms`,
    met: median(e2e.latencyMs) <= limit,
  });
  const stages = Object.entries(e2e.stages).map(([k, v]) => `${k} ${median(v).toFixed(1)}`);
  b.notes.push(
    `#3: medians, ms: ${stages.join(', ')} (cut at the running, last progress and succeeded transactions' starts; the last span stores the result, commits and delivers)`,
  );
  return pickup.ids;
}

interface Drain {
  perSecond: number;
  wallSeconds: number;
  /** Medians of the worker's own per-job timings (its `calculated` log line), ms. */
  timings: Record<string, number>;
  /** CPU ms per scenario, by process (worker processes summed), from the workers' start to the drain's end. */
  cpu: Record<string, number>;
}

/** Queues `backlog` scenarios with no worker running, then starts `workers` and times the drain. */
/** Medians of the `ms` fields of the workers' `calculated` lines (older workers log only engineMs). */
function workerTimings(procs: Service[]): Record<string, number> {
  const fields: Record<string, number[]> = {};
  for (const line of procs.flatMap((p) => p.collected)) {
    const ms = typeof line.ms === 'object' && line.ms !== null ? (line.ms as Record<string, unknown>) : null;
    const entries = ms ? Object.entries(ms) : [['engine', line.engineMs]];
    for (const [k, v] of entries) if (typeof v === 'number') fields[k as string] = [...(fields[k as string] ?? []), v];
  }
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, median(v)]));
}

async function drain(b: Bench, url: string, webPort: number, workers: number): Promise<Drain> {
  const { ids } = await b.load.call('createMany', { port: webPort, count: b.sizes.backlog, connections: 20 });
  const pool = b.pool(url);
  const t0 = performance.now();
  const procs: Service[] = await Promise.all(
    Array.from({ length: workers }, (_, i) => startWorker(url, b.logDir, `worker-drain${workers}-${i + 1}`)),
  );
  const named = Object.fromEntries(procs.map((p) => [p.name, p.pid]));
  const cpuBefore = cpuSnapshot(named);
  let cpuAfter = cpuBefore;
  const threadsBefore = procs.map((p) => threadCpuMs(p.pid));
  let threadsAfter = threadsBefore;
  // Bounded: on a machine too slow for the whole backlog in time, the rate is taken over what finished.
  const deadline = t0 + b.sizes.drainLimitMs;
  try {
    for (;;) {
      const { rows } = await pool.query<{ done: number; failed: number }>(
        `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS done,
                count(*) FILTER (WHERE status = 'failed')::int AS failed
           FROM scenarios WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      if (rows[0].failed > 0) throw new Error(`${rows[0].failed} backlog scenarios failed`);
      if (rows[0].done === ids.length || performance.now() > deadline) break;
      await sleep(200);
    }
    cpuAfter = cpuSnapshot(named);
    threadsAfter = procs.map((p) => threadCpuMs(p.pid));
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
  }
  const wallSeconds = (performance.now() - t0) / 1000;
  // The drain itself, from the database's own timestamps: first start to last finish.
  const { rows } = await pool.query<{ done: number; seconds: number }>(
    `SELECT count(*)::int AS done, extract(epoch FROM max(finished_at) - min(started_at))::float8 AS seconds
       FROM scenarios WHERE id = ANY($1::uuid[]) AND status = 'succeeded'`,
    [ids],
  );
  const { done, seconds } = rows[0];
  if (done < ids.length) {
    b.notes.push(
      `WARNING: only ${done} of ${ids.length} backlog scenarios finished in ${b.sizes.drainLimitMs / 1000} s`,
    );
  }
  const used = cpuSince(cpuBefore, cpuAfter);
  const workerMs = procs.reduce((sum, p) => sum + used[p.name], 0);
  const cpu: Record<string, number> = { worker: workerMs / done, postgres: used.postgres / done };
  threadsAfter.forEach((after, i) => {
    for (const [thread, ms] of Object.entries(after)) {
      cpu[`worker ${thread}`] = (cpu[`worker ${thread}`] ?? 0) + (ms - (threadsBefore[i][thread] ?? 0)) / done;
    }
  });
  return { perSecond: done / seconds, wallSeconds, timings: workerTimings(procs), cpu };
}

export async function backlog(b: Bench, url: string, webPort: number): Promise<void> {
  const one = await drain(b, url, webPort, 1);
  const engineRate = 1000 / b.engine.engineMs;
  const n = count(b.sizes.backlog);
  b.rows.push({
    n: '5',
    figure: `Backlog drain, 1 worker process (${n} queued)`,
    value: one.perSecond,
    unit: '/s',
    baseline: { label: '1 / engine', value: engineRate },
    ratio: one.perSecond / engineRate,
    target: '≥ 0.8 × baseline',
    met: one.perSecond >= 0.8 * engineRate,
  });
  const two = await drain(b, url, webPort, 2);
  b.rows.push({
    n: '6',
    figure: `Scale-out: 2 worker processes (${n} queued)`,
    value: two.perSecond,
    unit: '/s',
    baseline: { label: '#5', value: one.perSecond },
    ratio: two.perSecond / one.perSecond,
    target: '≥ 1.5 × #5',
    met: two.perSecond >= 1.5 * one.perSecond,
  });
  const describe = (d: Drain, workers: number) =>
    `${(1000 / d.perSecond).toFixed(1)} ms per scenario with ${workers} worker(s); the worker's own timings (medians): ${Object.entries(
      d.timings,
    )
      .map(([k, ms]) => `${k} ${ms.toFixed(0)} ms`)
      .join(', ')}; CPU per scenario: ${Object.entries(d.cpu)
      .filter(([, ms]) => ms >= 0.5)
      .map(([k, ms]) => `${k} ${ms.toFixed(0)} ms`)
      .join(', ')}; wall time incl. process start ${d.wallSeconds.toFixed(1)} s`;
  b.notes.push(`#5: ${describe(one, 1)}`, `#6: ${describe(two, 2)}`);
}
