// Stages 3–4 of the engine, year by year: each technology's profile × (capacity × degradation),
// the export limit, then the year's revenue. Cheap (a few passes over 8,760 hours a year), so a
// variant that reuses cached profiles costs milliseconds.
import { HOURS_PER_YEAR, YEARS } from '../../../shared/calendar.ts';
import { type HourlyRecord, seriesByName } from '../../../shared/hourly.series.ts';
import type { CapacityInputs, ResolvedInputs, StorageInputs } from '../../../shared/schemas/inputs.ts';
import type { RevenueLines, ScenarioResult } from '../../../shared/schemas/result.ts';
import { CalculationInputError } from '../engine.error.ts';
import { type LoadBuffers, type LoadModel, type LoadYears, loadAnnual, serveLoad } from '../load/load.ts';
import { plantCapacityCredit } from '../market/market.capacity.ts';
import {
  emptyMarketYear,
  type MarketModel,
  type MarketYear,
  marketYear,
  revenueOf,
  withPpaPrice,
} from '../market/market.ts';
import { batteryConstants, batteryOf } from '../storage/storage.ts';
import { type Generation, type ProgressReporter, profileYear } from './generation.ts';
import { degradationFactor, hybridYear, type OperatorLimit } from './hybrid.ts';
import type { PlantMemoUse } from './plant.memo.ts';
import { type StorageBuffers, type StorageYears, storageBuffers, storageYears } from './plant.storage.ts';

/**
 * Called once per year, in order, with that year's final hourly series by name (views into the
 * result's arrays; shared/hourly.series.ts): solar and wind always, a battery's and a load's with them.
 */
export type YearReporter = (yearIndex: number, series: HourlyRecord<Float64Array>) => void;

/** What finance needs of the operating years, and the hourly and annual results. */
export interface PlantYears {
  solarHourly: Float64Array;
  windHourly: Float64Array;
  annual: ScenarioResult['annual'];
  revenue: ScenarioResult['income_statement'][number]['revenue'][];
  /** Stage 4's sums of each year: a solved PPA price re-runs only the market and finance from them. */
  marketYears: MarketYear[];
  energy: { deliveredMwh: Float64Array; solarMwh: Float64Array; windMwh: Float64Array };
  /** The battery's hours and years, when there is one. */
  storage?: StorageYears;
  storageContext?: { battery: StorageInputs; curtailedWithout: Float64Array; producedWithout: Float64Array };
  /** Each year's energy curtailed at the limit before any battery, MWh. */
  curtailedMwh: Float64Array;
  /** The load's hours and years, when there is one. */
  load?: LoadYears;
  /** Each year's energy curtailed by the operator's hourly limit below the fixed one, MWh; with that series only. */
  operatorCurtailedMwh?: Float64Array;
  /** With market.capacity: the capacity credit (%) and the accredited MW. */
  capacity?: { percent: number; accreditedMw: number };
}

/**
 * The plant's hourly series by name, in the registry's order (shared/hourly.series.ts): 25 × 8,760
 * each, every stage's series under the role the registry gives it in its group.
 */
export function plantSeries(out: PlantYears): HourlyRecord<Float64Array> {
  const { storage: st, load: l } = out;
  return {
    ...seriesByName('generation', { solar: out.solarHourly, wind: out.windHourly }),
    ...(st
      ? seriesByName('storage', { charge: st.run.charge, discharge: st.run.discharge, soc: st.run.soc, grid: st.grid })
      : {}),
    ...(st?.ancillary ? seriesByName('ancillary', { up: st.ancillary.upHourly, down: st.ancillary.downHourly }) : {}),
    ...(l ? seriesByName('load', l.hourly) : {}),
  };
}

/** Operating year `i` of the series (views). */
function yearOf(series: HourlyRecord<Float64Array>, i: number): HourlyRecord<Float64Array> {
  const year: Record<string, Float64Array> = {};
  for (const [name, all] of Object.entries(series))
    year[name] = all.subarray(i * HOURS_PER_YEAR, (i + 1) * HOURS_PER_YEAR);
  return year as HourlyRecord<Float64Array>;
}

/** Arrays of 25 × 8,760 that the hourly results are written into (every hour is written). */
export interface HourlyBuffers {
  solar: Float64Array;
  wind: Float64Array;
  /** The battery's (charge, discharge, SOC, grid): added by the first calculation with a battery, reused by the next. */
  storage?: StorageBuffers;
  /** The load's (its MWh, delivered, direct, from the battery, unmet, excess): added by the first calculation with a load. */
  load?: LoadBuffers;
}

