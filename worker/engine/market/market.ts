// Revenue of delivered energy: a fixed share sold under the PPA at one
// escalating price, the rest at an hourly merchant price (one year escalated,
// or a forecast year by year: ../prices.ts). Prices change only from year to year, so a year's revenue needs
// one pass over the hours: energy-weighted merchant price sums.

import { DAYS_IN_MONTH, HOURS_PER_YEAR } from '../../../shared/calendar.ts';
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import type { RevenueLines } from '../../../shared/schemas/result.ts';
import { escalation } from '../escalation.ts';
import { forecastYears, type MerchantPrices, merchantFactor, merchantPriceOf } from '../prices.ts';
import { addPayments, type MarketPayments, type PaymentBasis, preparePayments } from './market.payments.ts';

export interface MarketModel extends MerchantPrices {
  ppaShare: number;
  ppaPrice: number;
  /** Whether the PPA price is solved for (ppaPrice is then set later). */
  solvePrice: boolean;
  ppaEscalation: number;
  /** The PPA's time-of-delivery factor of each hour of the year; null = 1 everywhere. */
  ppaMultiplier: Float64Array | null;
  /** Capacity and curtailment payments (market.payments.ts); null without either. */
  payments: MarketPayments | null;
}

/** The month-hour table spread over the 8,760 hours of the year. */
function hourlyMultipliers(table: readonly (readonly number[])[]): Float64Array {
  const out = new Float64Array(HOURS_PER_YEAR);
  let h = 0;
  for (let month = 0; month < 12; month++) {
    for (let day = 0; day < DAYS_IN_MONTH[month]; day++) {
      for (let hour = 0; hour < 24; hour++) out[h++] = table[month][hour];
    }
  }
  return out;
}

export function prepareMarket(inputs: ResolvedInputs): MarketModel {
  const m = inputs.market;
  const merchantPrice = new Float64Array(HOURS_PER_YEAR);
  const merchantYears = forecastYears(m.merchant_hourly_prices);
  if (merchantYears) {
    merchantPrice.set(merchantYears[0]);
  } else if (m.merchant_hourly_prices) {
    merchantPrice.set(m.merchant_hourly_prices);
  } else {
    const shape = m.merchant_hour_of_day_multipliers;
    for (let h = 0; h < HOURS_PER_YEAR; h++) {
      merchantPrice[h] = m.merchant_price_per_mwh * (shape ? shape[h % 24] : 1);
    }
  }
  return {
    ppaShare: m.ppa_share,
    // A price to be solved for is set later (withPpaPrice); the energy sums do not depend on it.
    ppaPrice: m.ppa_price_per_mwh === 'solve' ? 0 : m.ppa_price_per_mwh,
    solvePrice: m.ppa_price_per_mwh === 'solve',
    ppaEscalation: m.ppa_escalation_percent / 100,
    merchantEscalation: m.merchant_escalation_percent / 100,
    merchantPrice,
    merchantYears,
    ppaMultiplier: m.ppa_month_hour_multipliers ? hourlyMultipliers(m.ppa_month_hour_multipliers) : null,
    payments: preparePayments(m),
  };
}

/**
 * What a MWh exported in each hour of operating year `year` (1-based) earns: PPA share × PPA price
 * × its time-of-delivery factor + merchant share × the escalated merchant price. The battery is
 * dispatched on it. With a PPA price to be solved for, the dispatch prices the PPA share at the
 * year-1 mean merchant price (escalated as the PPA), a stand-in, since the solved price depends on
 * the dispatch.
 */
export function hourPrices(model: MarketModel, year: number, out: Float64Array): Float64Array {
  let ppaYear1 = model.ppaPrice;
  if (ppaYear1 === 0 && model.solvePrice) {
    let sum = 0;
    for (let h = 0; h < HOURS_PER_YEAR; h++) sum += model.merchantPrice[h];
    ppaYear1 = sum / HOURS_PER_YEAR;
  }
  const ppa = ppaYear1 * escalation(model.ppaEscalation, year) * model.ppaShare;
  const merchant = merchantFactor(model, year) * (1 - model.ppaShare);
  const tod = model.ppaMultiplier;
  const price = merchantPriceOf(model, year);
  for (let h = 0; h < HOURS_PER_YEAR; h++) out[h] = ppa * (tod ? tod[h] : 1) + merchant * price[h];
  return out;
}

/** PPA price of operating year `year` (1-based). */
export function ppaPrice(model: MarketModel, year: number): number {
  return model.ppaPrice * escalation(model.ppaEscalation, year);
}

