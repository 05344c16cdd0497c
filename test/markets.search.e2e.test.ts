// The market KPIs (docs/markets.md) in sweeps and the optimizer, through HTTP with a real worker: a
// sweep over the battery's power with a capacity payment on HOPP's top-hours rule, read back sorted
// by capacity_credit_percent; an optimization "maximise equity NPV with reserves" whose constraint
// asks a minimum ancillary_revenue. Each variant's and evaluation's KPIs are the engine's own for the
// same inputs, and the optimizer's best is the exhaustive grid's best feasible point.
import t from 'tap';
import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import { loadReserveSolver } from '../worker/engine/index.ts';
import { getJson, postJson } from './helpers/http.ts';
import {
  bestIndex,
  engineEvaluator,
  exhaustive,
  searchProblem,
  type TestProblem,
} from './helpers/optimizations.problems.ts';
import { startStack, withProcessLogs } from './helpers/stack.ts';

await loadReserveSolver();
const stack = await startStack({ workers: [{}] });
t.teardown(() => stack.stop());

const site = { latitude: 35.2, longitude: -101.8 };
/** A merchant plant whose evening (17:00–21:00) is twice the mean: the battery has something to sell into. */
const eveningPeak = Array.from({ length: 24 }, (_, h) => (h >= 17 && h < 21 ? 2 : 1));
/** A system load highest at 18:00–19:59, higher in summer: HOPP's top hours fall in the evening. */
const systemLoad = Array.from({ length: HOURS_PER_YEAR }, (_, h) => {
  const hod = h % 24;
  return 1000 + (hod === 18 || hod === 19 ? 400 : 0) + 100 * Math.sin((Math.PI * Math.floor(h / 24)) / 365);
});

interface Variant {
  index: number;
  values: Record<string, number>;
  kpis: Record<string, number | null>;
}

t.test('a sweep over battery power, sorted by capacity credit: the engine-direct credits, in order', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const base = {
      site,
      seed: 7,
      solar: { model: 'pvwatts_v5' },
      grid: { export_limit_mw: 150 },
      market: {
        ppa_share: 0,
        merchant_hour_of_day_multipliers: eveningPeak,
        capacity: {
          price_per_mw_year: 50_000,
          escalation_percent: 0,
          credit: { top_hours: 50, system_load_mw: systemLoad },
        },
      },
      storage: { power_mw: 10, energy_mwh: 80 },
    };
    const powers = [10, 20, 40, 60];
    const created = await postJson(`${stack.web.baseUrl}/api/sweeps`, {
      name: 'capacity credit by battery power',
      base,
      vary: [{ path: '/storage/power_mw', values: powers }],
    });
    t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 300));
    const id = created.json.id as string;
    await stack.follow(`/api/sweeps/${id}/events`).until((e) => e.event === 'finished', 240_000);
    const results = await getJson(`${stack.web.baseUrl}/api/sweeps/${id}/results?sort=-capacity_credit_percent`);
    t.equal(results.status, 200);
    const variants = results.json.variants as Variant[];
    t.equal(variants.length, powers.length);
    const credits = variants.map((v) => v.kpis.capacity_credit_percent as number);
    t.same(
      credits,
      [...credits].sort((a, b) => b - a),
      `sorted by capacity credit, descending: ${credits.map((c) => c.toFixed(2)).join(', ')}`,
    );
    const problem: TestProblem = {
      name: 'sweep',
      base,
      variables: [{ path: '/storage/power_mw', min: 10, max: 60, step: 10 }],
      objective: { maximize: 'equity_npv' },
      constraints: [],
    };
    const direct = engineEvaluator(problem);
    for (const v of variants) {
      const power = v.values['/storage/power_mw'];
      const m = direct.evaluate([power]);
      t.equal(v.kpis.capacity_credit_percent, m?.capacity_credit_percent, `${power} MW: the engine's credit`);
      t.ok(Math.abs((v.kpis.equity_npv as number) - (m?.equity_npv as number)) <= 1, `${power} MW: its equity NPV`);
    }
    t.ok(new Set(credits).size > 1, 'the battery power moves the credit');
  });
});

