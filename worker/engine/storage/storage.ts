// The battery through the 25 operating years, hour by hour (docs/storage.md): AC-coupled at the
// point of interconnection; each day it plans a rolling 48 hours (perfect foresight of the
// scenario's own prices and generation), commits the first 24, and ages. Charging draws first on
// energy the export limit would curtail (free), then on the plant's sale (forgone at the hour's
// price) and, when allowed, on the grid (bought at that price). Discharge goes only into room under
// the limit, so the export never exceeds it and the plant is never curtailed for the battery.
import { HOURS_PER_DAY, HOURS_PER_YEAR, YEARS } from '../../../shared/calendar.ts';
import type { ResolvedInputs, StorageInputs } from '../../../shared/schemas/inputs.ts';
import {
  type HorizonBattery,
  type HorizonHours,
  type HorizonPlan,
  HorizonSolver,
  type KernelDay,
  type RunSeries,
} from './storage.dispatch.ts';
import { BatteryLifetime } from './storage.lifetime.ts';
import { type ReserveHours, type ReservePlan, type ReserveProduct, solveReserves } from './storage.reserves.ts';
import { type DispatchStrategy, STRATEGIES, strategyOf } from './storage.strategies.ts';

const HORIZON = 48;
const NO_PRODUCTS: readonly ReserveProduct[] = [];
const HOURS = YEARS * HOURS_PER_YEAR;

/** What the plant offers the battery, every hour of the 25 years. */
export interface PlantHours {
  /** MWh the plant exports without a battery (≤ the limit). */
  delivered: Float64Array;
  /** MWh above the limit, curtailed without a battery. */
  surplus: Float64Array;
  /** What an exported MWh earns in that hour (nominal money of its year). */
  price: Float64Array;
  limitMw: number;
  /**
   * The grid operator's export limit of each hour of the year (8,760 values, every year alike), when
   * given: discharge then has room only under min(limitMw, the operator's hour). Imports (grid
   * charging, down reserves) stay under limitMw alone.
   */
  operatorMw?: ArrayLike<number>;
  /**
   * With a load: its MWh each hour, each year's contract price, the year-1 backup price of each hour
   * of the year and each year's escalation of it; whether excess sells.
   */
  load?: {
    mw: Float64Array;
    contract: Float64Array;
    backupPrice: Float64Array;
    backupFactor: Float64Array;
    sell: boolean;
  };
  /** With ancillary products: each product, the merchant price and each product's capacity price, every hour. */
  reserves?: PlantReserves;
}

/** The ancillary market over the 25 years (nominal money of each year). */
export interface PlantReserves {
  products: ReserveProduct[];
  energyPrice: Float64Array;
  capacityPrice: Float64Array[];
}

/** The battery's hours and years. */
export interface StorageRun {
  charge: Float64Array;
  discharge: Float64Array;
  soc: Float64Array;
  /** Of the charge, MWh taken from energy the limit would have curtailed, and from the grid. */
  fromSurplus: Float64Array;
  fromGrid: Float64Array;
  /** Per year: capacity at its end (% of nameplate) and banks replaced in it. */
  capacityPercent: Float64Array;
  replacements: Int32Array;
  /** With ancillary products: MW reserved for each product, every hour. */
  reserve?: Float64Array[];
}

/** The battery of the inputs, or null when there is none (absent, or power 0). */
export function batteryOf(inputs: ResolvedInputs): StorageInputs | null {
  const s = inputs.storage;
  return s && s.power_mw > 0 && s.energy_mwh > 0 ? s : null;
}

/** The battery's constants from its inputs, for the dispatch and the load's account of its hours. */
export interface BatteryConstants {
  /** Charging (= discharging) efficiency: the square root of the round trip's. */
  etaIn: number;
  /** The share of the stored energy an hour keeps after standing loss. */
  keep: number;
  /** SOC at the start, MWh. */
  initialSoc: number;
}