/**
 * The hybrid plant's 25 years: each year's output after degradation and the export limit, and what
 * the limit cut. `hourly`: where to write the hourly results, for a caller that reuses two arrays
 * instead of 3.5 MB of fresh ones a calculation. `memo`: the plant's hours kept from the last
 * calculation (plant.memo.ts), copied on a hit, kept on a miss.
 */
export function hybridYears(
  inputs: ResolvedInputs,
  generation: Generation,
  hourly?: HourlyBuffers,
  memo?: PlantMemoUse | null,
): PlantYears {
  const limitMw = inputs.grid.export_limit_mw ?? Number.POSITIVE_INFINITY;
  const { capacity_mw_dc: solarMw, degradation_percent_per_year: solarDegradation } = inputs.solar;
  const { capacity_mw: windMw, degradation_percent_per_year: windDegradation } = inputs.wind;
  const out: PlantYears = {
    solarHourly: hourly?.solar ?? new Float64Array(YEARS * HOURS_PER_YEAR),
    windHourly: hourly?.wind ?? new Float64Array(YEARS * HOURS_PER_YEAR),
    annual: [],
    revenue: [],
    marketYears: [],
    energy: {
      deliveredMwh: new Float64Array(YEARS),
      solarMwh: new Float64Array(YEARS),
      windMwh: new Float64Array(YEARS),
    },
    curtailedMwh: new Float64Array(YEARS),
  };
  const curtailed = out.curtailedMwh;
  const operatorSeries = inputs.grid.export_limit_hourly_mw;
  if (operatorSeries) out.operatorCurtailedMwh = new Float64Array(YEARS);
  const kept = memo?.hours;
  if (memo?.hit && kept) {
    out.solarHourly.set(kept.solar);
    out.windHourly.set(kept.wind);
    curtailed.set(kept.curtailed);
    if (out.operatorCurtailedMwh && kept.operatorCurtailed) out.operatorCurtailedMwh.set(kept.operatorCurtailed);
    return out;
  }
  for (let i = 0; i < YEARS; i++) {
    const year = i + 1;
    const operator: OperatorLimit | undefined = operatorSeries && { limitMw: operatorSeries, curtailedMwh: 0 };
    curtailed[i] = hybridYear(
      profileYear(generation.solar, i),
      profileYear(generation.wind, i),
      solarMw * degradationFactor(solarDegradation, year),
      windMw * degradationFactor(windDegradation, year),
      limitMw,
      out.solarHourly.subarray(i * HOURS_PER_YEAR, year * HOURS_PER_YEAR),
      out.windHourly.subarray(i * HOURS_PER_YEAR, year * HOURS_PER_YEAR),
      operator,
    );
    if (operator && out.operatorCurtailedMwh) out.operatorCurtailedMwh[i] = operator.curtailedMwh;
  }
  if (kept) {
    kept.solar.set(out.solarHourly);
    kept.wind.set(out.windHourly);
    kept.curtailed.set(curtailed);
    if (out.operatorCurtailedMwh && kept.operatorCurtailed) kept.operatorCurtailed.set(out.operatorCurtailedMwh);
  }
  return out;
}

/** A load with what its excess earns each hour of the 25 years: the prices computed once, for the battery and the load. */
export interface PricedLoad {
  model: LoadModel;
  excessPrice: Float64Array;
}

/**
 * With a battery: its 25 years on the plant's hours (and the load's, when there is one). `hourly`:
 * the caller's reused arrays, which get the battery's series too; `memo`: as for hybridYears.
 */
export function batteryYears(
  inputs: ResolvedInputs,
  generation: Generation,
  market: MarketModel,
  load: PricedLoad | null,
  out: PlantYears,
  hourly?: HourlyBuffers,
  memo?: PlantMemoUse | null,
): void {
  const battery = batteryOf(inputs);
  if (!battery) return;
  const kept = memo?.hours;
  let producedWithout: Float64Array;
  if (kept && memo.hit) producedWithout = kept.producedWithout.slice();
  else {
    producedWithout = plantEnergy(out, out.curtailedMwh);
    kept?.producedWithout.set(producedWithout);
  }
  const hourlyOut = { solar: out.solarHourly, wind: out.windHourly };
  if (hourly) hourly.storage ??= storageBuffers();
  out.storage = storageYears(inputs, battery, generation, market, hourlyOut, load, hourly?.storage, memo);
  // What the operator finally curtailed: its cut less what the battery stored of it.
  if (out.storage.operatorCurtailedMwh) out.operatorCurtailedMwh = out.storage.operatorCurtailedMwh;
  out.storageContext = { battery, curtailedWithout: out.curtailedMwh, producedWithout };
}

/** With a load: its hours served by the plant's (and the battery's). */
export function loadYears(load: PricedLoad | null, out: PlantYears, hourly?: HourlyBuffers): void {
  if (load) out.load = serveLoadOf(load, out, out.storageContext?.battery ?? null, hourly?.load);
}