t.test(
  'maximise equity NPV with reserves, ancillary revenue ≥ a floor: the best feasible battery of the grid',
  async (t) => {
    await withProcessLogs(t, stack, async () => {
      const problem: TestProblem = {
        name: 'a battery with reserves',
        base: {
          site,
          seed: 7,
          solar: { model: 'pvwatts_v5' },
          market: {
            ppa_share: 0,
            merchant_hour_of_day_multipliers: eveningPeak,
            ancillary: [
              {
                name: 'reg_up',
                direction: 'up',
                price_per_mw_hour: 8,
                duration_hours: 1,
                deployed_share: 0.1,
                escalation_percent: 0,
              },
            ],
          },
          // Dear power (1,500 per kW): each 10 MW more costs more than its reserves bring.
          storage: { power_mw: 10, energy_mwh: 80, costs: { capex_per_kw: 1500 } },
        },
        variables: [{ path: '/storage/power_mw', min: 10, max: 40, step: 10 }],
        objective: { maximize: 'equity_npv' },
        // About 25 M of reserve revenue over 25 years per 10 MW: 10 MW falls short ("the cheapest battery
        // that earns 40 M in reserves": every NPV is negative, the least negative feasible one wins).
        constraints: [{ kpi: 'ancillary_revenue', min: 40_000_000 }],
      };
      const created = await postJson(`${stack.web.baseUrl}/api/optimizations`, {
        name: problem.name,
        base: problem.base,
        variables: problem.variables,
        objective: problem.objective,
        constraints: problem.constraints,
        max_evaluations: 4,
      });
      t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 300));
      const id = created.json.id as string;
      await stack.follow(`/api/optimizations/${id}/events`).until((e) => e.event === 'finished', 280_000);
      const final = (await getJson(`${stack.web.baseUrl}/api/optimizations/${id}`)).json as {
        status: string;
        feasible: boolean;
        best: { values: Record<string, number>; kpis: Record<string, number> };
      };
      t.equal(final.status, 'succeeded');
      t.equal(final.feasible, true);
      const rows = (await getJson(`${stack.web.baseUrl}/api/optimizations/${id}/evaluations`)).json
        .evaluations as Array<{
        values: Record<string, number>;
        kpis: Record<string, number> | null;
        feasible: boolean;
      }>;
      // The exhaustive grid on the engine directly: 10, 20, 30, 40 MW.
      const direct = engineEvaluator(problem);
      const grid = exhaustive(problem, direct.evaluate);
      const search = searchProblem(problem, 4);
      const b = bestIndex(search, grid) as number;
      const floor = 40_000_000;
      const lines = grid.map(
        (g) => `${g.values[0]} MW: NPV ${g.metrics?.equity_npv}, ancillary ${g.metrics?.ancillary_revenue}`,
      );
      t.ok(
        grid.some((g) => (g.metrics?.ancillary_revenue ?? 0) < floor),
        `the floor excludes a battery: ${lines.join('; ')}`,
      );
      const unconstrained = bestIndex({ ...search, constraints: [] }, grid) as number;
      t.not(unconstrained, b, 'and moves the best (without it, another power wins)');
      t.equal(
        final.best.values['/storage/power_mw'],
        grid[b].values[0],
        `the service's best is the grid's: ${lines[b]}`,
      );
      t.ok(final.best.kpis.ancillary_revenue >= floor, 'its ancillary revenue meets the floor');
      for (const row of rows) {
        const m = direct.evaluate([row.values['/storage/power_mw']]);
        t.ok(
          Math.abs((row.kpis?.ancillary_revenue ?? Number.NaN) - (m?.ancillary_revenue as number)) <= 1,
          `${row.values['/storage/power_mw']} MW: the engine's ancillary revenue`,
        );
        t.equal(row.feasible, (m?.ancillary_revenue as number) >= floor, 'feasible exactly when it meets the floor');
      }
    });
  },
);
