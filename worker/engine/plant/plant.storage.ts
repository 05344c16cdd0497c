// The battery inside stage 3: after every year's plant output and export limit are known (the
// dispatch looks 48 hours ahead, across year ends), the battery runs over the 25 years; the energy
// it stores that the limit would have curtailed returns to solar and wind (produced and not
// curtailed), in proportion to what each lost to the limit in that hour.
import { HOURS_PER_YEAR, YEARS } from '../../../shared/calendar.ts';
import type { ResolvedInputs, StorageInputs } from '../../../shared/schemas/inputs.ts';
import type { Kpis } from '../../../shared/schemas/result.ts';
import { escalation } from '../escalation.ts';
import { backupFactor, contractPrice, type LoadModel } from '../load/load.ts';
import { hourPrices, type MarketModel, ppaPrice } from '../market/market.ts';
import { merchantFactor, merchantPriceOf } from '../prices.ts';
import { keptRunSeries, runStorage, type StorageRun } from '../storage/storage.ts';
import type { Generation } from './generation.ts';
import { profileYear } from './generation.ts';
import { degradationFactor } from './hybrid.ts';
import { type AncillaryYears, ancillaryMarket, ancillaryYears } from './plant.ancillary.ts';
import type { PlantMemoUse } from './plant.memo.ts';

const HOURS = YEARS * HOURS_PER_YEAR;

/** The plant's hours the battery is offered, when the caller keeps no PlantMemo (plant.memo.ts). */
let offered: Record<'delivered' | 'surplus' | 'surplusSolar' | 'price', Float64Array> | null = null;

/**
 * Work arrays of the plant's hours, reused between calculations (an engine thread runs one at a
 * time): the battery run's own, in its kernel's memory (storage.ts `keptRunSeries`).
 */
function scratch(): Record<'fromSurplus' | 'fromGrid', Float64Array> {
  const { fromSurplus, fromGrid } = keptRunSeries();
  return { fromSurplus, fromGrid };
}

function offeredScratch(): NonNullable<typeof offered> {
  offered ??= {
    delivered: new Float64Array(HOURS),
    surplus: new Float64Array(HOURS),
    surplusSolar: new Float64Array(HOURS),
    price: new Float64Array(HOURS),
  };
  return offered;
}

/** The battery's hourly series of a calculation (25 × 8,760 each, every hour written): HourlyBuffers.storage. */
export interface StorageBuffers {
  charge: Float64Array;
  discharge: Float64Array;
  soc: Float64Array;
  grid: Float64Array;
}

/**
 * The charge, discharge and SOC series are the battery run's own, in its kernel's memory (storage.ts
 * `keptRunSeries`: a market strategy's days are committed there, not copied); the grid's is new.
 */
export function storageBuffers(): StorageBuffers {
  const { charge, discharge, soc } = keptRunSeries();
  return { charge, discharge, soc, grid: new Float64Array(HOURS) };
}

export interface StorageYears {
  run: StorageRun;
  /**
   * Per year, the battery's net energy at the point of interconnection (discharge − charge, each hour)
   * weighted as marketYear weighs the plant's: Σ PPA factor × net and Σ merchant price × net.
   */
  netPpaMwh: Float64Array;
  netValue: Float64Array;
  grid: Float64Array;
  /** Per year: MWh stored that the limit would have curtailed, from the plant in all, from the grid. */
  fromSurplus: Float64Array;
  fromPlant: Float64Array;
  fromGrid: Float64Array;
  discharge: Float64Array;
  /** Per year: Σ PPA factor × and Σ merchant price × (the battery's change to the export). */
  gainPpaMwh: Float64Array;
  gainValue: Float64Array;
  /** With ancillary products: their revenue by year and the hourly reservations. */
  ancillary?: AncillaryYears;
  /**
   * With the operator's hourly limit: per year, the MWh it cut below the fixed limit that the battery
   * did not store (the battery's charge from the limits' surplus counts against the operator's cut first).
   */
  operatorCurtailedMwh?: Float64Array;
}

/**
 * Runs the battery on the plant's hours (solar and wind hourly as the limit left them, written over
 * with the energy the battery saved from curtailment). `buffers`: where to write its hourly series
 * (fresh arrays without); `memo`: the hours it is offered, kept from the last calculation on a hit.
 */