/**
 * With market.capacity: the capacity credit of year 1's hours at the point of interconnection, once
 * the battery and the load have made them final (the credit holds for every year).
 */
export function capacityCredit(inputs: ResolvedInputs, out: PlantYears): void {
  const capacity: CapacityInputs | undefined = inputs.market.capacity;
  if (!capacity) return;
  const battery = out.storageContext?.battery ?? null;
  const nameplate =
    inputs.solar.capacity_mw_dc / inputs.solar.dc_ac_ratio + inputs.wind.capacity_mw + (battery?.power_mw ?? 0);
  const st = out.storage;
  out.capacity = plantCapacityCredit(capacity, nameplate, inputs.grid.export_limit_mw, {
    solar: out.solarHourly,
    wind: out.windHourly,
    battery: st && battery ? { discharge: st.run.discharge, soc: st.run.soc, powerMw: battery.power_mw } : null,
  });
}

/**
 * Each operating year's revenue, energy and annual row, once the hours are final; progress from
 * `from` up to `to`, and `onYear` with each finished year's series.
 */
export function revenueYears(
  inputs: ResolvedInputs,
  market: MarketModel,
  out: PlantYears,
  progress: { report: ProgressReporter; from: number; to: number },
  onYear?: YearReporter,
): void {
  const marketOut = emptyMarketYear();
  const perYear = (progress.to - progress.from) / YEARS;
  const curtailed = out.curtailedMwh;
  const battery = out.storageContext?.battery;
  const series = plantSeries(out);
  for (let i = 0; i < YEARS; i++) {
    const year = i + 1;
    const solarOut = out.solarHourly.subarray(i * HOURS_PER_YEAR, year * HOURS_PER_YEAR);
    const windOut = out.windHourly.subarray(i * HOURS_PER_YEAR, year * HOURS_PER_YEAR);
    // The battery's net energy, weighted by settle (plant.storage.ts) as it ran over the hours.
    const storage = out.storage;
    const net = storage ? { ppaMwh: storage.netPpaMwh[i], value: storage.netValue[i] } : undefined;
    marketOut.payments = {
      capacityCreditPercent: out.capacity?.percent ?? 0,
      accreditedMw: out.capacity?.accreditedMw ?? 0,
      operatorCurtailedMwh: out.operatorCurtailedMwh?.[i] ?? 0,
    };
    const m = marketYear(market, year, solarOut, windOut, marketOut, net, out.storage?.ancillary?.revenue[i]);
    // NaN and Infinity propagate into the sums, so one check covers every hour.
    if (!Number.isFinite(m.solarMwh + m.windMwh + curtailed[i] + m.revenue.total)) {
      throw new CalculationInputError(
        'non_finite_result',
        `year ${year}: the hourly generation or revenue is not a finite number`,
      );
    }
    const l = out.load;
    if (onYear) onYear(i, yearOf(series, i));
    out.revenue.push(l ? withPayments(loadRevenue(l, i), m.revenue) : { ...m.revenue });
    out.marketYears.push({ ...m, revenue: { ...m.revenue } });
    out.energy.deliveredMwh[i] = m.solarMwh + m.windMwh;
    out.energy.solarMwh[i] = m.solarMwh;
    out.energy.windMwh[i] = m.windMwh;
    const st = out.storage && battery ? { battery, years: out.storage } : null;
    const row = annualRow(inputs, year, m, curtailed[i], st, l, out.operatorCurtailedMwh);
    if (st) out.energy.deliveredMwh[i] = row.export_mwh;
    out.annual.push(row);
    progress.report('market', progress.from + (i + 1) * perYear);
  }
}

/** The load served by the plant's hours (and the battery's, when there is one). */
function serveLoadOf(
  load: PricedLoad,
  out: PlantYears,
  battery: StorageInputs | null,
  buffers: LoadBuffers | undefined,
): LoadYears {
  const st = out.storage;
  const hours = { solar: out.solarHourly, wind: out.windHourly };
  if (!st || !battery) return serveLoad(load.model, load.excessPrice, hours, buffers);
  return serveLoad(
    load.model,
    load.excessPrice,
    {
      ...hours,
      charge: st.run.charge,
      fromGrid: st.run.fromGrid,
      discharge: st.run.discharge,
      soc: st.run.soc,
      grid: st.grid,
      battery: batteryConstants(battery),
    },
    buffers,
  );
}

