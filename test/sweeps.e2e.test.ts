// A sweep end to end on real processes: 50 variants created in one request, followed live over SSE
// (variant events, progress, finished; resumed from an event id), read back sorted and as CSV; each
// variant's statements are the bytes of the same inputs posted alone, for variants that reused the
// worker's profiles and for the first (which computed them); and no hourly data was kept.
import t from 'tap';
import { waitForJobsSettled } from './helpers/faults.ts';
import { getJson, postScenario } from './helpers/http.ts';
import { startStack, withProcessLogs } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const stack = await startStack({ workers: [{}] });
t.teardown(() => stack.stop());

const base = { site: { latitude: 35.2, longitude: -101.8 }, seed: 11 };
const body = {
  name: 'e2e mix',
  base,
  vary: [
    { path: '/solar/capacity_mw_dc', values: [0, 40, 80, 120, 160] },
    { path: '/grid/export_limit_mw', from: 100, to: 190, step: 10 },
  ],
};

async function post(path: string, payload: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${stack.web.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(payload),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : {} };
}

t.test('a 50-variant sweep, followed live, read back, and identical to scenarios posted alone', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const created = await post('/api/sweeps', body);
    t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 300));
    const sweep = created.json;
    t.equal(created.headers.get('location'), `/api/sweeps/${sweep.id}`);
    t.equal(sweep.counts.total, 50, '5 × 10 variants (grid)');
    t.same(sweep.parameters, ['/solar/capacity_mw_dc', '/grid/export_limit_mw']);

    const follower = stack.follow(`/api/sweeps/${sweep.id}/events`);
    const finished = await follower.until((e) => e.event === 'finished', 240_000);
    const variantEvents = follower.events.filter((e) => e.event === 'variant');
    t.equal(variantEvents.length, 50, 'one variant event per variant');
    t.same(
      variantEvents.map((e) => e.id),
      Array.from({ length: 50 }, (_, i) => i + 1),
      'ids 1..50, in order',
    );
    t.equal(finished.id, 51, 'then finished');
    t.same((finished.data as { counts: Record<string, number> }).counts, {
      total: 50,
      succeeded: 50,
      failed: 0,
      cancelled: 0,
    });
    // Claimed in batches: one fetch statement stamps its jobs with one started_on. A variant's row
    // is written before its job is completed, so 'finished' can come just before the last batch's
    // jobs leave 'active': wait for them to settle, then look.
    await waitForJobsSettled(stack.pool);
    const { rows: claims } = await stack.pool.query<{ n: number; states: string[] }>(
      `SELECT count(*)::int AS n, array_agg(DISTINCT j.state::text) AS states
         FROM pgboss.job j JOIN scenarios s ON s.id = j.id
        WHERE s.sweep_id = $1 GROUP BY j.started_on`,
      [sweep.id],
    );
    t.equal(
      claims.reduce((sum, c) => sum + c.n, 0),
      50,
      'every variant had one job',
    );
    t.ok(
      claims.every((c) => c.n <= 4 && c.states.length === 1 && c.states[0] === 'completed'),
      `no claim took more than WORKER_VARIANT_BATCH (4) variants, each job settled alone: ${JSON.stringify(claims)}`,
    );
    t.ok(
      claims.some((c) => c.n > 1),
      `variants queued together were claimed together: ${claims.map((c) => c.n)}`,
    );
    t.ok(
      follower.events.some((e) => e.event === 'progress'),
      'progress events',
    );
    t.ok(
      variantEvents.every(
        (e) => e.data.status === 'succeeded' && (e.data.kpis as Record<string, unknown>)?.equity_npv !== undefined,
      ),
      'each variant event carries its KPIs',
    );

    const resumed = stack.follow(`/api/sweeps/${sweep.id}/events`, { lastEventId: 45 });
    await resumed.until((e) => e.event === 'finished', 30_000);
    t.same(
      resumed.events.filter((e) => e.event !== 'progress').map((e) => e.id),
      [46, 47, 48, 49, 50, 51],
      'Last-Event-ID 45: only what came after',
    );
    const done = await fetch(`${stack.web.baseUrl}/api/sweeps/${sweep.id}/events`, {
      headers: { 'Last-Event-ID': '51' },
    });
    t.equal(done.status, 204, 'finished and up to date: 204');

    const after = await getJson(`${stack.web.baseUrl}/api/sweeps/${sweep.id}`);
    t.equal(after.json.status, 'succeeded');
    t.equal(after.json.progress, 1);

    const results = await getJson(`${stack.web.baseUrl}/api/sweeps/${sweep.id}/results?sort=-equity_npv`);
    const variants = results.json.variants as Array<{
      index: number;
      scenario_id: string;
      values: Record<string, number>;
      kpis: Record<string, number>;
      totals: Record<string, number>;
    }>;
    t.equal(variants.length, 50);
    const npvs = variants.map((v) => v.kpis.equity_npv);
    t.same(
      npvs,
      [...npvs].sort((a, b) => b - a),
      'sorted by equity NPV, descending',
    );
    const v37 = variants.find((v) => v.index === 37);
    t.same(
      v37?.values,
      { '/solar/capacity_mw_dc': 120, '/grid/export_limit_mw': 170 },
      'grid: the last parameter fastest',
    );
    t.ok(v37 && v37.totals.solar_mwh > 0 && v37.totals.curtailed_mwh >= 0, 'energy totals');
    const none = variants.filter((v) => v.values['/solar/capacity_mw_dc'] === 0);
    t.ok(
      none.every((v) => v.totals.solar_mwh === 0),
      'no solar, no solar energy',
    );

    const csv = await fetch(`${stack.web.baseUrl}/api/sweeps/${sweep.id}/results?format=csv`);
    const lines = (await csv.text()).trim().split('\n');
    t.equal(lines.length, 51, 'CSV: a header and a row per variant');
    t.match(lines[0], /^index,scenario_id,status,\/solar\/capacity_mw_dc,\/grid\/export_limit_mw,project_npv,/);
    t.match(lines[38], /^37,[0-9a-f-]{36},succeeded,120,170,/);

    const page = await getJson(`${stack.web.baseUrl}/api/scenarios?sweep_id=${sweep.id}&limit=20`);
    t.equal((page.json.items as unknown[]).length, 20, "the sweep's variants through the scenario list");
    t.ok((page.json.items as Array<{ sweep_id: string }>).every((i) => i.sweep_id === sweep.id));

    // No hourly data kept, said so; the statements without them are there.
    const first = variants.find((v) => v.index === 0);
    const full = await getJson(`${stack.web.baseUrl}/api/scenarios/${first?.scenario_id}/statements`);
    t.equal(full.status, 409);
    t.equal(full.json.hourly, 'not_kept');

    // Identical to the same inputs posted alone: variant 0 computed the profiles (a miss), the
    // others with the same design reused them (hits); one of each, and one of the second design.
    for (const index of [0, 23, 49]) {
      const v = variants.find((x) => x.index === index);
      const scenario = await getJson(`${stack.web.baseUrl}/api/scenarios/${v?.scenario_id}`);
      const alone = await postScenario(stack.web.baseUrl, scenario.json.inputs);
      t.equal(alone.status, 201);
      await stack.follow(`/api/scenarios/${alone.json.id}/events`).until((e) => e.event === 'succeeded', 60_000);
      // fetch decodes gzip itself: the JSON text as stored.
      const lite = async (id: string) =>
        JSON.parse(
          await (await fetch(`${stack.web.baseUrl}/api/scenarios/${id}/statements?hourly=false`)).text(),
        ) as Record<string, unknown>;
      const a = await lite(v?.scenario_id ?? '');
      const b = await lite(alone.json.id as string);
      t.equal(
        JSON.stringify({ ...a, scenario_id: null }),
        JSON.stringify({ ...b, scenario_id: null }),
        `variant ${index}: the same statements, byte for byte, as its inputs posted alone`,
      );
    }
  });
});

