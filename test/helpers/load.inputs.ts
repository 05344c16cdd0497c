// The analytic cases of a buyer's load, as inputs: exact plants built from solar and wind `profile`
// inputs (no degradation, no limit) and the loads they serve, each worked out by hand in the tests.
// The engine's test (engine.load.test.ts) calculates them in process, the API's
// (load.analytic.e2e.test.ts, load.e2e.test.ts) posts them to a running web and worker.
import type { Test } from 'tap';
import { HOURS_PER_YEAR } from '../../shared/calendar.ts';
import type { ScenarioInputs } from '../../shared/schemas/inputs.ts';
import type { DeepPartial } from '../fixtures/inputs.ts';

type Inputs = DeepPartial<ScenarioInputs>;

/** One year of hours, each from its hour of the day (0–23) and its index in the year. */
export const hours = (f: (hourOfDay: number, h: number) => number): number[] =>
  Array.from({ length: HOURS_PER_YEAR }, (_, h) => f(h % 24, h));

/** A plant of exactly `mw` each hour: wind of 100 MW from a profile made for 100 MW, no degradation or limit. */
export function exact(windMw: number[], extra: Inputs = {}): Inputs {
  return {
    solar: { capacity_mw_dc: 0 },
    wind: { capacity_mw: 100, degradation_percent_per_year: 0, profile: { hourly_mw: windMw, for_capacity_mw: 100 } },
    grid: {},
    ...extra,
  };
}

/** A constant plant of `plantMw` against a flat load of 50 MW. */
export const constantPlant = (plantMw: number): Inputs =>
  exact(
    hours(() => plantMw),
    { load: { flat_mw: 50 } },
  );

/** 100 MW in the even hours, none in the odd ones, against a flat load of 50 MW. */
export const alternateHours = (): Inputs =>
  exact(
    hours((_, h) => (h % 2 === 0 ? 100 : 0)),
    { load: { flat_mw: 50 } },
  );

/** A constant 50 MW plant; a load of 10 MW from 0:00 to 12:00 and 90 MW after. */
export const changingLoad = (): Inputs =>
  exact(
    hours(() => 50),
    { load: { hourly_mw: hours((hd) => (hd < 12 ? 10 : 90)) } },
  );

/** The evening load of the battery cases: 40 MW from 18:00 to 22:00, none otherwise. */
const eveningLoad = () => hours((hd) => (hd >= 18 && hd < 22 ? 40 : 0));

/** A battery of 50 MW / 200 MWh, 81 % round trip (0.9 each way), empty at the start, serving the load. */
const loadBattery = {
  power_mw: 50,
  energy_mwh: 200,
  round_trip_efficiency_percent: 81,
  soc_min_percent: 0,
  soc_max_percent: 100,
  initial_soc_percent: 0,
  dispatch: { strategy: 'load' as const },
};

/** Solar of 100 MW from 10:00 to 14:00, the evening load, and the battery that moves one to the other. */
export const noonSolarToEvening = (): Inputs => ({
  solar: {
    capacity_mw_dc: 100,
    degradation_percent_per_year: 0,
    profile: { hourly_mw: hours((hd) => (hd >= 10 && hd < 14 ? 100 : 0)), for_capacity_mw_dc: 100 },
  },
  wind: { capacity_mw: 0 },
  grid: {},
  // Flat prices year on year, so no year's noon is cheaper to store for the next year's evening.
  market: { merchant_escalation_percent: 0 },
  load: { hourly_mw: eveningLoad() },
  storage: loadBattery,
});

/** The evening load, its backup 20 before 6:00, 200 in the evening and 100 otherwise, not clean. */
const eveningLoadOnCostlyBackup = () => ({
  hourly_mw: eveningLoad(),
  backup: { price_per_mwh: hours((hd) => (hd < 6 ? 20 : hd >= 18 && hd < 22 ? 200 : 100)), clean_share: 0 },
});

/** No plant: the battery charges from the grid to serve the evening load on a costly backup. */
export const gridChargedBattery = (): Inputs => ({
  solar: { capacity_mw_dc: 0 },
  wind: { capacity_mw: 0 },
  grid: {},
  market: { merchant_escalation_percent: 0 },
  load: eveningLoadOnCostlyBackup(),
  storage: { ...loadBattery, charge_from_grid: true },
});

/**
 * The same load and backup with neither plant output nor battery: the API takes no scenario without
 * a plant or a battery that may charge from the grid, so the plant is 100 MW of wind producing 0.
 */
export const backupOnly = (): Inputs =>
  exact(
    hours(() => 0),
    { market: { merchant_escalation_percent: 0 }, load: eveningLoadOnCostlyBackup() },
  );

/** Σ a[from, to). */
export const sum = (a: ArrayLike<number>, from = 0, to = a.length): number => {
  let s = 0;
  for (let i = from; i < to; i++) s += a[i];
  return s;
};

