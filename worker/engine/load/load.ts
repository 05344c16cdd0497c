// A buyer's load served by the plant (docs/load.md): each hour the plant (and its battery) delivers
// D = min(load, what it puts out), the rest of the load is unmet (the buyer's backup from the grid),
// the rest of the output is excess (sold at the merchant price, or curtailed). Excess in one hour
// never serves another: only the battery moves energy between hours. From the hours come the
// contract's revenue, its shortfall penalties, and the load's KPIs.
import { HOURS_PER_DAY, HOURS_PER_YEAR, MONTH_OF_HOUR, YEARS } from '../../../shared/calendar.ts';
import type { HourlyRoles } from '../../../shared/hourly.series.ts';
import type { LoadInputs, ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import type { AnnualEnergy, Kpis } from '../../../shared/schemas/result.ts';
import { nominalRate, npv } from '../discount.ts';
import { escalation } from '../escalation.ts';
import { type MerchantPrices, merchantFactor, merchantPriceOf } from '../prices.ts';

const HOURS = YEARS * HOURS_PER_YEAR;
/** A served hour, for hours_load_met_percent: delivered ≥ 95 % of the load (HOPP's time_load_met). */
const MET_SHARE = 0.95;

/** The load and its contract, ready for the hours. */
export interface LoadModel {
  inputs: LoadInputs;
  /** The load of every hour of the 25 years, MWh (growth applied). */
  mw: Float64Array;
  /** Year-1 backup price and clean share of each hour of the year. */
  backupPrice: Float64Array;
  cleanShare: Float64Array;
  sell: boolean;
  peak: Uint8Array;
}

/**
 * The load's hourly series of a calculation (25 × 8,760 each, every hour written), for a caller that
 * keeps none of a result's arrays and passes the same ones every time (HourlyBuffers.load).
 */
export interface LoadBuffers {
  mw: Float64Array;
  delivered: Float64Array;
  direct: Float64Array;
  battery: Float64Array;
  unmet: Float64Array;
  excess: Float64Array;
  /** What an excess MWh earns each hour (excessPriceHours). */
  excessPrice: Float64Array;
}

export function loadBuffers(): LoadBuffers {
  const a = () => new Float64Array(HOURS);
  return { mw: a(), delivered: a(), direct: a(), battery: a(), unmet: a(), excess: a(), excessPrice: a() };
}

/** The load of the inputs, or null without one. `buffers`: where to write its hours (fresh arrays without). */
export function prepareLoad(inputs: ResolvedInputs, buffers?: LoadBuffers): LoadModel | null {
  const load = inputs.load;
  if (!load) return null;
  const mw = buffers?.mw ?? new Float64Array(HOURS);
  const given = load.hourly_mw;
  const years = given ? given.length / HOURS_PER_YEAR : 1;
  for (let i = 0; i < YEARS; i++) {
    const growth = escalation(load.growth_percent_per_year / 100, i + 1);
    const from = (i % years) * HOURS_PER_YEAR;
    for (let h = 0; h < HOURS_PER_YEAR; h++) {
      mw[i * HOURS_PER_YEAR + h] = (given ? given[from + h] : (load.flat_mw ?? 0)) * growth;
    }
  }
  const peak = new Uint8Array(HOURS_PER_DAY);
  for (const h of load.contract.peak_hours) peak[h] = 1;
  return {
    inputs: load,
    mw,
    backupPrice: hourly(load.backup.price_per_mwh),
    cleanShare: hourly(load.backup.clean_share),
    sell: load.excess === 'sell',
    peak,
  };
}

function hourly(value: number | readonly number[]): Float64Array {
  return typeof value === 'number' ? new Float64Array(HOURS_PER_YEAR).fill(value) : Float64Array.from(value);
}

/** The contract price of operating year index i (0 = year 1). */
export function contractPrice(load: LoadModel, i: number): number {
  const c = load.inputs.contract;
  return c.price_per_mwh * escalation(c.escalation_percent / 100, i + 1);
}

/** The backup price's escalation factor of operating year index i. */
export function backupFactor(load: LoadModel, i: number): number {
  return escalation(load.inputs.backup.escalation_percent / 100, i + 1);
}

/** The merchant price an excess MWh earns in each hour of year index i (0 when excess is curtailed). */
export function excessPrices(load: LoadModel, market: MerchantPrices, i: number, out: Float64Array): void {
  const f = merchantFactor(market, i + 1);
  const price = merchantPriceOf(market, i + 1);
  for (let h = 0; h < HOURS_PER_YEAR; h++) out[h] = load.sell ? price[h] * f : 0;
}

/**
 * What an excess MWh earns in each hour of the 25 years (0 when excess is curtailed), computed once
 * for the battery's dispatch and the load's accounts, into `out` (every hour written): the caller's
 * reused array (LoadBuffers.excessPrice), or a fresh one.
 */
export function excessPriceHours(
  load: LoadModel,
  market: MerchantPrices,
  out: Float64Array = new Float64Array(HOURS),
): Float64Array {
  for (let i = 0; i < YEARS; i++)
    excessPrices(load, market, i, out.subarray(i * HOURS_PER_YEAR, (i + 1) * HOURS_PER_YEAR));
  return out;
}

/** The plant's hours as the load sees them (views or arrays of 25 × 8,760). */
export interface ServedHours {
  solar: Float64Array;
  wind: Float64Array;
  /** With a battery: AC charge, of it from the grid, discharge, and the net at the grid (adjusted here). */
  charge?: Float64Array;
  fromGrid?: Float64Array;
  discharge?: Float64Array;
  soc?: Float64Array;
  grid?: Float64Array;
  /** The battery's charging efficiency, standing-loss factor per hour and SOC at the start, MWh. */
  battery?: { etaIn: number; keep: number; initialSoc: number };
}

/** Each year's figures of the load. */
export interface LoadYears {
  /**
   * Hourly (25 × 8,760), by their roles in the series registry: the load, what was delivered to
   * it, its split (served directly, from the battery, unmet) and the excess sold.
   */
  hourly: HourlyRoles<'load', Float64Array>;
  /** Per year (index 0 = year 1). */
  load: Float64Array;
  delivered: Float64Array;
  unmet: Float64Array;
  excess: Float64Array;
  excessSold: Float64Array;
  /** MWh curtailed because excess is not sold (`excess: "curtail"`). */
  excessCurtailed: Float64Array;
  /** Delivered energy that came from the plant (not from grid charging), and the clean part of unmet hours. */
  clean: Float64Array;
  cleanBackup: Float64Array;
  metHours: Float64Array;
  plant: Float64Array;
  /** Money of the year: contract revenue, excess sales, grid energy bought for the battery, penalties, backup. */
  contractRevenue: Float64Array;
  excessRevenue: Float64Array;
  gridEnergyCost: Float64Array;
  penalty: Float64Array;
  backupCost: Float64Array;
  availability: { year: number; months: number[]; peak: number; shortfall: number }[];
}

/**
 * The load's hours: delivered, unmet and excess in each hour, with the battery's charge from the
 * plant subtracted and its discharge added. Excess that is curtailed (`excess: "curtail"`) is taken
 * from solar and wind in proportion (and from the grid series), so they keep their meaning:
 * produced and not curtailed. The clean share of what the battery delivers is tracked as a pool:
 * energy charged from the grid is never clean, and losses and discharge take from both parts in
 * proportion to what is stored. `buffers`: where to write its hourly series (fresh arrays without).
 */
export function serveLoad(
  load: LoadModel,
  excessPrice: Float64Array,
  hours: ServedHours,
  buffers?: LoadBuffers,
): LoadYears {
  const a = () => new Float64Array(YEARS);
  const fresh = () => new Float64Array(HOURS);
  const out: LoadYears = {
    hourly: {
      load: load.mw,
      delivered: buffers?.delivered ?? fresh(),
      direct: buffers?.direct ?? fresh(),
      battery: buffers?.battery ?? fresh(),
      unmet: buffers?.unmet ?? fresh(),
      excess: buffers?.excess ?? fresh(),
    },
    load: a(),
    delivered: a(),
    unmet: a(),
    excess: a(),
    excessSold: a(),
    excessCurtailed: a(),
    clean: a(),
    cleanBackup: a(),
    metHours: a(),
    plant: a(),
    contractRevenue: a(),
    excessRevenue: a(),
    gridEnergyCost: a(),
    penalty: a(),
    backupCost: a(),
    availability: [],
  };
  const state = { gridStored: 0, stored: hours.battery?.initialSoc ?? 0 };
  for (let i = 0; i < YEARS; i++) {
    const price = excessPrice.subarray(i * HOURS_PER_YEAR, (i + 1) * HOURS_PER_YEAR);
    serveYear(load, hours, i, state, price, out);
  }
  return out;
}

/** A year's sums over its hours. */
interface YearSums {
  monthLoad: Float64Array;
  monthDelivered: Float64Array;
  peakLoad: number;
  peakDelivered: number;
  sold: number;
  cut: number;
  clean: number;
  cleanBackup: number;
  met: number;
  plant: number;
  excessValue: number;
  gridCost: number;
  backupCost: number;
}

/** One year of serveLoad: its hours, then its sums, availability and penalties. */
function serveYear(
  load: LoadModel,
  hours: ServedHours,
  i: number,
  state: { gridStored: number; stored: number },
  price: Float64Array,
  out: LoadYears,
): void {
  const sums: YearSums = {
    monthLoad: new Float64Array(12),
    monthDelivered: new Float64Array(12),
    peakLoad: 0,
    peakDelivered: 0,
    sold: 0,
    cut: 0,
    clean: 0,
    cleanBackup: 0,
    met: 0,
    plant: 0,
    excessValue: 0,
    gridCost: 0,
    backupCost: 0,
  };
  serveHours(load, hours, i, state, price, sums, out.hourly);
  closeYear(load, i, sums, out);
}

/**
 * A year's hours: delivered, unmet, excess (curtailed when not sold), the clean part, into `sums`;
 * each hour's split into `split` (the published series).
 */
function serveHours(
  load: LoadModel,
  hours: ServedHours,
  i: number,
  state: { gridStored: number; stored: number },
  price: Float64Array,
  sums: YearSums,
  split: LoadYears['hourly'],
): void {
  const { solar, wind, charge, fromGrid, discharge, soc, grid, battery } = hours;
  const backup = backupFactor(load, i);
  const { mw, sell, cleanShare, backupPrice, peak } = load;
  const { delivered, direct: directOut, battery: fromBattery, unmet, excess } = split;
  const { monthLoad, monthDelivered } = sums;
  // The sums and the store's state in locals for the year (written back at its end).
  let { plant, cut, sold, clean, cleanBackup, met, excessValue, gridCost, backupCost, peakLoad, peakDelivered } = sums;
  let { gridStored, stored } = state;
  for (let h = 0, k = i * HOURS_PER_YEAR; h < HOURS_PER_YEAR; h++, k++) {
    const L = mw[k];
    const x = charge ? charge[k] : 0;
    const g = fromGrid ? fromGrid[k] : 0;
    const y = discharge ? discharge[k] : 0;
    const produced = solar[k] + wind[k];
    plant += produced;
    // What the plant and the battery put out toward the load: output less what the plant stored.
    const direct = Math.max(0, produced - (x - g));
    const D = Math.min(L, direct + y);
    const U = L - D;
    let E = direct + y - D;
    const served = Math.min(L, direct);
    delivered[k] = D;
    directOut[k] = served;
    fromBattery[k] = D - served;
    unmet[k] = U;
    // The clean part of D: the plant's own output first, then the battery's at the clean share of its store.
    let cleanPart = Math.min(D, direct);
    if (battery && soc) {
      // Nothing in the store from the grid (±0): the share is exactly 1, as its formula gives.
      const share = gridStored === 0 ? 1 : stored > 0 ? Math.max(0, Math.min(1, 1 - gridStored / stored)) : 1;
      cleanPart += (D - cleanPart) * share;
      // The grid's part of the store: losses and discharge take from both parts in proportion. With
      // none stored and none charged now, it stays +0 (what the formula gives for any finite SOC).
      const after = soc[k];
      if (gridStored !== 0 || g !== 0 || !Number.isFinite(after)) {
        const g1 =
          x > 0 ? gridStored * battery.keep + battery.etaIn * g : stored > 0 ? (gridStored * after) / stored : 0;
        gridStored = Math.min(Math.max(0, g1), Math.max(0, after));
      } else gridStored = 0;
      stored = after;
    }
    if (E > 0 && !sell) {
      // Curtailed: taken from solar and wind in proportion, never from the battery's discharge.
      const c = Math.min(E, direct);
      if (c > 0) {
        const s0 = solar[k];
        const w0 = wind[k];
        solar[k] = Math.max(0, s0 - (c * s0) / produced);
        wind[k] = Math.max(0, w0 - (c * w0) / produced);
        if (grid) grid[k] -= c;
      }
      cut += c;
      E -= c;
    }
    excess[k] = E;
    sold += E;
    clean += cleanPart;
    cleanBackup += cleanShare[h] * U;
    if (D >= MET_SHARE * L) met++;
    excessValue += E * price[h];
    gridCost += g * backupPrice[h] * backup;
    backupCost += U * backupPrice[h] * backup;
    const m = MONTH_OF_HOUR[h];
    monthLoad[m] += L;
    monthDelivered[m] += D;
    if (peak[h % HOURS_PER_DAY]) {
      peakLoad += L;
      peakDelivered += D;
    }
  }
  sums.plant = plant;
  sums.cut = cut;
  sums.sold = sold;
  sums.clean = clean;
  sums.cleanBackup = cleanBackup;
  sums.met = met;
  sums.excessValue = excessValue;
  sums.gridCost = gridCost;
  sums.backupCost = backupCost;
  sums.peakLoad = peakLoad;
  sums.peakDelivered = peakDelivered;
  state.gridStored = gridStored;
  state.stored = stored;
}

/** A year's figures from its sums: energy, money, availability by period and the shortfall's penalty. */
function closeYear(load: LoadModel, i: number, sums: YearSums, out: LoadYears): void {
  const { monthLoad, monthDelivered } = sums;
  let sumLoad = 0;
  let sumDelivered = 0;
  for (let m = 0; m < 12; m++) {
    sumLoad += monthLoad[m];
    sumDelivered += monthDelivered[m];
  }
  const contract = contractPrice(load, i);
  out.load[i] = sumLoad;
  out.delivered[i] = sumDelivered;
  out.unmet[i] = sumLoad - sumDelivered;
  out.excess[i] = sums.sold + sums.cut;
  out.excessSold[i] = sums.sold;
  out.excessCurtailed[i] = sums.cut;
  out.clean[i] = sums.clean;
  out.cleanBackup[i] = sums.cleanBackup;
  out.metHours[i] = sums.met;
  out.plant[i] = sums.plant;
  out.contractRevenue[i] = sumDelivered * contract;
  out.excessRevenue[i] = sums.excessValue;
  out.gridEnergyCost[i] = sums.gridCost;
  out.backupCost[i] = sums.backupCost;
  const percent = (d: number, l: number) => (l > 0 ? (100 * d) / l : 100);
  const months = Array.from({ length: 12 }, (_, m) => percent(monthDelivered[m], monthLoad[m]));
  // Each threshold's shortfall, MWh below it in each of its periods; thresholds add up.
  let shortfall = 0;
  for (const { period, min_percent } of load.inputs.contract.availability) {
    const below = (d: number, l: number) => Math.max(0, (min_percent / 100) * l - d);
    if (period === 'year') shortfall += below(sumDelivered, sumLoad);
    else if (period === 'peak') shortfall += below(sums.peakDelivered, sums.peakLoad);
    else for (let m = 0; m < 12; m++) shortfall += below(monthDelivered[m], monthLoad[m]);
  }
  out.penalty[i] = shortfall * load.inputs.contract.shortfall_penalty_multiple * contract;
  const peak = percent(sums.peakDelivered, sums.peakLoad);
  out.availability[i] = { year: percent(sumDelivered, sumLoad), months, peak, shortfall };
}

/** The load's columns of a year's energy row. */
export function loadAnnual(l: LoadYears, i: number): Partial<AnnualEnergy> {
  const a = l.availability[i];
  return {
    load_mwh: l.load[i],
    delivered_to_load_mwh: l.delivered[i],
    unmet_mwh: l.unmet[i],
    excess_mwh: l.excess[i],
    excess_sold_mwh: l.excessSold[i],
    availability_year_percent: a.year,
    availability_month_percent: a.months,
    availability_peak_percent: a.peak,
    shortfall_mwh: a.shortfall,
  };
}

/**
 * The load's KPIs: the match and CFE over the 25 years; availability of the worst year, the worst
 * month of any year and the worst year's peak block; year 1's unmet and excess MWh; the buyer's
 * levelised cost per MWh of load (contract payments + backup purchases). lcod_nominal is finance's
 * (finance.ts: the owner's costs over the energy delivered to the load).
 */
export function loadKpis(inputs: ResolvedInputs, l: LoadYears): Partial<Kpis> {
  let load = 0;
  let delivered = 0;
  let clean = 0;
  let plant = 0;
  let met = 0;
  let worstYear = Number.POSITIVE_INFINITY;
  let worstMonth = Number.POSITIVE_INFINITY;
  let worstPeak = Number.POSITIVE_INFINITY;
  const buyer = new Float64Array(YEARS + 1);
  const loadByYear = new Float64Array(YEARS + 1);
  for (let i = 0; i < YEARS; i++) {
    load += l.load[i];
    delivered += l.delivered[i];
    clean += l.clean[i] + l.cleanBackup[i];
    plant += l.plant[i];
    met += l.metHours[i];
    const a = l.availability[i];
    worstYear = Math.min(worstYear, a.year);
    worstMonth = Math.min(worstMonth, ...a.months);
    worstPeak = Math.min(worstPeak, a.peak);
    buyer[i + 1] = l.contractRevenue[i] + l.backupCost[i];
    loadByYear[i + 1] = l.load[i];
  }
  const f = inputs.finance;
  const real = f.discount_rate_real_percent / 100;
  const nominal = nominalRate(real, f.inflation_percent / 100);
  const loadPv = npv(nominal, loadByYear);
  const share = (part: number) => (load > 0 ? (100 * part) / load : 100);
  return {
    hourly_match_percent: share(delivered),
    annual_match_percent: load > 0 ? Math.min(100, (100 * plant) / load) : 100,
    cfe_percent: share(clean),
    availability_year_percent: worstYear,
    availability_worst_month_percent: worstMonth,
    availability_peak_percent: worstPeak,
    hours_load_met_percent: (100 * met) / HOURS,
    unmet_mwh_year1: l.unmet[0],
    excess_mwh_year1: l.excess[0],
    ...(loadPv > 0 ? { buyer_cost_per_mwh: npv(nominal, buyer) / loadPv } : {}),
  };
}