export function storageYears(
  inputs: ResolvedInputs,
  battery: StorageInputs,
  generation: Generation,
  market: MarketModel,
  hourly: { solar: Float64Array; wind: Float64Array },
  load: { model: LoadModel; excessPrice: Float64Array } | null = null,
  buffers?: StorageBuffers,
  memo?: PlantMemoUse | null,
): StorageYears {
  const limitMw = inputs.grid.export_limit_mw ?? Number.POSITIVE_INFINITY;
  const kept = memo?.hours;
  const { delivered, surplus, surplusSolar, price: marketPrice } = kept ?? offeredScratch();
  // With a load, the hour's price is what its excess sells for (the merchant price, or 0), as the
  // load stage computed it once; without, the market's price of an exported MWh.
  const price = load ? load.excessPrice : marketPrice;
  const operatorMw = inputs.grid.export_limit_hourly_mw;
  // With the operator's series: each hour's MWh it cut below the fixed limit (as hybridYear cut it).
  const operatorCut = operatorMw ? (kept?.operatorCut ?? new Float64Array(HOURS)) : null;
  if (!memo?.hit) {
    // A memo's price is the market's even with a load: the next calculation may have none.
    const offer = { delivered, surplus, surplusSolar, price: load && !kept ? null : marketPrice, operatorCut };
    offeredHours(inputs, generation, market, hourly, limitMw, offer);
    memo?.kept();
  }
  const f = inputs.finance;
  // One rate of inflation and O&M escalation together (1 + (x − 1) gives x back exactly).
  const rate = (1 + f.inflation_percent / 100) * (1 + f.om_escalation_percent / 100) - 1;
  const vom = battery.costs.variable_om_per_mwh;
  // The run writes every hour of fromSurplus and fromGrid, so the reused arrays need no clearing.
  const products = load ? [] : (inputs.market.ancillary ?? []);
  const reserves = products.length > 0 ? ancillaryMarket(products, market) : undefined;
  const plant = {
    delivered,
    surplus,
    price,
    limitMw,
    ...(operatorMw ? { operatorMw } : {}),
    ...(load ? { load: loadHours(load.model) } : {}),
    ...(reserves ? { reserves } : {}),
  };
  const run = runStorage(battery, plant, (y) => vom * escalation(rate, y + 1), { ...scratch(), ...buffers });
  const out = settle(market, run, delivered, surplus, surplusSolar, hourly, buffers?.grid);
  if (reserves && run.reserve) out.ancillary = ancillaryYears(products, reserves, run.reserve);
  if (operatorCut) out.operatorCurtailedMwh = unstoredCut(operatorCut, run.fromSurplus);
  return out;
}

/**
 * What the plant offers the battery each hour of the 25 years: its export and the surplus over the
 * limit (and solar's part of it), from the hours the limit left (`hourly`) and the undegraded
 * output; the market's price of an exported MWh (when `price` is given); the operator's cut.
 */
function offeredHours(
  inputs: ResolvedInputs,
  generation: Generation,
  market: MarketModel,
  hourly: { solar: Float64Array; wind: Float64Array },
  limitMw: number,
  out: {
    delivered: Float64Array;
    surplus: Float64Array;
    surplusSolar: Float64Array;
    price: Float64Array | null;
    operatorCut: Float64Array | null;
  },
): void {
  const { delivered, surplus, surplusSolar, price, operatorCut } = out;
  const operatorMw = inputs.grid.export_limit_hourly_mw;
  const solarHourly = hourly.solar;
  const windHourly = hourly.wind;
  for (let i = 0; i < YEARS; i++) {
    const year = i + 1;
    const solarFactor =
      inputs.solar.capacity_mw_dc * degradationFactor(inputs.solar.degradation_percent_per_year, year);
    const windFactor = inputs.wind.capacity_mw * degradationFactor(inputs.wind.degradation_percent_per_year, year);
    const solarRaw = profileYear(generation.solar, i);
    const windRaw = profileYear(generation.wind, i);
    const at = i * HOURS_PER_YEAR;
    if (price) hourPrices(market, year, price.subarray(at, at + HOURS_PER_YEAR));
    for (let h = 0; h < HOURS_PER_YEAR; h++) {
      const k = at + h;
      const s = solarHourly[k];
      const w = windHourly[k];
      delivered[k] = s + w;
      const lostSolar = solarRaw[h] * solarFactor - s;
      const lostWind = windRaw[h] * windFactor - w;
      surplusSolar[k] = Math.max(0, lostSolar);
      surplus[k] = surplusSolar[k] + Math.max(0, lostWind);
      if (operatorCut && operatorMw) {
        const total = solarRaw[h] * solarFactor + windRaw[h] * windFactor;
        const limit = Math.min(limitMw, operatorMw[h]);
        operatorCut[k] = total > limit ? Math.min(total, limitMw) - limit : 0;
      }
    }
  }
}

/** Per year: Σ max(0, the operator's cut − the battery's charge from the surplus), hour by hour. */
function unstoredCut(cut: Float64Array, stored: Float64Array): Float64Array {
  const out = new Float64Array(YEARS);
  for (let i = 0; i < YEARS; i++) {
    let sum = 0;
    for (let k = i * HOURS_PER_YEAR; k < (i + 1) * HOURS_PER_YEAR; k++) sum += Math.max(0, cut[k] - stored[k]);
    out[i] = sum;
  }
  return out;
}

/** The load as the dispatch sees it: its MWh, each year's contract price and backup escalation. */
function loadHours(load: LoadModel) {
  const contract = new Float64Array(YEARS);
  const backupFactorOf = new Float64Array(YEARS);
  for (let i = 0; i < YEARS; i++) {
    contract[i] = contractPrice(load, i);
    backupFactorOf[i] = backupFactor(load, i);
  }
  return { mw: load.mw, contract, backupPrice: load.backupPrice, backupFactor: backupFactorOf, sell: load.sell };
}

