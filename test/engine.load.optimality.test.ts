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
import t from 'tap';
import type { ScenarioInputs } from '../shared/schemas/inputs.ts';
import { HOURS_PER_YEAR } from '../shared/schemas/result.ts';
import { backupFactor, contractPrice, excessPrices, prepareLoad } from '../worker/engine/load/load.ts';
import { prepareMarket } from '../worker/engine/market/market.ts';
import type { HorizonBattery, HorizonHours } from '../worker/engine/storage/storage.dispatch.ts';
import { type DeepPartial, resolvedInputs } from './fixtures/inputs.ts';
import { cplexLp, HORIZON_YEARS, merchantPrices, OptimalityCheck, plantHours } from './helpers/horizon.lp.ts';

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
    // A MWh delivered to the load is worth its contract price plus the horizon's weight.
    const w = l.value[t] + l.weight;
    const lMax = w - c > 0 ? Math.min(room, l.unmet[t]) : 0;
    const eMax = p - c > 0 ? room : 0;
    obj.push(
      `${w - c} l${t}`,
      `${p - c} e${t}`,
      `${-(p + b.chargeCost)} q${t}`,
      `${-(l.gridPrice[t] + b.chargeCost)} g${t}`,
      `${-(w + b.chargeCost)} v${t}`,
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
  return cplexLp(b, h, { obj, rows, bounds }, (t) => `l${t} + e${t}`);
}

interface Case {
  name: string;
  inputs: DeepPartial<ScenarioInputs>;
}

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
  market: { merchant_hourly_prices: merchantPrices },
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
const check = new OptimalityCheck();
for (const c of cases) {
  t.test(c.name, async (t) => {
    const inputs = resolvedInputs(c.inputs);
    const battery = inputs.storage as NonNullable<typeof inputs.storage>;
    const load = prepareLoad(inputs);
    if (!load) throw new Error('a case without a load');
    const market = prepareMarket(inputs);
    const factor = new Float64Array(HORIZON_YEARS);
    const contract = new Float64Array(HORIZON_YEARS);
    const plant = plantHours(inputs, (y, price) => {
      excessPrices(load, market, y, price);
      contract[y] = contractPrice(load, y);
      factor[y] = backupFactor(load, y);
    });
    plant.load = { mw: load.mw, contract, backupPrice: load.backupPrice, backupFactor: factor, sell: load.sell };
    const withLimit = battery.dispatch.max_cycles_per_day !== null;
    const seen = { discharge: 0, grid: 0, limit: 0 };
    check.horizons(t, {
      name: c.name,
      battery,
      plant,
      count: HORIZONS,
      days: { every: 37, from: 11 },
      lp,
      each: (b, h, plan) => {
        const l = h.load as NonNullable<HorizonHours['load']>;
        for (let i = 0; i < h.hours; i++) {
          if (plan.discharge[i] > 0) seen.discharge++;
          if (plan.charge[i] > h.free[i] + h.priced[i] + 1e-6 && l.grid[i] > 0) seen.grid++;
        }
        const day0 = plan.discharge.subarray(0, 24).reduce((x, v) => x + v, 0);
        if (day0 >= b.dailyDischargeMwh * (1 - 1e-9)) seen.limit++;
      },
    });
    t.comment(
      `hours discharging ${seen.discharge}, charging from the grid ${seen.grid}, horizons at the daily limit ${seen.limit}`,
    );
    t.ok(seen.discharge > 0, 'the battery works (not a trivial idle optimum)');
    if (battery.charge_from_grid) t.ok(seen.grid > 0, 'the grid is used');
    if (withLimit) t.ok(seen.limit > 0, 'the daily limit binds in some horizons');
  });
}

t.test('the gap distributions', async (t) => {
  t.ok(check.count >= 100, 'at least 100 horizons');
  check.distributions(t, HORIZONS * cases.length);
});