/** One definition, so that the dispatch and the load's account of the battery's hours agree to the bit. */
export function batteryConstants(s: StorageInputs): BatteryConstants {
  return {
    etaIn: Math.sqrt(s.round_trip_efficiency_percent / 100),
    keep: (1 - s.standing_loss_percent_per_day / 100) ** (1 / HOURS_PER_DAY),
    initialSoc: (s.energy_mwh * s.initial_soc_percent) / 100,
  };
}

/** The horizon problem's battery at a capacity (MWh). */
export function horizonBattery(s: StorageInputs, capacityMwh: number, dischargeCost: number): HorizonBattery {
  const eta = batteryConstants(s).etaIn;
  const cycles = s.dispatch.max_cycles_per_day;
  return {
    powerMw: s.power_mw,
    socMinMwh: (capacityMwh * s.soc_min_percent) / 100,
    socMaxMwh: (capacityMwh * s.soc_max_percent) / 100,
    etaIn: eta,
    etaOut: eta,
    chargeCost: 0,
    dischargeCost,
    dailyDischargeMwh: cycles === null ? Number.POSITIVE_INFINITY : cycles * s.energy_mwh,
  };
}

interface Work {
  strategy: DispatchStrategy;
  hours: HorizonHours;
  /** The hourly arrays of `hours` the kernel's `shift` does not move (every one without the kernel). */
  arrays: Float64Array[];
  /** The kernel's committed day, shift and 25-year series; null: all in JavaScript (`runStorage`'s `kernel`). */
  day: KernelDay | null;
  plan: HorizonPlan;
  solver: HorizonSolver;
  /** With ancillary products: the horizon's market for them and the plan's reserves. */
  reserves: { market: ReserveHours; plan: ReservePlan } | undefined;
  /** The day's battery (the last one stays: see `spaces`). */
  battery: HorizonBattery | null;
}

/**
 * The work spaces, kept between runs (an engine thread runs one calculation at a time, and a run
 * leaves nothing in it that the next one reads): the market strategies' (arbitrage, capture) and the
 * load's, each with and without the kernel. Kept, the solver's objects and the horizon's keep their
 * shapes, and the optimised dispatch code that depends on those shapes is not thrown away at every
 * run (it was, about once a run, when they were made anew each time).
 */
const spaces = new Map<string, Work>();

/** The kept work space for a strategy's kind (market or load), made on first use. */
function keptSpace(strategy: DispatchStrategy, useKernel: boolean): Work {
  const key = `${strategy.withLoad ? 'load' : 'market'} ${useKernel ? 'kernel' : 'js'}`;
  let w = spaces.get(key);
  if (!w) {
    w = newWorkSpace(strategy, useKernel);
    spaces.set(key, w);
  }
  return w;
}

/** The work space for a run of `strategy`, its last run's reserves forgotten. */
function workSpace(strategy: DispatchStrategy, useKernel: boolean): Work {
  const w = keptSpace(strategy, useKernel);
  w.strategy = strategy;
  w.reserves = undefined;
  return w;
}

/**
 * The 25-year series a run without reserves commits its days into in the kernel's memory (no copy;
 * a market strategy's and the load's, whose work spaces share the kernel): a caller that reuses its
 * hourly arrays from one calculation to the next (an engine thread's `HourlyBuffers.storage`) takes
 * these as its own. Valid until the next battery run; any run may be given them (the others write
 * them in JavaScript).
 */
export function keptRunSeries(): RunSeries {
  return (keptSpace(STRATEGIES.arbitrage, true).day as KernelDay).series;
}

/**
 * The one solver of the kernel's work spaces (a market's and the load's): one kernel, so that both
 * commit their days into the same 25-year series (`keptRunSeries`, which a caller's reused arrays
 * are). Without the kernel, each work space has its own.
 */
let kernelSolver: HorizonSolver | null = null;

function sharedKernelSolver(): HorizonSolver {
  kernelSolver ??= new HorizonSolver(true);
  return kernelSolver;
}

