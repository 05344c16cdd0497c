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
  type LoadHours,
} from './storage.dispatch.ts';
import { BatteryLifetime } from './storage.lifetime.ts';
import { type ReserveHours, type ReservePlan, type ReserveProduct, solveReserves } from './storage.reserves.ts';

const HORIZON = 48;
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
  hours: HorizonHours;
  plan: HorizonPlan;
  solver: HorizonSolver;
  /** With ancillary products: the horizon's market for them and the plan's reserves. */
  reserves?: { market: ReserveHours; plan: ReservePlan };
}

function workSpace(withLoad: boolean): Work {
  const a = () => new Float64Array(HORIZON);
  const load = withLoad ? { serve: a(), unmet: a(), value: a(), grid: a(), gridPrice: a() } : undefined;
  return {
    hours: { hours: HORIZON, price: a(), free: a(), priced: a(), room: a(), ...(load ? { load } : {}) },
    plan: { charge: a(), discharge: a() },
    solver: new HorizonSolver(),
  };
}

/** Fills the horizon from hour `from`: what may be charged (free, at price) and the room to discharge. */
export function fillHorizon(s: StorageInputs, plant: PlantHours, from: number, h: HorizonHours): void {
  h.hours = Math.min(HORIZON, HOURS - from);
  const gridMw = s.charge_from_grid ? Math.min(s.power_mw, plant.limitMw) : 0;
  if (s.dispatch.strategy === 'load' && plant.load && h.load) {
    fillLoadHorizon(s, plant, plant.load, from, h, h.load, gridMw);
    return;
  }
  const arbitrage = s.dispatch.strategy === 'arbitrage';
  for (let t = 0; t < h.hours; t++) {
    const i = from + t;
    const d = plant.delivered[i];
    h.price[t] = plant.price[i];
    h.free[t] = plant.surplus[i];
    h.priced[t] = arbitrage ? d + gridMw : gridMw;
    h.room[t] = plant.surplus[i] > 0 ? 0 : Math.max(0, plant.limitMw - d);
  }
}

/**
 * Weight of a MWh delivered to the load, over the horizon's dearest price ÷ the round trip: serving
 * one more MWh is always worth more than any revenue the battery could move (lexicographic in effect).
 */
const SERVE_WEIGHT = 10;

/** The horizon with a load (strategy `load`): the tiers of LoadHours, from the plant's hours. */
function fillLoadHorizon(
  s: StorageInputs,
  plant: PlantHours,
  load: NonNullable<PlantHours['load']>,
  from: number,
  h: HorizonHours,
  l: LoadHours,
  gridMw: number,
): void {
  let dearest = 0;
  for (let t = 0; t < h.hours; t++) {
    const i = from + t;
    const a = plant.delivered[i];
    const f = plant.surplus[i];
    const serve = Math.min(a, load.mw[i]);
    const excess = a - serve;
    const unmet = load.mw[i] - serve;
    const p = plant.price[i];
    h.price[t] = p;
    h.free[t] = load.sell ? f : f + excess;
    h.priced[t] = load.sell ? excess : 0;
    h.room[t] = f > 0 ? 0 : Math.max(0, plant.limitMw - a);
    l.serve[t] = serve;
    l.unmet[t] = unmet;
    // The grid only where the plant meets the load, and never cheaper than the excess sells for.
    l.grid[t] = unmet > 0 ? 0 : gridMw;
    const year = Math.floor(i / HOURS_PER_YEAR);
    const backup = load.backupPrice[i - year * HOURS_PER_YEAR] * load.backupFactor[year];
    l.gridPrice[t] = Math.max(backup, p, 0);
    l.value[t] = load.contract[year];
    dearest = Math.max(dearest, Math.abs(p), Math.abs(l.gridPrice[t]), Math.abs(l.value[t]));
  }
  const weight = (SERVE_WEIGHT * (1 + dearest) * 100) / s.round_trip_efficiency_percent;
  for (let t = 0; t < h.hours; t++) l.value[t] += weight;
}