/**
 * A PPA time-of-delivery factor of 1 every hour, for settle without the market's: 1 × x is x exactly,
 * and one product in the loop (no test of the factor each hour) makes settle's hours ~40 % faster.
 */
const NO_FACTORS = new Float64Array(HOURS_PER_YEAR).fill(1);

/** Hourly grid flows, the saved energy back to solar and wind, and the yearly sums (the net's too). */
function settle(
  market: MarketModel,
  run: StorageRun,
  delivered: Float64Array,
  surplus: Float64Array,
  surplusSolar: Float64Array,
  hourly: { solar: Float64Array; wind: Float64Array },
  gridOut: Float64Array = new Float64Array(HOURS),
): StorageYears {
  const a = () => new Float64Array(YEARS);
  const out: StorageYears = {
    run,
    netPpaMwh: a(),
    netValue: a(),
    grid: gridOut,
    fromSurplus: a(),
    fromPlant: a(),
    fromGrid: a(),
    discharge: a(),
    gainPpaMwh: a(),
    gainValue: a(),
  };
  const tod = market.ppaMultiplier ?? NO_FACTORS;
  const { charge, discharge, fromSurplus, fromGrid } = run;
  const grid = out.grid;
  const solar = hourly.solar;
  const wind = hourly.wind;
  for (let i = 0; i < YEARS; i++) {
    const merchant = merchantPriceOf(market, i + 1);
    let saved = 0;
    let plant = 0;
    let bought = 0;
    let discharged = 0;
    let gainPpa = 0;
    let gainValue = 0;
    // The battery's net, weighted here for marketYear: each hour's product as it formed it, summed in
    // the same order (the same bits), without a 25-year net array written here and read there twice.
    let netPpa = 0;
    let netValue = 0;
    for (let h = 0, k = i * HOURS_PER_YEAR; h < HOURS_PER_YEAR; h++, k++) {
      const stored = fromSurplus[k];
      // Read every hour, not only where the battery stored (~5 % of hours, scattered): a sequential
      // stream the processor prefetches (0.5 ms a 25-year run less than the scattered reads).
      const all = surplus[k];
      const ofSolar = surplusSolar[k];
      if (stored > 0) {
        // Each technology gets back its share of what the limit took (an absent one: exactly 0).
        solar[k] += (stored * ofSolar) / all;
        wind[k] += (stored * (all - ofSolar)) / all;
      }
      const x = charge[k];
      const y = discharge[k];
      const net = y - x;
      netPpa += tod[h] * net;
      netValue += merchant[h] * net;
      const g = solar[k] + wind[k] - x + y;
      grid[k] = g;
      saved += stored;
      plant += x - fromGrid[k];
      bought += fromGrid[k];
      discharged += y;
      // The export's change: grid − what the plant alone would have exported.
      const gain = g - delivered[k];
      gainPpa += tod[h] * gain;
      gainValue += merchant[h] * gain;
    }
    out.fromSurplus[i] = saved;
    out.fromPlant[i] = plant;
    out.fromGrid[i] = bought;
    out.discharge[i] = discharged;
    out.gainPpaMwh[i] = gainPpa;
    out.gainValue[i] = gainValue;
    out.netPpaMwh[i] = netPpa;
    out.netValue[i] = netValue;
  }
  return out;
}

/** The battery's KPIs, at the final year-1 PPA price (given, or solved). */
export function storageKpis(
  battery: StorageInputs,
  market: MarketModel,
  s: StorageYears,
  curtailedWithout: ArrayLike<number>,
  producedWithout: ArrayLike<number>,
  ppaYear1: number,
): Partial<Kpis> {
  let revenue = 0;
  let saved = 0;
  let curtailed = 0;
  let produced = 0;
  const priced = { ...market, ppaPrice: ppaYear1 };
  for (let i = 0; i < YEARS; i++) {
    const year = i + 1;
    const merchant = merchantFactor(market, year) * (1 - market.ppaShare);
    revenue += ppaPrice(priced, year) * market.ppaShare * s.gainPpaMwh[i] + merchant * s.gainValue[i];
    saved += s.fromSurplus[i];
    curtailed += curtailedWithout[i];
    produced += producedWithout[i];
  }
  let ancillary = 0;
  for (const year of s.ancillary?.revenue ?? []) for (const v of Object.values(year)) ancillary += v;
  return {
    ...(s.ancillary ? { ancillary_revenue: ancillary } : {}),
    storage_cycles_year1: s.discharge[0] / battery.energy_mwh,
    curtailment_percent: produced > 0 ? (100 * (curtailed - saved)) / produced : 0,
    curtailment_recovered_mwh: saved,
    storage_revenue: revenue + ancillary,
  };
}

/** The battery's reserve LP solver, loaded when a scenario with ancillary products first needs it. */
export { loadReserveSolver } from '../storage/storage.reserves.ts';
