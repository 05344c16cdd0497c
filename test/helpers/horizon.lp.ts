// What the dispatch's optimality tests share (engine.storage.optimality.test.ts for arbitrage and
// capture, engine.load.optimality.test.ts for `load`): HiGHS, merchant prices from HOPP's Iron
// Mountain 2015 price factors, the plant's hours with and without its export limit, an LP's text in
// CPLEX LP format with the daily cycle limit, and the check of the engine's plan for each horizon
// against its LP optimum (and against every bound), with the distribution of the gaps.
import { readFileSync } from 'node:fs';
import highsModule from 'highs';
import type { Test } from 'tap';
import type { ResolvedInputs, StorageInputs } from '../../shared/schemas/inputs.ts';
import { HOURS_PER_YEAR } from '../../shared/schemas/result.ts';
import { calculate } from '../../worker/engine/index.ts';
import {
  type HorizonBattery,
  type HorizonHours,
  type HorizonPlan,
  HorizonSolver,
  objective,
} from '../../worker/engine/storage/storage.dispatch.ts';
import { fillHorizon, horizonBattery, type PlantHours } from '../../worker/engine/storage/storage.ts';

// A CommonJS module: its default import is the loader function itself.
const highsLoader = highsModule as unknown as typeof import('highs')['default'];
const highs = await highsLoader();

/** Hourly merchant prices: HOPP's Iron Mountain 2015 price factors (with negative hours) × 45. */
export const merchantPrices: number[] = readFileSync(
  new URL('../fixtures/reference/hopp_ironmtn_2015_price_factors.csv', import.meta.url),
  'utf8',
)
  .trim()
  .split('\n')
  .map((f) => 45 * Number(f));

/** The years of plant hours the horizons are cut from. */
export const HORIZON_YEARS = 3;
const HORIZON_HOURS = 48;

/**
 * The plant's hours over HORIZON_YEARS: with and without its limit, the battery and the load left
 * out, what it delivers and what the limit takes; its price of each hour, as `prices` writes each
 * year's (year 0 first) into the array given.
 */
export function plantHours(inputs: ResolvedInputs, prices: (year: number, price: Float64Array) => void): PlantHours {
  const limited = calculate({ ...inputs, storage: undefined, load: undefined });
  const free = calculate({ ...inputs, storage: undefined, load: undefined, grid: {} });
  const hours = HORIZON_YEARS * HOURS_PER_YEAR;
  const delivered = new Float64Array(hours);
  const surplus = new Float64Array(hours);
  for (let i = 0; i < hours; i++) {
    delivered[i] = limited.solar_hourly[i] + limited.wind_hourly[i];
    surplus[i] = Math.max(0, free.solar_hourly[i] + free.wind_hourly[i] - delivered[i]);
  }
  const price = new Float64Array(hours);
  for (let y = 0; y < HORIZON_YEARS; y++) prices(y, price.subarray(y * HOURS_PER_YEAR, (y + 1) * HOURS_PER_YEAR));
  return { delivered, surplus, price, limitMw: inputs.grid.export_limit_mw ?? Number.POSITIVE_INFINITY };
}

/**
 * The LP in CPLEX LP format: maximise the objective's terms subject to the rows and bounds, and for
 * each day of the horizon (when the battery has a daily limit) Σ discharged(t) ≤ the limit.
 */
export function cplexLp(
  b: HorizonBattery,
  h: HorizonHours,
  lp: { obj: string[]; rows: string[]; bounds: string[] },
  discharged: (t: number) => string,
): string {
  const rows = [...lp.rows];
  if (Number.isFinite(b.dailyDischargeMwh)) {
    for (let d = 0; d * 24 < h.hours; d++) {
      const ys = Array.from({ length: Math.min(24, h.hours - d * 24) }, (_, k) => discharged(d * 24 + k));
      rows.push(`d${d}: ${ys.join(' + ')} <= ${b.dailyDischargeMwh}`);
    }
  }
  const text = `Maximize\n obj: ${lp.obj.join(' + ')}\nSubject To\n ${rows.join('\n ')}\nBounds\n ${lp.bounds.join('\n ')}\nEnd\n`;
  return text.replaceAll('+ -', '- ');
}

export interface Horizons {
  /** The case's name, for the comment on its gaps. */
  name: string;
  battery: StorageInputs;
  plant: PlantHours;
  count: number;
  /** Horizon `k` starts on day (k × every + from) modulo the days of HORIZON_YEARS less 2. */
  days: { every: number; from: number };
  lp: (b: HorizonBattery, h: HorizonHours, soc0: number) => string;
  /** Called with each horizon and its plan once checked. */
  each?: (b: HorizonBattery, h: HorizonHours, plan: HorizonPlan) => void;
}

/** The engine's horizon plans against their LP optima, the relative gaps kept without and with a daily cycle limit. */
export class OptimalityCheck {
  private readonly unlimited: number[] = [];
  private readonly limited: number[] = [];