/** Runs the battery over every hour of the 25 years. `dischargeCost(year)` is the variable O&M per MWh. */
export function runStorage(
  s: StorageInputs,
  plant: PlantHours,
  dischargeCost: (yearIndex: number) => number,
  work?: { fromSurplus: Float64Array; fromGrid: Float64Array },
): StorageRun {
  const run: StorageRun = {
    charge: new Float64Array(HOURS),
    discharge: new Float64Array(HOURS),
    soc: new Float64Array(HOURS),
    fromSurplus: work?.fromSurplus ?? new Float64Array(HOURS),
    fromGrid: work?.fromGrid ?? new Float64Array(HOURS),
    capacityPercent: new Float64Array(YEARS),
    replacements: new Int32Array(YEARS),
  };
  const w = workSpace(s.dispatch.strategy === 'load' && plant.load !== undefined);
  const reserves = plant.reserves && plant.reserves.products.length > 0 ? plant.reserves : undefined;
  if (reserves) {
    run.reserve = reserves.products.map(() => new Float64Array(HOURS));
    w.reserves = reserveWork(s, plant, reserves, w.plan);
  }
  const life = new BatteryLifetime(s.degradation.cycle, s.degradation.calendar);
  const { keep, initialSoc } = batteryConstants(s);
  const replaceAt = s.replacement.at_capacity_percent;
  const state = { soc: initialSoc, direction: 0 };
  life.turn(100 - s.initial_soc_percent);
  for (let from = 0; from < HOURS; from += HOURS_PER_DAY) {
    const year = Math.floor(from / HOURS_PER_YEAR);
    const capacity = (s.energy_mwh * life.capacityPercent) / 100;
    const b = horizonBattery(s, capacity, dischargeCost(year));
    fillHorizon(s, plant, from, w.hours);
    // Above a faded capacity's maximum the energy stays (it is not lost): the plan discharges it first.
    if (reserves && w.reserves) {
      fillReserves(reserves, from, w.hours.hours, w.reserves.market);
      solveReserves(b, w.hours, w.reserves.market, reserves.products, state.soc, w.reserves.plan);
    } else w.solver.solve(b, w.hours, state.soc, w.plan, false);
    commitDay(b, plant, from, w, keep, capacity, life, state, run);
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
  const priced = w.hours.priced;
  const reserveProducts = plant.reserves?.products ?? [];
  for (let t = 0; t < HOURS_PER_DAY; t++) {
    const i = from + t;
    const kept = state.soc * keep;
    let x = w.plan.charge[t];
    let y = w.plan.discharge[t];
    const l = w.hours.load;
    const available = l
      ? Math.min(b.powerMw, w.hours.free[t] + priced[t] + l.grid[t] + l.serve[t])
      : Math.min(b.powerMw, plant.surplus[i] + priced[t]);
    if (x > 0) x = Math.max(0, Math.min(x, available, (b.socMaxMwh - kept) / b.etaIn));
    if (y > 0) y = Math.max(0, Math.min(y, b.powerMw, w.hours.room[t], (kept - b.socMinMwh) * b.etaOut));
    const direction = x > 0 ? 1 : y > 0 ? -1 : 0;
    if (direction !== 0 && state.direction !== 0 && direction !== state.direction && capacity > 0) {
      life.turn(100 * (1 - state.soc / capacity));
    }
    if (direction !== 0) state.direction = direction;
    state.soc = kept + b.etaIn * x - y / b.etaOut;
    if (run.reserve && w.reserves) state.soc += deployed(b, reserveProducts, w.reserves.plan, t, i, run.reserve);
    run.charge[i] = x;
    run.discharge[i] = y;
    run.soc[i] = state.soc;
    if (l) {
      // With a load: the limit's surplus, the plant's excess, the grid, then the plant's served output.
      const surplus = plant.surplus[i];
      const excess = plant.delivered[i] - l.serve[t];
      const beforeGrid = surplus + excess;
      run.fromSurplus[i] = plant.price[i] < 0 ? Math.min(surplus, Math.max(0, x - excess)) : Math.min(x, surplus);
      run.fromGrid[i] = Math.min(l.grid[t], Math.max(0, x - beforeGrid));
      continue;
    }
    // The cheaper source first: curtailed energy (free), unless the price is negative.
    const surplus = plant.surplus[i];
    const fromPlantOrGrid = plant.price[i] < 0 ? Math.min(x, priced[t]) : Math.max(0, x - surplus);
    run.fromSurplus[i] = x - fromPlantOrGrid;
    run.fromGrid[i] = Math.max(0, fromPlantOrGrid - plant.delivered[i]);
  }
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

function fillReserves(r: PlantReserves, from: number, hours: number, m: ReserveHours): void {
  m.energyPrice.set(r.energyPrice.subarray(from, from + hours));
  for (let j = 0; j < r.products.length; j++) m.capacityPrice[j].set(r.capacityPrice[j].subarray(from, from + hours));
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
