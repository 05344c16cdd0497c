// A load end to end on real processes (web + worker): a battery moving noon solar to the evening
// load posted through the API, calculated by the worker, its statements read back (the load's KPIs,
// annual figures, statement lines, load_hourly and delivered_hourly in full, by ?year and as CSV
// columns); and an optimization "minimise lcod_nominal subject to hourly_match_percent ≥ 90" over
// solar, wind, battery power and energy, accepted and run, with the battery declined (power 0) a
// valid point.
import t from 'tap';
import { DEFAULT_SCENARIO, getJson, postScenario } from './helpers/http.ts';
import { loadSizing, noonSolarToEvening } from './helpers/load.inputs.ts';
import { startStack, withProcessLogs } from './helpers/stack.ts';

const stack = await startStack({ workers: [{}] });
const { web } = stack;
t.teardown(() => stack.stop());

t.test('a battery serving an evening load from noon solar, through the API', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const created = await postScenario(web.baseUrl, {
      ...DEFAULT_SCENARIO,
      name: 'noon to evening',
      ...noonSolarToEvening(),
    });
    t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 300));
    const id = created.json.id as string;
    const done = await stack
      .follow(`/api/scenarios/${id}/events`)
      .until((e) => e.event === 'succeeded' || e.event === 'failed', 120_000);
    t.equal(done.event, 'succeeded', JSON.stringify(done.data));

    const full = await getJson(`${web.baseUrl}/api/scenarios/${id}/statements`);
    t.equal(full.status, 200);
    const s = full.json as Record<string, unknown> & {
      kpis: Record<string, number>;
      annual: Array<Record<string, number> & { availability_month_percent?: number[] }>;
      income_statement: Array<{ revenue: Record<string, number>; operating_expenses: Record<string, number> }>;
    };
    t.equal(s.kpis.hourly_match_percent, 100, 'hourly match 100 %');
    t.equal(s.kpis.cfe_percent, 100, 'CFE 100 %');
    t.equal(s.kpis.unmet_mwh_year1, 0, 'nothing unmet');
    t.equal(s.annual[0].delivered_to_load_mwh, 160 * 365, 'delivered = 160 MWh a day');
    t.equal(s.annual[0].storage_discharge_mwh, 160 * 365, 'all of it from the battery');
    t.equal(s.annual[0].availability_month_percent?.length, 12, 'availability of each month');
    t.ok(Math.abs(s.income_statement[0].revenue.load_contract - 60 * 160 * 365) < 1e-3, 'contract revenue line');
    t.ok(s.income_statement[0].revenue.load_excess > 0, 'excess revenue line');
    t.equal(
      s.income_statement[0].operating_expenses.load_shortfall_penalty,
      0,
      'no penalty line amount without thresholds',
    );
    const load = s.load_hourly as number[][];
    const delivered = s.delivered_hourly as number[][];
    t.equal(load.length, 25, '25 years of load_hourly');
    t.same(load[0].slice(16, 24), [0, 0, 40, 40, 40, 40, 0, 0], 'the load of day 1');
    t.same(delivered[3].slice(18, 22), [40, 40, 40, 40], 'delivered in year 4, day 1');

    const year = await getJson(`${web.baseUrl}/api/scenarios/${id}/statements?year=2`);
    t.equal(year.status, 200);
    t.same(year.json.load_hourly, load[1], '?year=2: load_hourly');
    t.same(year.json.delivered_hourly, delivered[1], '?year=2: delivered_hourly');
    // The load's split, as the engine computed it: in the evening all from the battery.
    const split = year.json as Record<string, number[]>;
    t.same(split.load_battery_hourly.slice(18, 22), [40, 40, 40, 40], '?year=2: served from the battery');
    t.same(split.load_direct_hourly.slice(18, 22), [0, 0, 0, 0], '?year=2: none served directly');
    t.same(split.load_unmet_hourly.slice(16, 24), [0, 0, 0, 0, 0, 0, 0, 0], '?year=2: none unmet');
    t.same(
      (s.load_excess_hourly as number[][])[1],
      year.json.load_excess_hourly,
      'the excess: ?year=2 = the full form',
    );

    const csv = (await (await fetch(`${web.baseUrl}/api/scenarios/${id}/statements?format=csv`)).text())
      .trimEnd()
      .split('\n');
    t.equal(
      csv[0],
      'year,hour,timestamp,solar_mwh,wind_mwh,storage_charge_mwh,storage_discharge_mwh,storage_soc_mwh,grid_mwh,load_mwh,delivered_mwh,load_direct_mwh,load_battery_mwh,load_unmet_mwh,load_excess_mwh',
    );
    const row = csv[1 + 8760 + 19].split(',');
    t.same([row[0], row[1], row[9], row[10]], ['2', '19', '40', '40'], 'CSV: year 2, 19:00, load and delivered');
    t.same(row.slice(11), ['0', '40', '0', '0'], 'CSV: year 2, 19:00, all of it from the battery, none unmet');
  });
});