t.test('cancel: queued variants become cancelled with their jobs; a finished sweep is a 409', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const created = await post('/api/sweeps', {
      name: 'to cancel',
      base,
      vary: [{ path: '/wind/capacity_mw', from: 10, to: 400, step: 10 }],
    });
    t.equal(created.status, 201);
    const id = created.json.id;
    const cancelled = await post(`/api/sweeps/${id}/cancel`, {});
    t.equal(cancelled.status, 200);
    await waitUntil(async () => (await getJson(`${stack.web.baseUrl}/api/sweeps/${id}`)).json.finished_at, {
      timeoutMs: 60_000,
      what: 'the cancelled sweep to finish',
    });
    const sweep = (await getJson(`${stack.web.baseUrl}/api/sweeps/${id}`)).json as {
      status: string;
      counts: Record<string, number>;
    };
    t.equal(sweep.status, 'cancelled');
    t.equal(sweep.counts.cancelled + sweep.counts.succeeded + sweep.counts.failed, 40, 'every variant ended');
    t.ok(sweep.counts.cancelled > 0, 'some were cancelled before a worker took them');
    const { rows } = await stack.pool.query(
      `SELECT j.state, s.status FROM pgboss.job j JOIN scenarios s ON s.id = j.id WHERE s.sweep_id = $1`,
      [id],
    );
    t.ok(
      rows.every((r) => (r.status === 'cancelled') === (r.state === 'cancelled')),
      'a cancelled variant has a cancelled job, and only those',
    );
    t.equal((await post(`/api/sweeps/${id}/cancel`, {})).status, 409, 'a finished sweep: 409');
  });
});