function newWorkSpace(strategy: DispatchStrategy, useKernel: boolean): Work {
  const a = () => new Float64Array(HORIZON);
  // The horizon's arrays and the plan are the solver's kernel's memory: filled and read in place.
  const solver = useKernel ? sharedKernelSolver() : new HorizonSolver(false);
  const kernel = solver.kernelArrays();
  const day = useKernel ? kernel.day : null;
  const load = strategy.withLoad
    ? { serve: day ? day.serve : a(), ...kernel.load, weight: 0, laterDearest: 0 }
    : undefined;
  const hours = {
    hours: HORIZON,
    ...kernel.hours,
    ...(day ? { delivered: day.delivered } : {}),
    ...(day && load ? { surplus: day.surplus } : {}),
    ...(load ? { load } : {}),
  };
  const { price, free, priced, room } = hours;
  const inKernel = [price, free, priced, room, ...(load ? [load.unmet, load.value, load.grid, load.gridPrice] : [])];
  return {
    strategy,
    hours,
    arrays: day ? [] : [...inKernel, ...(load ? [load.serve] : [])],
    day,
    plan: kernel.plan,
    solver,
    reserves: undefined,
    battery: null,
  };
}

/** Fills the horizon from hour `from` by the battery's strategy (storage.strategies.ts). */
export function fillHorizon(s: StorageInputs, plant: PlantHours, from: number, h: HorizonHours): void {
  h.hours = Math.min(HORIZON, HOURS - from);
  const gridMw = s.charge_from_grid ? Math.min(s.power_mw, plant.limitMw) : 0;
  strategyOf(s, plant).fill(s, plant, from, h, gridMw);
}

/**
 * The next day's horizon in the work space that holds the previous day's (`from` − 24): a full
 * previous horizon's second day is this one's first, moved down; its new hours are filled. Returns
 * whether it moved one down.
 */
function nextHorizon(s: StorageInputs, plant: PlantHours, from: number, w: Work, strategy: DispatchStrategy): boolean {
  const h = w.hours;
  const moved = from > 0 && h.hours === HORIZON;
  if (moved) {
    w.day?.shift();
    for (const a of w.arrays) a.copyWithin(0, HOURS_PER_DAY, HORIZON);
  }
  h.hours = Math.min(HORIZON, HOURS - from);
  const gridMw = s.charge_from_grid ? Math.min(s.power_mw, plant.limitMw) : 0;
  strategy.fill(s, plant, from, h, gridMw, moved ? HOURS_PER_DAY : 0);
  return moved;
}

/**
 * Runs the battery over every hour of the 25 years. `dischargeCost(year)` is the variable O&M per MWh.
 * A run without reserves whose `work` arrays are `keptRunSeries()` commits its days in the kernel,
 * into them; other runs commit in JavaScript. `kernel` false: the horizon's DP in
 * JavaScript alone too (`new HorizonSolver(false)`), for the test that the kernel's 25 years are the
 * same to the bit (test/engine.storage.kernel.years.test.ts).
 */
