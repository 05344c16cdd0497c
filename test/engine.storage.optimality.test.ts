// The dispatch's optimality, proven against an exact LP solver (HiGHS, npm `highs`): horizons cut
// from real scenarios (hourly merchant prices from HOPP's Iron Mountain 2015 price factors, with
// negative hours; PPA time-of-delivery factors; solar and wind behind a binding export limit; the
// battery's SOC at the start varied), each solved by the engine's horizon solver and as the LP below;
// with and without a daily cycle limit the engine must reach each LP optimum within 0.5 % (it
// reaches it to rounding), and its plan must be valid (never above the LP). The gap distributions
// are printed as test comments.
//
// The horizon's LP: for each hour t, free charge f_t ≤ the energy the limit would curtail, priced
// charge q_t ≤ the plant's sale (+ the grid when allowed), discharge y_t ≤ the room under the limit
// (0 where the price is not above the variable O&M: never discharge at a loss), f_t + q_t ≤ P,
// s_t = s_{t−1} + η (f_t + q_t) − y_t / η, min ≤ s_t ≤ max, and for each day Σ y_t ≤ cycles × E.
// Maximise Σ (p_t − c) y_t − p_t q_t.
import { readFileSync } from 'node:fs';
import highsModule from 'highs';
import t from 'tap';
import type { ScenarioInputs } from '../shared/schemas/inputs.ts';
import { HOURS_PER_YEAR } from '../shared/schemas/result.ts';
import { calculate } from '../worker/engine/index.ts';
import { hourPrices, prepareMarket } from '../worker/engine/market.ts';
import {
  type HorizonBattery,
  type HorizonHours,
  type HorizonPlan,
  HorizonSolver,
  objective,
} from '../worker/engine/storage.dispatch.ts';
import { fillHorizon, horizonBattery } from '../worker/engine/storage.ts';
import { type DeepPartial, resolvedInputs } from './fixtures/inputs.ts';

// A CommonJS module: its default import is the loader function itself.
const highsLoader = highsModule as unknown as typeof import('highs')['default'];
const highs = await highsLoader();
const factors = readFileSync(
  new URL('./fixtures/reference/hopp_ironmtn_2015_price_factors.csv', import.meta.url),
  'utf8',
)
  .trim()
  .split('\n')
  .map(Number);

