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
import t from 'tap';
import type { ScenarioInputs } from '../shared/schemas/inputs.ts';
import { hourPrices, prepareMarket } from '../worker/engine/market/market.ts';
import type { HorizonBattery, HorizonHours } from '../worker/engine/storage/storage.dispatch.ts';
import { type DeepPartial, resolvedInputs } from './fixtures/inputs.ts';
import { cplexLp, merchantPrices, OptimalityCheck, plantHours } from './helpers/horizon.lp.ts';

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
  return cplexLp(b, h, { obj, rows, bounds }, (t) => `y${t}`);
}

interface Case {
  name: string;
  inputs: DeepPartial<ScenarioInputs>;
}

const tod = Array.from({ length: 12 }, (_, m) =>
  Array.from({ length: 24 }, (_, h) => (h >= 16 && h < 21 ? (m >= 5 && m <= 8 ? 2.2 : 1.5) : h < 6 ? 0.7 : 1)),
);
const plant = { grid: { export_limit_mw: 110 }, market: { merchant_hourly_prices: merchantPrices, ppa_share: 0.5 } };
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

const HORIZONS = 75;
const check = new OptimalityCheck();
for (const c of cases) {
  t.test(c.name, async (t) => {
    const inputs = resolvedInputs(c.inputs);
    const market = prepareMarket(inputs);
    check.horizons(t, {
      name: c.name,
      battery: inputs.storage as NonNullable<typeof inputs.storage>,
      plant: plantHours(inputs, (y, price) => hourPrices(market, y + 1, price)),
      count: HORIZONS,
      days: { every: 13, from: 5 },
      lp,
    });
  });
}

t.test('the gap distributions', async (t) => check.distributions(t, HORIZONS * cases.length));