export function runStorage(
  s: StorageInputs,
  plant: PlantHours,
  dischargeCost: (yearIndex: number) => number,
  work?: { fromSurplus: Float64Array; fromGrid: Float64Array } & Partial<
    Record<'charge' | 'discharge' | 'soc', Float64Array>
  >,
  kernel = true,
): StorageRun {
  const run: StorageRun = {
    charge: work?.charge ?? new Float64Array(HOURS),
    discharge: work?.discharge ?? new Float64Array(HOURS),
    soc: work?.soc ?? new Float64Array(HOURS),
    fromSurplus: work?.fromSurplus ?? new Float64Array(HOURS),
    fromGrid: work?.fromGrid ?? new Float64Array(HOURS),
    capacityPercent: new Float64Array(YEARS),
    replacements: new Int32Array(YEARS),
  };
  const strategy = strategyOf(s, plant);
  const w = workSpace(strategy, kernel);
  const reserves = plant.reserves && plant.reserves.products.length > 0 ? plant.reserves : undefined;
  if (reserves) {
    run.reserve = reserves.products.map(() => new Float64Array(HOURS));
    w.reserves = reserveWork(s, plant, reserves, w.plan);
  }
  // The days committed in the kernel when the run's series are its own (every one of them).
  const series = w.day && !reserves ? w.day.series : null;
  const inKernel =
    series !== null &&
    run.charge === series.charge &&
    run.discharge === series.discharge &&
    run.soc === series.soc &&
    run.fromSurplus === series.fromSurplus &&
    run.fromGrid === series.fromGrid;
  const life = new BatteryLifetime(s.degradation.cycle, s.degradation.calendar);
  const { keep, initialSoc } = batteryConstants(s);
  const replaceAt = s.replacement.at_capacity_percent;
  const state = { soc: initialSoc, direction: 0 };
  life.turn(100 - s.initial_soc_percent);
  // The day's battery, made anew only when its capacity or its year changes (no garbage a day).
  let b: HorizonBattery | null = null;
  let bYear = -1;
  let bCapacity = Number.NaN;
  for (let from = 0; from < HOURS; from += HOURS_PER_DAY) {
    const year = Math.floor(from / HOURS_PER_YEAR);
    const capacity = (s.energy_mwh * life.capacityPercent) / 100;
    if (!b || year !== bYear || !Object.is(capacity, bCapacity)) {
      b = horizonBattery(s, capacity, dischargeCost(year));
      bYear = year;
      bCapacity = capacity;
    }
    w.battery = b;
    const moved = nextHorizon(s, plant, from, w, strategy);
    // Above a faded capacity's maximum the energy stays (it is not lost): the plan discharges it first.
    if (reserves && w.reserves) {
      fillReserves(reserves, from, w.hours.hours, w.reserves.market);
      solveReserves(b, w.hours, w.reserves.market, reserves.products, state.soc, w.reserves.plan, false);
    } else w.solver.solve(b, w.hours, state.soc, w.plan, false, HOURS_PER_DAY, moved);
    if (inKernel) commitInKernel(w.day as KernelDay, b, from, keep, capacity, life, state, strategy.withLoad);
    else commitDay(b, plant, from, w, keep, capacity, life, state, run);
    life.update(from + HOURS_PER_DAY - 1);
    if (replaceAt !== null && life.fades && life.capacityPercent <= replaceAt) {
      life.replace(from + HOURS_PER_DAY);
      run.replacements[year]++;
      state.direction = 0;
    }
    if ((from + HOURS_PER_DAY) % HOURS_PER_YEAR === 0) run.capacityPercent[year] = life.capacityPercent;
  }
  return run;
}

/** The day's 24 committed hours: the plan, clipped to the SOC bounds after standing loss; ageing turns. */
function commitDay(
  b: HorizonBattery,
  plant: PlantHours,
  from: number,
  w: Work,
  keep: number,
  capacity: number,
  life: BatteryLifetime,
  state: { soc: number; direction: number },
  run: StorageRun,
): void {
  const { strategy, hours } = w;
  const { charge, discharge } = w.plan;
  const room = hours.room;
  const reserveProducts = plant.reserves?.products ?? NO_PRODUCTS;
  const { powerMw, socMinMwh, socMaxMwh, etaIn, etaOut } = b;
  // The state in locals for the day (written back at its end).
  let soc = state.soc;
  let turned = state.direction;
  for (let t = 0; t < HOURS_PER_DAY; t++) {
    const i = from + t;
    const kept = soc * keep;
    let x = charge[t];
    let y = discharge[t];
    if (x > 0) {
      const available = Math.min(powerMw, strategy.chargeable(plant, hours, i, t));
      x = Math.max(0, Math.min(x, available, (socMaxMwh - kept) / etaIn));
    }
    if (y > 0) y = Math.max(0, Math.min(y, powerMw, room[t], (kept - socMinMwh) * etaOut));
    const direction = x > 0 ? 1 : y > 0 ? -1 : 0;
    if (direction !== 0 && turned !== 0 && direction !== turned && capacity > 0) {
      life.turn(100 * (1 - soc / capacity));
    }
    if (direction !== 0) turned = direction;
    soc = kept + etaIn * x - y / etaOut;
    if (run.reserve && w.reserves) soc += deployed(b, reserveProducts, w.reserves.plan, t, i, run.reserve);
    run.charge[i] = x;
    run.discharge[i] = y;
    run.soc[i] = soc;
    // An hour that does not charge takes nothing from any source (every strategy's sources give +0 there).
    if (x > 0) strategy.sources(plant, hours, i, t, x, run);
    else {
      run.fromSurplus[i] = 0;
      run.fromGrid[i] = 0;
    }
  }
  state.soc = soc;
  state.direction = turned;
}

