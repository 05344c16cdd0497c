// #4 create throughput, #8 statements, #9 304s, #10 the full list.
import { resolvedInputs } from '../test/fixtures/inputs.ts';
import type { Bench } from './context.ts';
import { count } from './context.ts';
import { DEFAULT_SCENARIO } from './load.protocol.ts';
import { cpuSince, cpuSnapshot, peakRssMb, resetPeakRss, rssMb, startWeb } from './procs.ts';
import { median } from './stats.ts';
import { BASELINE_PATH } from './web.baseline.ts';

/** "web 0.41 ms, postgres 0.93 ms, …": CPU ms per request from a cpuSince() delta. */
export function perRequest(cpu: Record<string, number>, requests: number): string {
  return Object.entries(cpu)
    .filter(([, ms]) => Number.isFinite(ms))
    .map(([name, ms]) => `${name} ${(ms / requests).toFixed(2)} ms`)
    .join(', ');
}

/** #4's target rate, offered paced for the context row beside the closed loop's figures. */
const PACED_RATE = 1500;

/** A latency for a note; n/a when none was measured (NaN crosses the load process's IPC as null). */
const ms = (v: number | null): string => (v !== null && Number.isFinite(v) ? `${v.toFixed(1)} ms` : 'n/a');

/** #4: POST /api/scenarios against the baseline route, both in one web process with no worker. */
export async function createThroughput(b: Bench): Promise<void> {
  const url = await b.cluster.database('create');
  // The baseline route's scratch table (bench/web.baseline.ts is the web with that route added).
  await b
    .pool(url)
    .query(
      'CREATE TABLE bench_scratch (id uuid PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
    );
  const web = await startWeb(url, b.logDir, 'web-create', {}, 'bench/web.baseline.ts');
  const named = { web: web.pid, load: b.load.pid };
  const run = async (path: string, ratePerSecond?: number) => {
    const before = cpuSnapshot(named);
    const result = await b.load.call('closedLoop', {
      port: web.port,
      connections: b.sizes.createConnections,
      warmupMs: b.sizes.createWarmupMs,
      durationMs: b.sizes.createMs,
      request: { method: 'POST', path, headers: { 'Content-Type': 'application/json' }, body: DEFAULT_SCENARIO },
      expect: 201,
      ratePerSecond,
    });
    return { ...result, cpu: perRequest(cpuSince(before, cpuSnapshot(named)), result.completed) };
  };
  try {
    const base = await run(BASELINE_PATH);
    if (base.errors > 0) throw new Error(`the baseline route failed: ${base.errorSamples.join('; ')}`);
    const real = await run('/api/scenarios');
    // The same connections offering the target rate, no more: the latency of a create when the web
    // keeps up, which a saturating closed loop cannot show (there, latency = connections ÷ rate).
    const paced = await run('/api/scenarios', PACED_RATE);
    const label = `POST, ${b.sizes.createConnections} conns, ${b.sizes.createMs / 1000} s`;
    b.rows.push(
      {
        n: '4',
        figure: `Create throughput (${label})`,
        value: real.perSecond,
        unit: '/s',
        baseline: { label: 'one-INSERT route', value: base.perSecond },
        ratio: real.perSecond / base.perSecond,
        target: '≥ 1,500/s and ≥ 0.3 × baseline',
        met: real.perSecond >= 1500 && real.perSecond >= 0.3 * base.perSecond,
      },
      {
        n: '4',
        figure: 'Create latency p99',
        value: real.p99,
        unit: 'ms',
        baseline: { label: 'one-INSERT route p99', value: base.p99 },
        ratio: real.p99 / base.p99,
        target: '≤ 30 ms',
        met: real.p99 <= 30,
      },
      {
        n: '4',
        figure: `Create latency p99, paced at ${PACED_RATE.toLocaleString('en-US')}/s offered (${paced.perSecond.toFixed(0)}/s served)`,
        value: paced.p99,
        unit: 'ms',
        target: 'context',
        met: null,
      },
      {
        n: '4',
        figure: 'Create errors (warm-up included)',
        value: real.errors + paced.errors,
        unit: 'count',
        target: '0',
        met: real.errors + paced.errors === 0,
      },
    );
    b.notes.push(
      `#4: create p50 ${ms(real.p50)} (baseline ${ms(base.p50)}); paced at ${PACED_RATE}/s: p50 ${ms(paced.p50)}, p99 ${ms(paced.p99)}, from each request's scheduled start${real.errors + paced.errors ? `; errors: ${[...real.errorSamples, ...paced.errorSamples].join('; ')}` : ''}`,
      `#4: CPU per request: ${real.cpu} (baseline route: ${base.cpu})`,
    );
  } finally {
    await web.stop();
  }
}