  /** How many horizons were checked. */
  get count(): number {
    return this.unlimited.length + this.limited.length;
  }

  /**
   * `count` horizons of 48 hours, the battery's capacity faded and its SOC at the start varied from
   * one to the next, each solved by the engine's horizon solver and by HiGHS: the solver returns its
   * plan's objective, reaches the LP optimum within 0.5 %, is never above it, and its plan keeps
   * every bound. The distribution of the case's gaps is printed.
   */
  horizons(t: Test, c: Horizons): void {
    const { battery } = c;
    const solver = new HorizonSolver();
    const a = () => new Float64Array(HORIZON_HOURS);
    const h: HorizonHours = { hours: HORIZON_HOURS, price: a(), free: a(), priced: a(), room: a() };
    if (battery.dispatch.strategy === 'load')
      h.load = { serve: a(), unmet: a(), value: a(), weight: 0, grid: a(), gridPrice: a(), laterDearest: 0 };
    const plan = { charge: a(), discharge: a() };
    const mine: number[] = [];
    const withLimit = battery.dispatch.max_cycles_per_day !== null;
    for (let k = 0; k < c.count; k++) {
      const day = (k * c.days.every + c.days.from) % (HORIZON_YEARS * 365 - 2);
      const capacity = battery.energy_mwh * (1 - 0.004 * (k % 10));
      const b = horizonBattery(battery, capacity, battery.costs.variable_om_per_mwh);
      fillHorizon(battery, c.plant, day * 24, h);
      const soc0 = b.socMinMwh + ((k % 5) / 4) * (b.socMaxMwh - b.socMinMwh);
      const value = solver.solve(b, h, soc0, plan);
      t.equal(value, objective(b, h, plan), 'the objective of the plan returned');
      const solution = highs.solve(c.lp(b, h, soc0));
      t.equal(solution.Status, 'Optimal', `day ${day}: HiGHS finds the optimum`);
      const optimum = solution.ObjectiveValue;
      const gap = optimum - value;
      const relative = gap / Math.max(Math.abs(optimum), 1);
      (withLimit ? this.limited : this.unlimited).push(relative);
      mine.push(relative);
      const what = `day ${day}: ${value.toFixed(2)} vs LP ${optimum.toFixed(2)} (gap ${(relative * 100).toFixed(6)} %)`;
      t.ok(relative <= 0.005, what);
      t.ok(gap >= -1e-6 * Math.max(1, Math.abs(optimum)), 'never above the LP (the plan is feasible)');
      t.equal(violation(b, h, soc0, plan), '', `day ${day}: the plan keeps every bound`);
      c.each?.(b, h, plan);
    }
    t.comment(`${c.name}: ${describeGaps(mine)}`);
  }

  /** Every horizon was checked, and each within 0.5 % of its LP optimum, with a daily limit and without. */
  distributions(t: Test, horizons: number): void {
    t.equal(this.count, horizons, `${this.count} horizons`);
    t.comment(`without a cycle limit: ${describeGaps(this.unlimited)}`);
    t.comment(`with a daily cycle limit: ${describeGaps(this.limited)}`);
    t.ok(Math.max(...this.unlimited) <= 0.005, 'without a cycle limit, every horizon within 0.5 % of its LP optimum');
    t.ok(Math.max(...this.limited) <= 0.005, 'with a daily cycle limit, every horizon within 0.5 % of its LP optimum');
  }
}

/**
 * The first bound the plan breaks (power, SOC, room, the daily limit; with a load, grid charging
 * while the load is short), or '' when none.
 */
function violation(b: HorizonBattery, h: HorizonHours, soc0: number, plan: HorizonPlan): string {
  const l = h.load;
  const tol = 1e-6;
  let soc = soc0;
  for (let i = 0; i < h.hours; i++) {
    const x = plan.charge[i];
    const y = plan.discharge[i];
    if (x > 0 && y > 0) return `hour ${i}: charges and discharges`;
    const chargeable = h.free[i] + h.priced[i] + (l ? l.grid[i] + l.serve[i] : 0);
    if (x > Math.min(b.powerMw, chargeable) + tol) return `hour ${i}: charge ${x}`;
    if (y > Math.min(b.powerMw, h.room[i]) + tol) return `hour ${i}: discharge ${y}`;
    if (l && x > h.free[i] + h.priced[i] + tol && l.unmet[i] > 0 && x > h.free[i] + h.priced[i] + l.serve[i] + tol) {
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

/** Gaps as a count, how many are exact (≤ 1e-9) and percentiles, in percent. */
function describeGaps(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const pct = (q: number) =>
    `${(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] * 100).toExponential(2)} %`;
  const exact = values.filter((v) => Math.abs(v) <= 1e-9).length;
  return `n ${values.length}, ≤ 1e-9: ${exact}, median ${pct(0.5)}, p90 ${pct(0.9)}, p99 ${pct(0.99)}, max ${pct(1)}`;
}