export interface MarketYear {
  revenue: RevenueLines;
  /** Delivered energy of the year, summed in the same pass. */
  solarMwh: number;
  windMwh: number;
  /** Σ MWh × the year's merchant price of the hour (merchantPriceOf), per technology (before escalation and share). */
  solarValue: number;
  windValue: number;
  /** Σ MWh × the hour's PPA time-of-delivery factor (= the MWh without factors). */
  solarPpaMwh: number;
  windPpaMwh: number;
  /** The battery's net MWh (discharge − charge) weighted the same two ways; null without a battery. */
  storage: { ppaMwh: number; value: number } | null;
  /** What the year's capacity and curtailment payments are made on (set by the plant before marketYear). */
  payments: PaymentBasis;
  /** With ancillary products: each product's revenue of the year (nominal money, by name). */
  ancillary?: Record<string, number>;
}

/** The year's revenue lines from its energy sums, at the model's PPA price: no pass over the hours. */
export function revenueOf(model: MarketModel, year: number, sums: MarketYear, out: RevenueLines): RevenueLines {
  const ppa = ppaPrice(model, year) * model.ppaShare;
  const merchant = merchantFactor(model, year) * (1 - model.ppaShare);
  out.ppa_solar = ppa * sums.solarPpaMwh;
  out.ppa_wind = ppa * sums.windPpaMwh;
  out.merchant_solar = merchant * sums.solarValue;
  out.merchant_wind = merchant * sums.windValue;
  out.total = out.ppa_solar + out.ppa_wind + out.merchant_solar + out.merchant_wind;
  if (sums.storage) {
    out.ppa_storage = ppa * sums.storage.ppaMwh;
    out.merchant_storage = merchant * sums.storage.value;
    out.total += out.ppa_storage + out.merchant_storage;
  }
  addPayments(model.payments, year, sums.payments, out);
  if (sums.ancillary) {
    out.ancillary = { ...sums.ancillary };
    for (const v of Object.values(sums.ancillary)) out.total += v;
  }
  return out;
}

/** The same market at another year-1 PPA price. */
export function withPpaPrice(model: MarketModel, price: number): MarketModel {
  return { ...model, ppaPrice: price };
}

/**
 * Revenue of one operating year (1-based) from delivered hourly MWh and, with a battery, its net
 * energy's two weighted sums of the year (MarketYear.storage, kept as given).
 * Writes into `out` so the yearly loop allocates nothing.
 */
export function marketYear(
  model: MarketModel,
  year: number,
  solarMwh: Float64Array,
  windMwh: Float64Array,
  out: MarketYear,
  storage?: { ppaMwh: number; value: number },
  ancillary?: Record<string, number>,
): MarketYear {
  const price = merchantPriceOf(model, year);
  const tod = model.ppaMultiplier;
  let solarSum = 0;
  let windSum = 0;
  let solarValue = 0;
  let windValue = 0;
  for (let h = 0; h < HOURS_PER_YEAR; h++) {
    const s = solarMwh[h];
    const w = windMwh[h];
    const p = price[h];
    solarSum += s;
    windSum += w;
    solarValue += s * p;
    windValue += w * p;
  }
  out.solarMwh = solarSum;
  out.windMwh = windSum;
  out.solarValue = solarValue;
  out.windValue = windValue;
  out.solarPpaMwh = tod ? weighted(tod, solarMwh) : solarSum;
  out.windPpaMwh = tod ? weighted(tod, windMwh) : windSum;
  out.storage = storage ?? null;
  if (ancillary) out.ancillary = ancillary;
  else delete out.ancillary;
  revenueOf(model, year, out, out.revenue);
  return out;
}

/** Σ weight × MWh over the year's hours. */
function weighted(weight: Float64Array, mwh: Float64Array): number {
  let sum = 0;
  for (let h = 0; h < HOURS_PER_YEAR; h++) sum += weight[h] * mwh[h];
  return sum;
}

export function emptyMarketYear(): MarketYear {
  return {
    revenue: { ppa_solar: 0, ppa_wind: 0, merchant_solar: 0, merchant_wind: 0, total: 0 },
    solarMwh: 0,
    windMwh: 0,
    solarValue: 0,
    windValue: 0,
    solarPpaMwh: 0,
    windPpaMwh: 0,
    storage: null,
    payments: { capacityCreditPercent: 0, accreditedMw: 0, operatorCurtailedMwh: 0 },
  };
}