t.test('minimise lcod_nominal subject to hourly_match_percent ≥ 90: accepted and run', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const body = {
      name: 'cheapest plant serving 90 % of a flat load',
      base: {
        ...DEFAULT_SCENARIO,
        grid: { export_limit_mw: 150 },
        load: { flat_mw: 40 },
        storage: { power_mw: 20, energy_mwh: 80, dispatch: { strategy: 'load' } },
      },
      ...loadSizing(90, { solar: [0, 300, 20], wind: [0, 300, 20], power: [0, 80, 10], energy: [0, 320, 40] }),
      max_evaluations: 24,
    };
    const res = await fetch(`${web.baseUrl}/api/optimizations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const o = (await res.json()) as { id: string };
    t.equal(res.status, 201, JSON.stringify(o).slice(0, 400));
    await stack.follow(`/api/optimizations/${o.id}/events`).until((e) => e.event === 'finished', 400_000);
    const final = (await getJson(`${web.baseUrl}/api/optimizations/${o.id}`)).json as {
      status: string;
      evaluations: number;
      best: { values: Record<string, number>; kpis: Record<string, number> } | null;
    };
    t.equal(final.status, 'succeeded');
    const rows = (await getJson(`${web.baseUrl}/api/optimizations/${o.id}/evaluations`)).json as {
      evaluations: Array<{
        status: string;
        values: Record<string, number>;
        kpis: Record<string, number> | null;
        feasible: boolean;
      }>;
    };
    const ok = rows.evaluations.filter((e) => e.status === 'succeeded' && e.kpis);
    t.ok(ok.length >= 10, `${ok.length} of ${rows.evaluations.length} evaluations calculated`);
    t.ok(
      ok.every((e) => typeof e.kpis?.hourly_match_percent === 'number'),
      'every calculated evaluation reports hourly_match_percent',
    );
    t.ok(
      ok.every((e) => e.feasible === (e.kpis?.hourly_match_percent as number) >= 90),
      'feasible exactly when hourly_match_percent ≥ 90',
    );
    t.ok(
      ok.some((e) => e.values['/storage/power_mw'] === 0),
      'a point without a battery (power 0) is a valid, calculated point',
    );
    if (final.best) {
      t.ok(
        final.best.kpis.hourly_match_percent >= 90,
        `the best meets the constraint: ${JSON.stringify(final.best.values)}`,
      );
      const cheaper = ok.filter((e) => e.feasible && e.kpis && e.kpis.lcod_nominal < final.best!.kpis.lcod_nominal);
      t.same(cheaper, [], 'no feasible evaluation has a lower LCOD than the best');
    }
    const csv = await (await fetch(`${web.baseUrl}/api/optimizations/${o.id}/evaluations?format=csv`)).text();
    const header = csv.split('\n')[0].split(',');
    t.ok(
      ['hourly_match_percent', 'lcod_nominal', 'cfe_percent', 'buyer_cost_per_mwh'].every((k) => header.includes(k)),
      'CSV columns for the new KPIs',
    );
  });
});
