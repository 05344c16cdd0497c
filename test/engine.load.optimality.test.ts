// The `load` dispatch's optimality, proven against an exact LP solver (HiGHS, npm `highs`), as
// arbitrage's is (engine.storage.optimality.test.ts): horizons cut from real scenarios (the default
// site's solar and wind behind an export limit, a flat and an evening-heavy load, hourly merchant
// prices from HOPP's Iron Mountain 2015 price factors with negative hours, an hourly backup price),
// each solved by the engine's horizon solver and as the LP below; with and without a daily cycle
// limit the engine must reach each LP optimum within 0.5 % (it reaches it to rounding), and its plan
// must be valid (never above the LP, every bound kept). The gap distribution is printed.
//
// The horizon's LP, for each hour t: charge from four tiers, f_t ≤ free (curtailed by the limit, or
// excess that is not sold), q_t ≤ the plant's excess over the load (at its sale price p_t), g_t ≤
// the grid (only where the plant meets the load; at max(backup, p_t, 0)), v_t ≤ the plant's output that
// serves the load (at the service value w_t); f + q + g + v ≤ P; discharge to the unmet load
// l_t ≤ unmet and into the excess e_t, l + e ≤ min(P, room); s_t = s_{t−1} + η (f + q + g + v) − (l + e) / η,
// min ≤ s_t ≤ max; for each day Σ (l + e) ≤ cycles × E. Maximise
// Σ (w_t − c) l_t + (p_t − c) e_t − p_t q_t − gp_t g_t − w_t v_t.
import { readFileSync } from 'node:fs';
import highsModule from 'highs';
import t from 'tap';
import type { ScenarioInputs } from '../shared/schemas/inputs.ts';
import { HOURS_PER_YEAR } from '../shared/schemas/result.ts';
import { calculate } from '../worker/engine/index.ts';
import { backupFactor, contractPrice, excessPrices, prepareLoad } from '../worker/engine/load.ts';
import { prepareMarket } from '../worker/engine/market.ts';
import {
  type HorizonBattery,
  type HorizonHours,
  type HorizonPlan,
  HorizonSolver,
  objective,
} from '../worker/engine/storage.dispatch.ts';
import { fillHorizon, horizonBattery, type PlantHours } from '../worker/engine/storage.ts';
import { type DeepPartial, resolvedInputs } from './fixtures/inputs.ts';

const highsLoader = highsModule as unknown as typeof import('highs')['default'];
const highs = await highsLoader();
const factors = readFileSync(
  new URL('./fixtures/reference/hopp_ironmtn_2015_price_factors.csv', import.meta.url),
  'utf8',
)
  .trim()
  .split('\n')
  .map(Number);

const n = (x: number) => (Number.isFinite(x) ? x : 0);

/** The load horizon as an LP in CPLEX LP format. */
function lp(b: HorizonBattery, h: HorizonHours, soc0: number): string {
  const l = h.load as NonNullable<HorizonHours['load']>;
  const obj: string[] = [];
  const rows: string[] = [];
  const bounds: string[] = [];
  for (let t = 0; t < h.hours; t++) {
    const p = h.price[t];
    const c = b.dischargeCost;
    const room = Math.min(b.powerMw, h.room[t]);
    const lMax = l.value[t] - c > 0 ? Math.min(room, l.unmet[t]) : 0;
    const eMax = p - c > 0 ? room : 0;
    obj.push(
      `${l.value[t] - c} l${t}`,
      `${p - c} e${t}`,
      `${-(p + b.chargeCost)} q${t}`,
      `${-(l.gridPrice[t] + b.chargeCost)} g${t}`,
      `${-(l.value[t] + b.chargeCost)} v${t}`,
      `${-b.chargeCost} f${t}`,
    );
    rows.push(`c${t}: f${t} + q${t} + g${t} + v${t} <= ${b.powerMw}`);
    rows.push(`r${t}: l${t} + e${t} <= ${room}`);
    const prev = t === 0 ? '' : ` - s${t - 1}`;
    const rhs = t === 0 ? soc0 : 0;
    const eta = b.etaIn;
    rows.push(
      `b${t}: s${t}${prev} - ${eta} f${t} - ${eta} q${t} - ${eta} g${t} - ${eta} v${t} + ${1 / b.etaOut} l${t} + ${1 / b.etaOut} e${t} = ${rhs}`,
    );
    bounds.push(
      `0 <= f${t} <= ${Math.min(b.powerMw, h.free[t])}`,
      `0 <= q${t} <= ${h.priced[t]}`,
      `0 <= g${t} <= ${l.grid[t]}`,
      `0 <= v${t} <= ${l.serve[t]}`,
      `0 <= l${t} <= ${lMax}`,
      `0 <= e${t} <= ${eMax}`,
      `${b.socMinMwh} <= s${t} <= ${b.socMaxMwh}`,
    );
  }
  if (Number.isFinite(b.dailyDischargeMwh)) {
    for (let d = 0; d * 24 < h.hours; d++) {
      const ys = Array.from({ length: Math.min(24, h.hours - d * 24) }, (_, k) => `l${d * 24 + k} + e${d * 24 + k}`);
      rows.push(`d${d}: ${ys.join(' + ')} <= ${n(b.dailyDischargeMwh)}`);
    }
  }
  const text = `Maximize\n obj: ${obj.join(' + ')}\nSubject To\n ${rows.join('\n ')}\nBounds\n ${bounds.join('\n ')}\nEnd\n`;
  return text.replaceAll('+ -', '- ');
}

