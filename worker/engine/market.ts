// Revenue of delivered energy: a fixed share sold under the PPA at one
// escalating price, the rest at an hourly merchant price with its own
// escalation. Prices change only from year to year, so a year's revenue needs
// one pass over the hours: energy-weighted merchant price sums.
import type { ResolvedInputs } from '../../shared/schemas/inputs.ts';
import type { RevenueLines } from '../../shared/schemas/result.ts';

const HOURS_PER_YEAR = 8760;

export interface MarketModel {
  ppaShare: number;
  ppaPrice: number;
  ppaEscalation: number;
  merchantEscalation: number;
  /** Year-1 merchant price of each hour of the year. */
  merchantPrice: Float64Array;
}

export function prepareMarket(inputs: ResolvedInputs): MarketModel {
  const m = inputs.market;
  const merchantPrice = new Float64Array(HOURS_PER_YEAR);
  if (m.merchant_hourly_prices) {
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
    ppaEscalation: m.ppa_escalation_percent / 100,
    merchantEscalation: m.merchant_escalation_percent / 100,
    merchantPrice,
  };
}

/** PPA price of operating year `year` (1-based). */
export function ppaPrice(model: MarketModel, year: number): number {
  return model.ppaPrice * (1 + model.ppaEscalation) ** (year - 1);
}

export interface MarketYear {
  revenue: RevenueLines;
  /** Delivered energy of the year, summed in the same pass. */
  solarMwh: number;
  windMwh: number;
  /** Σ MWh × year-1 merchant price of the hour, per technology (before escalation and share). */
  solarValue: number;
  windValue: number;
}

/** The year's revenue lines from its energy sums, at the model's PPA price: no pass over the hours. */
export function revenueOf(model: MarketModel, year: number, sums: MarketYear, out: RevenueLines): RevenueLines {
  const ppa = ppaPrice(model, year) * model.ppaShare;
  const merchant = (1 + model.merchantEscalation) ** (year - 1) * (1 - model.ppaShare);
  out.ppa_solar = ppa * sums.solarMwh;
  out.ppa_wind = ppa * sums.windMwh;
  out.merchant_solar = merchant * sums.solarValue;
  out.merchant_wind = merchant * sums.windValue;
  out.total = out.ppa_solar + out.ppa_wind + out.merchant_solar + out.merchant_wind;
  return out;
}

/** The same market at another year-1 PPA price. */
export function withPpaPrice(model: MarketModel, price: number): MarketModel {
  return { ...model, ppaPrice: price };
}

/**
 * Revenue of one operating year (1-based) from delivered hourly MWh.
 * Writes into `out` so the yearly loop allocates nothing.
 */
export function marketYear(
  model: MarketModel,
  year: number,
  solarMwh: Float64Array,
  windMwh: Float64Array,
  out: MarketYear,
): MarketYear {
  const price = model.merchantPrice;
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
  revenueOf(model, year, out, out.revenue);
  return out;
}

export function emptyMarketYear(): MarketYear {
  return {
    revenue: { ppa_solar: 0, ppa_wind: 0, merchant_solar: 0, merchant_wind: 0, total: 0 },
    solarMwh: 0,
    windMwh: 0,
    solarValue: 0,
    windValue: 0,
  };
}