/** Each KPI's value worked out by hand, what it is, and its relative tolerance (default 1e-6). */
export type ExpectedKpis = Record<string, [value: number, what: string, tol?: number]>;

/** The KPIs of each case as the engine's and the API's tests check them (the engine's and the API's `kpis`). */
export const EXPECTED_KPIS = {
  /** constantPlant(30). */
  short: {
    hourly_match_percent: [60, 'hourly match = 30 / 50'],
    annual_match_percent: [60, 'annual match'],
    cfe_percent: [60, 'CFE (the grid is not clean)'],
    unmet_mwh_year1: [20 * HOURS_PER_YEAR, 'unmet = 20 MW × 8,760 h'],
    excess_mwh_year1: [0, 'no excess'],
    hours_load_met_percent: [0, 'no hour at 95 %'],
    availability_year_percent: [60, 'availability, year'],
    availability_worst_month_percent: [60, 'availability, worst month'],
    availability_peak_percent: [60, 'availability, peak'],
    // The buyer pays the contract (60) for 30 and the backup (80) for 20: (60·30 + 80·20) / 50 = 68.
    buyer_cost_per_mwh: [68, "the buyer's cost per MWh of load"],
  },
  /** constantPlant(70). */
  long: {
    hourly_match_percent: [100, 'a plant above the load serves it all'],
    excess_mwh_year1: [20 * HOURS_PER_YEAR, 'excess = 20 MW × 8,760 h'],
    hours_load_met_percent: [100, 'every hour met'],
  },
  alternateHours: {
    hourly_match_percent: [50, 'hourly match: only the even hours are served'],
    annual_match_percent: [100, 'annual match: the volume would cover it'],
    excess_mwh_year1: [50 * (HOURS_PER_YEAR / 2), 'excess = 50 MW in each even hour'],
    unmet_mwh_year1: [50 * (HOURS_PER_YEAR / 2), 'unmet = 50 MW in each odd hour'],
    hours_load_met_percent: [50, 'half the hours met'],
  },
  // 12·10 + 12·50 = 720 of 1,200 MWh a day delivered.
  changingLoad: {
    hourly_match_percent: [60, 'Σ delivered ÷ Σ load = 720 / 1,200'],
    annual_match_percent: [100, 'the volume matches (1,200 MWh a day)'],
    hours_load_met_percent: [50, 'the twelve morning hours are met'],
    availability_peak_percent: [100 * (50 / 90), 'peak hours 18–21: 50 of 90'],
  },
  gridChargedBattery: {
    hourly_match_percent: [100, 'the evening load is served from the battery'],
    cfe_percent: [0, 'none of it is clean (grid charging never counts)', 1e-9],
    buyer_cost_per_mwh: [60, "the buyer's cost: the contract price, not 200 from the grid"],
  },
  backupOnly: {
    buyer_cost_per_mwh: [200, 'without the battery: the evening backup price'],
    hourly_match_percent: [0, 'and nothing served'],
  },
} satisfies Record<string, ExpectedKpis>;

/** The changing load's hourly match were it the mean of hourly ratios (77.8 %), which it is not. */
export const CHANGING_LOAD_MEAN_OF_RATIOS_PERCENT = (100 * (12 * 1 + 12 * (50 / 90))) / 24;

/** Checks each expected KPI of `kpis`. */
export function expectKpis(t: Test, kpis: object, expected: ExpectedKpis): void {
  const values = kpis as Record<string, unknown>;
  for (const [name, [value, what, tol]] of Object.entries(expected)) {
    const got = values[name];
    close(t, typeof got === 'number' ? got : undefined, value, `${name}, ${what}`, tol);
  }
}

/** Asserts |a − b| ≤ tol × max(1, |b|). */
export const close = (t: Test, a: number | undefined, b: number, what: string, tol = 1e-6) =>
  t.ok(a !== undefined && Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${what}: ${a} ≈ ${b}`);

/** A variable's range: [min, max, step]. */
type Range = readonly [number, number, number];

/**
 * The buyer's sizing problem (docs/load.md): solar, wind, the battery's power (0 is none) and its
 * energy over these ranges, minimising lcod_nominal with the hourly match at least `match` %.
 */
export function loadSizing(match: number, r: { solar: Range; wind: Range; power: Range; energy: Range }) {
  const variable = (path: string, [min, max, step]: Range) => ({ path, min, max, step });
  return {
    variables: [
      variable('/solar/capacity_mw_dc', r.solar),
      variable('/wind/capacity_mw', r.wind),
      variable('/storage/power_mw', r.power),
      variable('/storage/energy_mwh', r.energy),
    ],
    objective: { minimize: 'lcod_nominal' },
    constraints: [{ kpi: 'hourly_match_percent', min: match }],
  };
}