interface Case {
  name: string;
  inputs: DeepPartial<ScenarioInputs>;
}

const merchant = factors.map((f) => 45 * f);
// The buyer's grid: dear in the evening, cheap at night.
const backup = Array.from({ length: HOURS_PER_YEAR }, (_, i) => {
  const h = i % 24;
  return h >= 17 && h < 22 ? 140 : h < 6 ? 35 : 70;
});
const evening = Array.from({ length: HOURS_PER_YEAR }, (_, i) => {
  const h = i % 24;
  return h >= 17 && h < 23 ? 90 : h >= 8 && h < 17 ? 40 : 20;
});
const plant = {
  grid: { export_limit_mw: 110 },
  market: { merchant_hourly_prices: merchant },
};
const cases: Case[] = [
  {
    name: 'flat load, excess sold',
    inputs: {
      ...plant,
      load: { flat_mw: 60 },
      storage: { power_mw: 50, energy_mwh: 200, dispatch: { strategy: 'load' } },
    },
  },
  {
    name: 'evening load, grid charging at an hourly backup price',
    inputs: {
      ...plant,
      load: { hourly_mw: evening, backup: { price_per_mwh: backup } },
      storage: { power_mw: 60, energy_mwh: 240, charge_from_grid: true, dispatch: { strategy: 'load' } },
    },
  },
  {
    name: 'flat load, excess curtailed, one cycle a day',
    inputs: {
      ...plant,
      load: { flat_mw: 80, excess: 'curtail' },
      storage: { power_mw: 80, energy_mwh: 320, dispatch: { strategy: 'load', max_cycles_per_day: 1 } },
    },
  },
  {
    name: 'evening load, grid, variable O&M, half a cycle a day',
    inputs: {
      ...plant,
      load: { hourly_mw: evening, backup: { price_per_mwh: backup } },
      storage: {
        power_mw: 40,
        energy_mwh: 160,
        charge_from_grid: true,
        costs: { variable_om_per_mwh: 4 },
        dispatch: { strategy: 'load', max_cycles_per_day: 0.5 },
      },
    },
  },
];

const HORIZONS = 30;
const gaps: number[] = [];
const limitedGaps: number[] = [];
for (const c of cases) {
  t.test(c.name, async (t) => {
    const inputs = resolvedInputs(c.inputs);
    const battery = inputs.storage as NonNullable<typeof inputs.storage>;
    const load = prepareLoad(inputs);
    if (!load) throw new Error('a case without a load');
    const limited = calculate({ ...inputs, storage: undefined, load: undefined });
    const free = calculate({ ...inputs, storage: undefined, load: undefined, grid: {} });
    const years = 3;
    const hours = years * HOURS_PER_YEAR;
    const delivered = new Float64Array(hours);
    const surplus = new Float64Array(hours);
    for (let i = 0; i < hours; i++) {
      delivered[i] = limited.solar_hourly[i] + limited.wind_hourly[i];
      surplus[i] = Math.max(0, free.solar_hourly[i] + free.wind_hourly[i] - delivered[i]);
    }
    const market = prepareMarket(inputs);
    const price = new Float64Array(hours);
    const factor = new Float64Array(years);
    const contract = new Float64Array(years);
    for (let y = 0; y < years; y++) {
      excessPrices(load, market, y, price.subarray(y * HOURS_PER_YEAR, (y + 1) * HOURS_PER_YEAR));
      contract[y] = contractPrice(load, y);
      factor[y] = backupFactor(load, y);
    }
    const plantHours: PlantHours = {
      delivered,
      surplus,
      price,
      limitMw: inputs.grid.export_limit_mw ?? Number.POSITIVE_INFINITY,
      load: { mw: load.mw, contract, backupPrice: load.backupPrice, backupFactor: factor, sell: load.sell },
    };
    const solver = new HorizonSolver();
    const a = () => new Float64Array(48);
    const h: HorizonHours = {
      hours: 48,
      price: a(),
      free: a(),
      priced: a(),
      room: a(),
      load: { serve: a(), unmet: a(), value: a(), grid: a(), gridPrice: a() },
    };
    const plan = { charge: a(), discharge: a() };
    const mine: number[] = [];
    const withLimit = battery.dispatch.max_cycles_per_day !== null;
    const seen = { discharge: 0, grid: 0, limit: 0 };
    for (let k = 0; k < HORIZONS; k++) {
      const day = (k * 37 + 11) % (years * 365 - 2);
      const capacity = battery.energy_mwh * (1 - 0.004 * (k % 10));
      const b = horizonBattery(battery, capacity, battery.costs.variable_om_per_mwh);
      fillHorizon(battery, plantHours, day * 24, h);
      const soc0 = b.socMinMwh + ((k % 5) / 4) * (b.socMaxMwh - b.socMinMwh);
      const value = solver.solve(b, h, soc0, plan);
      t.equal(value, objective(b, h, plan), 'the objective of the plan returned');
      const solution = highs.solve(lp(b, h, soc0));
      t.equal(solution.Status, 'Optimal', `day ${day}: HiGHS finds the optimum`);
      const optimum = solution.ObjectiveValue;
      const gap = optimum - value;
      const relative = gap / Math.max(Math.abs(optimum), 1);
      (withLimit ? limitedGaps : gaps).push(relative);
      mine.push(relative);
      const what = `day ${day}: ${value.toFixed(2)} vs LP ${optimum.toFixed(2)} (gap ${(relative * 100).toFixed(6)} %)`;
      t.ok(relative <= 0.005, what);
      t.ok(gap >= -1e-6 * Math.max(1, Math.abs(optimum)), 'never above the LP (the plan is feasible)');
      t.equal(violation(b, h, soc0, plan), '', `day ${day}: the plan keeps every bound`);
      const l = h.load as NonNullable<HorizonHours['load']>;
      for (let i = 0; i < h.hours; i++) {
        if (plan.discharge[i] > 0) seen.discharge++;
        if (plan.charge[i] > h.free[i] + h.priced[i] + 1e-6 && l.grid[i] > 0) seen.grid++;
      }
      const day0 = plan.discharge.subarray(0, 24).reduce((x, v) => x + v, 0);
      if (day0 >= b.dailyDischargeMwh * (1 - 1e-9)) seen.limit++;
    }
    t.comment(`${c.name}: ${describe(mine)}`);
    t.comment(
      `hours discharging ${seen.discharge}, charging from the grid ${seen.grid}, horizons at the daily limit ${seen.limit}`,
    );
    t.ok(seen.discharge > 0, 'the battery works (not a trivial idle optimum)');
    if (battery.charge_from_grid) t.ok(seen.grid > 0, 'the grid is used');
    if (withLimit) t.ok(seen.limit > 0, 'the daily limit binds in some horizons');
  });
}