/**
 * `commitDay` without reserves, in the kernel (storage.dispatch.wat `commit`: the same operations in
 * the same order) and into its series: a committed hour may charge what the strategy's `chargeable`
 * allows (a market's: free and priced; the load's: those, the grid and the served output), and its
 * sources are the strategy's `sources`. The day's turns go to the rainflow count after it (the day's
 * capacity is fixed, and nothing in the day reads the count).
 */
function commitInKernel(
  k: KernelDay,
  b: HorizonBattery,
  from: number,
  keep: number,
  capacity: number,
  life: BatteryLifetime,
  state: { soc: number; direction: number },
  load: boolean,
): void {
  const { powerMw, socMinMwh, socMaxMwh, etaIn, etaOut } = b;
  const turns = k.commit(
    from,
    keep,
    capacity,
    powerMw,
    socMinMwh,
    socMaxMwh,
    etaIn,
    etaOut,
    state.soc,
    state.direction,
    load ? 1 : 0,
  );
  for (let j = 0; j < turns; j++) life.turn(k.turns[j]);
  state.soc = k.end[0];
  state.direction = k.endDirection[0];
}

/** The reserves' work space: the horizon's market and a plan whose charge and discharge are the dispatch's own. */
function reserveWork(
  s: StorageInputs,
  plant: PlantHours,
  r: PlantReserves,
  plan: HorizonPlan,
): NonNullable<Work['reserves']> {
  const a = () => new Float64Array(HORIZON);
  return {
    market: {
      energyPrice: a(),
      capacityPrice: r.products.map(a),
      importMw: Math.min(s.power_mw, plant.limitMw),
      keep: batteryConstants(s).keep,
    },
    plan: { charge: plan.charge, discharge: plan.discharge, reserve: r.products.map(a) },
  };
}

/**
 * The horizon's prices for the reserves, copied hour by hour (a `subarray` view to `set` from would be
 * 1 + products objects a day: ~2.9 MB of garbage a 25-year run with two products).
 */
function fillReserves(r: PlantReserves, from: number, hours: number, m: ReserveHours): void {
  copyHours(r.energyPrice, from, hours, m.energyPrice);
  for (let j = 0; j < r.products.length; j++) copyHours(r.capacityPrice[j], from, hours, m.capacityPrice[j]);
}

function copyHours(from25: Float64Array, from: number, hours: number, out: Float64Array): void {
  for (let t = 0; t < hours; t++) out[t] = from25[from + t];
}

/**
 * Hour t's reserves committed (each within the battery's power) and the SOC change of their expected
 * deployment: up deployment leaves the battery (÷ η), down deployment enters it (× η).
 */
function deployed(
  b: HorizonBattery,
  products: readonly ReserveProduct[],
  plan: ReservePlan,
  t: number,
  i: number,
  out: Float64Array[],
): number {
  let change = 0;
  for (let j = 0; j < products.length; j++) {
    const r = Math.min(plan.reserve[j][t], b.powerMw);
    out[j][i] = r;
    const p = products[j];
    change += p.up ? (-p.deployedShare * r) / b.etaOut : p.deployedShare * r * b.etaIn;
  }
  return change;
}