/** The horizon as an LP in CPLEX LP format. */
function lp(b: HorizonBattery, h: HorizonHours, soc0: number): string {
  const obj: string[] = [];
  const rows: string[] = [];
  const bounds: string[] = [];
  for (let t = 0; t < h.hours; t++) {
    const p = h.price[t];
    const yMax = p - b.dischargeCost > 0 ? Math.min(b.powerMw, h.room[t]) : 0;
    obj.push(`${p - b.dischargeCost} y${t}`, `${-(p + b.chargeCost)} q${t}`, `${-b.chargeCost} f${t}`);
    rows.push(`c${t}: f${t} + q${t} <= ${b.powerMw}`);
    const prev = t === 0 ? '' : ` - s${t - 1}`;
    const rhs = t === 0 ? soc0 : 0;
    rows.push(`b${t}: s${t}${prev} - ${b.etaIn} f${t} - ${b.etaIn} q${t} + ${1 / b.etaOut} y${t} = ${rhs}`);
    bounds.push(
      `0 <= f${t} <= ${Math.min(b.powerMw, h.free[t])}`,
      `0 <= q${t} <= ${h.priced[t]}`,
      `0 <= y${t} <= ${yMax}`,
      `${b.socMinMwh} <= s${t} <= ${b.socMaxMwh}`,
    );
  }
  if (Number.isFinite(b.dailyDischargeMwh)) {
    for (let d = 0; d * 24 < h.hours; d++) {
      const ys = Array.from({ length: Math.min(24, h.hours - d * 24) }, (_, k) => `y${d * 24 + k}`);
      rows.push(`d${d}: ${ys.join(' + ')} <= ${b.dailyDischargeMwh}`);
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
const tod = Array.from({ length: 12 }, (_, m) =>
  Array.from({ length: 24 }, (_, h) => (h >= 16 && h < 21 ? (m >= 5 && m <= 8 ? 2.2 : 1.5) : h < 6 ? 0.7 : 1)),
);
const plant = { grid: { export_limit_mw: 110 }, market: { merchant_hourly_prices: merchant, ppa_share: 0.5 } };
const cases: Case[] = [
  { name: 'arbitrage, merchant prices', inputs: { ...plant, storage: { power_mw: 100, energy_mwh: 400 } } },
  {
    name: 'arbitrage, PPA time-of-delivery factors',
    inputs: {
      ...plant,
      market: { ...plant.market, ppa_month_hour_multipliers: tod },
      storage: { power_mw: 50, energy_mwh: 200, costs: { variable_om_per_mwh: 3 } },
    },
  },
  {
    name: 'arbitrage with the grid, one cycle a day',
    inputs: {
      ...plant,
      storage: { power_mw: 60, energy_mwh: 240, charge_from_grid: true, dispatch: { max_cycles_per_day: 1 } },
    },
  },
  {
    name: 'capture, half a cycle a day',
    inputs: {
      ...plant,
      storage: { power_mw: 80, energy_mwh: 160, dispatch: { strategy: 'capture', max_cycles_per_day: 0.5 } },
    },
  },
];

const gaps: number[] = [];
const limitedGaps: number[] = [];
for (const c of cases) {
  t.test(c.name, async (t) => {
    const inputs = resolvedInputs(c.inputs);
    const battery = inputs.storage as NonNullable<typeof inputs.storage>;
    // The plant with and without its limit: what it delivers, and what the limit takes.
    const limited = calculate({ ...inputs, storage: undefined });
    const free = calculate({ ...inputs, storage: undefined, grid: {} });
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
    for (let y = 0; y < years; y++)
      hourPrices(market, y + 1, price.subarray(y * HOURS_PER_YEAR, (y + 1) * HOURS_PER_YEAR));
    const plantHours = { delivered, surplus, price, limitMw: inputs.grid.export_limit_mw ?? Number.POSITIVE_INFINITY };
    const solver = new HorizonSolver();
    const h: HorizonHours = {
      hours: 48,
      price: new Float64Array(48),
      free: new Float64Array(48),
      priced: new Float64Array(48),
      room: new Float64Array(48),
    };
    const plan = { charge: new Float64Array(48), discharge: new Float64Array(48) };
    const mine: number[] = [];
    const withLimit = battery.dispatch.max_cycles_per_day !== null;
    for (let k = 0; k < 75; k++) {
      const day = (k * 13 + 5) % (years * 365 - 2);
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
      const what = `day ${day}: ${value.toFixed(2)} vs LP ${optimum.toFixed(2)} (gap ${(relative * 100).toFixed(4)} %)`;
      t.ok(relative <= 0.005, what);
      t.ok(gap >= -1e-6 * Math.max(1, Math.abs(optimum)), 'never above the LP (the plan is feasible)');
      t.equal(violation(b, h, soc0, plan), '', `day ${day}: the plan keeps every bound`);
    }
    t.comment(`${c.name}: ${describe(mine)}`);
  });
}

t.test('the gap distributions', async (t) => {
  t.equal(gaps.length + limitedGaps.length, 75 * cases.length, `${gaps.length + limitedGaps.length} horizons`);
  t.comment(`without a cycle limit: ${describe(gaps)}`);
  t.comment(`with a daily cycle limit: ${describe(limitedGaps)}`);
  t.ok(Math.max(...gaps) <= 0.005, 'without a cycle limit, every horizon within 0.5 % of its LP optimum');
  t.ok(Math.max(...limitedGaps) <= 0.005, 'with a daily cycle limit, every horizon within 0.5 % of its LP optimum');
});

/** The first bound the plan breaks (power, SOC, room, the daily limit), or '' when none. */
function violation(b: HorizonBattery, h: HorizonHours, soc0: number, plan: HorizonPlan): string {
  const tol = 1e-6;
  let soc = soc0;
  for (let i = 0; i < h.hours; i++) {
    const x = plan.charge[i];
    const y = plan.discharge[i];
    if (x > 0 && y > 0) return `hour ${i}: charges and discharges`;
    if (x > Math.min(b.powerMw, h.free[i] + h.priced[i]) + tol) return `hour ${i}: charge ${x}`;
    if (y > Math.min(b.powerMw, h.room[i]) + tol) return `hour ${i}: discharge ${y}`;
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
    `${(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] * 100).toFixed(5)} %`;
  const exact = values.filter((v) => Math.abs(v) <= 1e-9).length;
  return `n ${values.length}, ≤ 1e-9: ${exact}, median ${pct(0.5)}, p90 ${pct(0.9)}, p99 ${pct(0.99)}, max ${pct(1)}`;
}