t.test('the gap distributions', async (t) => {
  t.equal(gaps.length + limitedGaps.length, HORIZONS * cases.length, `${gaps.length + limitedGaps.length} horizons`);
  t.ok(gaps.length + limitedGaps.length >= 100, 'at least 100 horizons');
  t.comment(`without a cycle limit: ${describe(gaps)}`);
  t.comment(`with a daily cycle limit: ${describe(limitedGaps)}`);
  t.ok(Math.max(...gaps) <= 0.005, 'without a cycle limit, every horizon within 0.5 % of its LP optimum');
  t.ok(Math.max(...limitedGaps) <= 0.005, 'with a daily cycle limit, every horizon within 0.5 % of its LP optimum');
});

/** The first bound the plan breaks (power, SOC, room, the daily limit), or '' when none. */
function violation(b: HorizonBattery, h: HorizonHours, soc0: number, plan: HorizonPlan): string {
  const l = h.load as NonNullable<HorizonHours['load']>;
  const tol = 1e-6;
  let soc = soc0;
  for (let i = 0; i < h.hours; i++) {
    const x = plan.charge[i];
    const y = plan.discharge[i];
    if (x > 0 && y > 0) return `hour ${i}: charges and discharges`;
    const chargeable = h.free[i] + h.priced[i] + l.grid[i] + l.serve[i];
    if (x > Math.min(b.powerMw, chargeable) + tol) return `hour ${i}: charge ${x}`;
    if (y > Math.min(b.powerMw, h.room[i]) + tol) return `hour ${i}: discharge ${y}`;
    if (x > h.free[i] + h.priced[i] + tol && l.unmet[i] > 0 && x > h.free[i] + h.priced[i] + l.serve[i] + tol) {
      return `hour ${i}: grid charging while the load is short`;
    }
    soc += b.etaIn * x - y / b.etaOut;
    if (soc < b.socMinMwh - tol || soc > b.socMaxMwh + tol) return `hour ${i}: SOC ${soc}`;
  }
  for (let d = 0; d * 24 < h.hours; d++) {
    const sum = plan.discharge.subarray(d * 24, Math.min(h.hours, d * 24 + 24)).reduce((a, v) => a + v, 0);
    if (sum > b.dailyDischargeMwh * (1 + 1e-9)) return `day ${d}: discharge ${sum}`;
  }
  return '';
}

function describe(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const pct = (q: number) =>
    `${(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] * 100).toExponential(2)} %`;
  const exact = values.filter((v) => Math.abs(v) <= 1e-9).length;
  return `n ${values.length}, ≤ 1e-9: ${exact}, median ${pct(0.5)}, p90 ${pct(0.9)}, p99 ${pct(0.99)}, max ${pct(1)}`;
}