/** #8 and #9 on one succeeded scenario, through the running web process. */
export async function statements(b: Bench, url: string, webPort: number, scenarioId: string): Promise<void> {
  const { sizes, load } = b;
  const path = `/api/scenarios/${scenarioId}/statements`;
  const gzip = { method: 'GET', path, headers: { 'Accept-Encoding': 'gzip' } };
  const select = await load.call('selectResult', {
    databaseUrl: url,
    scenarioId,
    samples: sizes.statementSamples,
    clients: sizes.statementClients,
    durationMs: sizes.statementLoadMs,
  });
  const one = await load.call('sequential', {
    port: webPort,
    request: gzip,
    samples: sizes.statementSamples,
    warmup: 5,
    expect: 200,
  });
  // The row holds the stored form (shared/result/stored.form.ts), smaller than the gzip JSON made from it.
  if (one.headers['content-encoding'] !== 'gzip' || one.bytes < select.bytes) {
    throw new Error(`statements: expected gzip of at least the stored ${select.bytes} bytes, got ${one.bytes}`);
  }
  const many = await load.call('closedLoop', {
    port: webPort,
    connections: sizes.statementClients,
    warmupMs: 500,
    durationMs: sizes.statementLoadMs,
    request: gzip,
    expect: 200,
  });
  if (many.errors > 0) throw new Error(`statements under load: ${many.errorSamples.join('; ')}`);
  const p50 = median(one.latencyMs);
  const base = median(select.latencyMs);
  b.rows.push(
    {
      n: '8',
      figure: `Statements (hourly, gzip ${(one.bytes / 1e6).toFixed(2)} MB made from ${(select.bytes / 1e6).toFixed(2)} MB stored), 1 client, p50`,
      value: p50,
      unit: 'ms',
      baseline: { label: 'SELECT of the row p50', value: base },
      ratio: p50 / base,
      target: '≤ 1.5 × baseline',
      met: p50 <= 1.5 * base,
    },
    {
      n: '8',
      figure: `Statements, ${sizes.statementClients} clients`,
      value: many.perSecond,
      unit: '/s',
      baseline: { label: `SELECT, ${sizes.statementClients} clients`, value: select.perSecond },
      ratio: many.perSecond / select.perSecond,
      target: '≥ 50 req/s',
      met: many.perSecond >= 50,
    },
  );
  const etag = one.headers.etag;
  const nm = await load.call('sequential', {
    port: webPort,
    request: { method: 'GET', path, headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': etag } },
    samples: sizes.notModifiedSamples,
    warmup: 50,
    expect: 304,
  });
  b.rows.push({
    n: '9',
    figure: 'Statements If-None-Match → 304, p50',
    value: median(nm.latencyMs),
    unit: 'ms',
    target: '≤ 2 ms',
    met: median(nm.latencyMs) <= 2,
  });
}

/** Inserts `n` succeeded scenarios with the default scenario's stored inputs and a real summary. */
async function seedScenarios(b: Bench, url: string, n: number, summaryJson: string): Promise<void> {
  const pool = b.pool(url);
  const inputs = JSON.stringify(resolvedInputs());
  // UUIDv7 ids built from each row's timestamp, so newest-first is the primary key's order, as in production.
  await pool.query(
    `INSERT INTO scenarios (id, name, status, progress, stage, attempt, inputs, summary, last_seq,
                            created_at, updated_at, started_at, finished_at, workspace)
     SELECT (lpad(to_hex((extract(epoch FROM t.ts) * 1000)::bigint), 12, '0') || '7' || substr(t.h, 1, 3) || '8'
             || substr(t.h, 4, 15))::uuid,
            'bench list ' || g.i, 'succeeded', 1, 'done', 1, $1::json, $2::json, 44,
            t.ts, t.ts + interval '120 ms', t.ts + interval '2 ms', t.ts + interval '120 ms', 'default'
       FROM generate_series(1, $3::int) AS g(i)
      CROSS JOIN LATERAL (SELECT now() - ($3::int - g.i) * interval '10 ms' AS ts, md5(g.i::text) AS h) t`,
    [inputs, summaryJson, n],
  );
  await pool.query('VACUUM ANALYZE scenarios');
}

/** #10: GET /api/scenarios over `listRows` scenarios, on a web process that serves nothing else. */
export async function list(b: Bench, summaryJson: string): Promise<void> {
  const n = b.sizes.listRows;
  const url = await b.cluster.database('list');
  const t0 = performance.now();
  await seedScenarios(b, url, n, summaryJson);
  b.notes.push(`#10: seeding ${count(n)} scenarios took ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const web = await startWeb(url, b.logDir, 'web-list');
  try {
    const before = rssMb(web.pid);
    const peakReset = resetPeakRss(web.pid);
    let sampled = before;
    const sampler = setInterval(() => {
      sampled = Math.max(sampled, rssMb(web.pid));
    }, 10);
    const runs = [];
    try {
      for (let i = 0; i < b.sizes.listRuns; i++) {
        const r = await b.load.call('list', { port: web.port, path: '/api/scenarios' });
        if (r.total !== n) throw new Error(`the list reported ${r.total} scenarios, expected ${n}`);
        runs.push(r);
      }
    } finally {
      clearInterval(sampler);
    }
    const peak = peakReset ? Math.max(sampled, peakRssMb(web.pid)) : sampled;
    const total = median(runs.map((r) => r.totalMs)) / 1000;
    const ttfb = median(runs.map((r) => r.ttfbMs));
    const figure = (what: string) => `GET /api/scenarios, ${count(n)} rows: ${what}`;
    b.rows.push(
      { n: '10', figure: figure('total'), value: total, unit: 's', target: '≤ 1.5 s', met: total <= 1.5 },
      { n: '10', figure: figure('time to first byte'), value: ttfb, unit: 'ms', target: '≤ 100 ms', met: ttfb <= 100 },
      {
        n: '10',
        figure: figure('web RSS growth'),
        value: peak - before,
        unit: 'MB',
        target: '≤ 50 MB',
        met: peak - before <= 50,
      },
    );
    b.notes.push(
      `#10: ${(runs[0].bytes / 1e6).toFixed(1)} MB of JSON per list; median of ${runs.length} run(s); RSS ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB`,
    );
  } finally {
    await web.stop();
  }
}