/** With a load: the year's revenue, the contract's and the excess sold (the PPA and merchant lines are 0). */
function loadRevenue(l: LoadYears, i: number) {
  const contract = l.contractRevenue[i];
  const excess = l.excessRevenue[i];
  return {
    ppa_solar: 0,
    ppa_wind: 0,
    merchant_solar: 0,
    merchant_wind: 0,
    load_contract: contract,
    load_excess: excess,
    total: contract + excess,
  };
}

/** With a load, the capacity and curtailment payments are the plant's as without one. */
function withPayments(lines: RevenueLines, market: RevenueLines): RevenueLines {
  if (market.capacity !== undefined) {
    lines.capacity = market.capacity;
    lines.total += market.capacity;
  }
  if (market.curtailment_payment !== undefined) {
    lines.curtailment_payment = market.curtailment_payment;
    lines.total += market.curtailment_payment;
  }
  return lines;
}

/** Each year's revenue lines at another year-1 PPA price, from stage 4's sums (no pass over the hours). */
export function revenueAtPrice(market: MarketModel, years: readonly MarketYear[]) {
  return (price: number): RevenueLines[] => {
    const priced = withPpaPrice(market, price);
    return years.map((sums, i) =>
      revenueOf(priced, i + 1, sums, { ppa_solar: 0, ppa_wind: 0, merchant_solar: 0, merchant_wind: 0, total: 0 }),
    );
  };
}

/** Without a battery: the energy curtailed at the limit, % of the output before it, all years. */
export function curtailmentPercent(plant: PlantYears): number {
  let curtailed = 0;
  let produced = 0;
  for (let i = 0; i < YEARS; i++) {
    curtailed += plant.curtailedMwh[i];
    produced += plant.curtailedMwh[i] + plant.energy.solarMwh[i] + plant.energy.windMwh[i];
  }
  return produced > 0 ? (100 * curtailed) / produced : 0;
}

/** Each year's solar + wind output before the limit: delivered + curtailed. */
function plantEnergy(out: PlantYears, curtailed: Float64Array): Float64Array {
  const sums = new Float64Array(YEARS);
  for (let i = 0; i < YEARS; i++) {
    let sum = curtailed[i];
    for (let h = i * HOURS_PER_YEAR; h < (i + 1) * HOURS_PER_YEAR; h++) sum += out.solarHourly[h] + out.windHourly[h];
    sums[i] = sum;
  }
  return sums;
}

/** The battery's columns of a year's energy row (its curtailment and export are the row's own). */
function storageAnnual(battery: StorageInputs, s: StorageYears, i: number, curtailedWithout: number) {
  return {
    storage_charge_from_plant_mwh: s.fromPlant[i],
    storage_charge_from_grid_mwh: s.fromGrid[i],
    storage_discharge_mwh: s.discharge[i],
    storage_cycles: s.discharge[i] / battery.energy_mwh,
    storage_capacity_percent: s.run.capacityPercent[i],
    storage_replacements: s.run.replacements[i],
    curtailed_without_storage_mwh: curtailedWithout,
  };
}

/**
 * A year's energy row, built once from each part's figures: the plant's, then the battery's columns
 * (what it saved from the limit is not curtailed; its charge and discharge change the export), then
 * the load's (the excess it curtails is curtailed), then what the operator's hourly limit cut.
 */
function annualRow(
  inputs: ResolvedInputs,
  year: number,
  m: MarketYear,
  curtailedWithout: number,
  storage: { battery: StorageInputs; years: StorageYears } | null,
  load: LoadYears | undefined,
  operatorCurtailed: Float64Array | undefined,
) {
  const i = year - 1;
  const solarCapacityMwh = inputs.solar.capacity_mw_dc * HOURS_PER_YEAR;
  const windCapacityMwh = inputs.wind.capacity_mw * HOURS_PER_YEAR;
  const s = storage?.years;
  const curtailed = s ? Math.max(0, curtailedWithout - s.fromSurplus[i]) : curtailedWithout;
  return {
    year,
    solar_mwh: m.solarMwh,
    wind_mwh: m.windMwh,
    curtailed_mwh: load ? curtailed + load.excessCurtailed[i] : curtailed,
    export_mwh: s ? m.solarMwh + m.windMwh - s.fromPlant[i] - s.fromGrid[i] + s.discharge[i] : m.solarMwh + m.windMwh,
    solar_capacity_factor: solarCapacityMwh > 0 ? m.solarMwh / solarCapacityMwh : null,
    wind_capacity_factor: windCapacityMwh > 0 ? m.windMwh / windCapacityMwh : null,
    ...(storage ? storageAnnual(storage.battery, storage.years, i, curtailedWithout) : {}),
    ...(load ? loadAnnual(load, i) : {}),
    ...(operatorCurtailed ? { curtailed_by_operator_mwh: operatorCurtailed[i] } : {}),
  };
}