t.test('a sweep of battery sizes: each variant is its inputs calculated alone, hourly data and KPIs', async (t) => {
  await withProcessLogs(t, stack, async () => {
    // The worker's engine thread keeps the plant's hours before the battery between these variants
    // (PlantMemo) and writes the battery's series into reused arrays: neither may show in a result.
    const created = await post('/api/sweeps', {
      name: 'battery sizes',
      base: {
        ...base,
        grid: { export_limit_mw: 120 },
        market: {
          merchant_hour_of_day_multipliers: Array.from({ length: 24 }, (_, h) => (h >= 17 && h < 21 ? 1.8 : 1)),
        },
        storage: { power_mw: 50, energy_mwh: 200 },
      },
      vary: [
        { path: '/storage/power_mw', values: [10, 40, 70] },
        { path: '/storage/energy_mwh', values: [20, 60, 140] },
      ],
      keep_hourly: true,
    });
    t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 300));
    const id = created.json.id as string;
    await stack.follow(`/api/sweeps/${id}/events`).until((e) => e.event === 'finished', 240_000);
    const results = await getJson(`${stack.web.baseUrl}/api/sweeps/${id}/results`);
    const variants = results.json.variants as Array<{ index: number; scenario_id: string; kpis: unknown }>;
    t.equal(variants.length, 9);
    const { calculate } = await import('../worker/engine/index.ts');
    for (const v of variants) {
      const scenario = await getJson(`${stack.web.baseUrl}/api/scenarios/${v.scenario_id}`);
      // The engine alone on the stored inputs (no cache, no memo, fresh arrays), in this process.
      const alone = calculate(scenario.json.inputs as Parameters<typeof calculate>[0]);
      t.equal(JSON.stringify(v.kpis), JSON.stringify(alone.kpis), `variant ${v.index}: the KPIs of a single run`);
    }
    // The hourly data as stored, against the same inputs posted alone: the first variant (a miss)
    // and two that reused the plant's hours.
    for (const index of [0, 4, 8]) {
      const v = variants.find((x) => x.index === index);
      const scenario = await getJson(`${stack.web.baseUrl}/api/scenarios/${v?.scenario_id}`);
      const alone = await postScenario(stack.web.baseUrl, scenario.json.inputs);
      t.equal(alone.status, 201);
      await stack.follow(`/api/scenarios/${alone.json.id}/events`).until((e) => e.event === 'succeeded', 60_000);
      const full = async (sid: string) =>
        JSON.parse(await (await fetch(`${stack.web.baseUrl}/api/scenarios/${sid}/statements`)).text()) as Record<
          string,
          unknown
        >;
      const a = await full(v?.scenario_id ?? '');
      const b = await full(alone.json.id as string);
      t.ok(Array.isArray(a.storage_soc_hourly), 'the battery series kept');
      t.equal(
        JSON.stringify({ ...a, scenario_id: null }),
        JSON.stringify({ ...b, scenario_id: null }),
        `variant ${index}: the same statements with hourly data, byte for byte, as its inputs posted alone`,
      );
    }
  });
});
