// Ancillary services around the battery's dispatch (docs/markets.md, "Ancillary services"): the
// products' prices over the 25 years as the dispatch reads them, and what the committed reservations
// earn each year (capacity price × MW reserved, plus the expected deployed energy at the merchant
// price: sold for an up product, bought for a down one).
import { HOURS_PER_YEAR, YEARS } from '../../../shared/calendar.ts';
import type { AncillaryInputs } from '../../../shared/schemas/inputs.ts';
import { escalation } from '../escalation.ts';
import type { MarketModel } from '../market/market.ts';
import { merchantFactor, merchantPriceOf } from '../prices.ts';
import type { PlantReserves } from '../storage/storage.ts';

const HOURS = YEARS * HOURS_PER_YEAR;

/** The products' market every hour of the 25 years: the merchant price (escalated) and each capacity price (escalated). */
export function ancillaryMarket(products: readonly AncillaryInputs[], market: MarketModel): PlantReserves {
  const energyPrice = new Float64Array(HOURS);
  for (let i = 0; i < YEARS; i++) {
    const price = merchantPriceOf(market, i + 1);
    const factor = merchantFactor(market, i + 1);
    for (let h = 0; h < HOURS_PER_YEAR; h++) energyPrice[i * HOURS_PER_YEAR + h] = price[h] * factor;
  }
  const capacityPrice = products.map((p) => {
    const out = new Float64Array(HOURS);
    const a = p.price_per_mw_hour;
    for (let i = 0; i < YEARS; i++) {
      const factor = escalation(p.escalation_percent / 100, i + 1);
      const year = out.subarray(i * HOURS_PER_YEAR, (i + 1) * HOURS_PER_YEAR);
      // One price every hour, or a year of hourly prices (the choice made once, not every hour).
      if (typeof a === 'number') year.fill(a * factor);
      else for (let h = 0; h < HOURS_PER_YEAR; h++) year[h] = a[h] * factor;
    }
    return out;
  });
  return {
    products: products.map((p) => ({
      up: p.direction === 'up',
      durationHours: p.duration_hours,
      deployedShare: p.deployed_share,
    })),
    energyPrice,
    capacityPrice,
  };
}

/** Each product's revenue by year, and the MW reserved each hour, up and down (all products summed). */
export interface AncillaryYears {
  revenue: Record<string, number>[];
  upHourly: Float64Array;
  downHourly: Float64Array;
  /** Per product: MW reserved on average over year 1. */
  meanMwYear1: Record<string, number>;
}

export function ancillaryYears(
  products: readonly AncillaryInputs[],
  m: PlantReserves,
  reserve: readonly Float64Array[],
): AncillaryYears {
  const out: AncillaryYears = {
    revenue: Array.from({ length: YEARS }, () => ({})),
    upHourly: new Float64Array(HOURS),
    downHourly: new Float64Array(HOURS),
    meanMwYear1: {},
  };
  for (let j = 0; j < products.length; j++) {
    const p = m.products[j];
    const sign = p.up ? 1 : -1;
    const series = p.up ? out.upHourly : out.downHourly;
    const r = reserve[j];
    const a = m.capacityPrice[j];
    for (let i = 0; i < YEARS; i++) {
      let sum = 0;
      let mw = 0;
      for (let k = i * HOURS_PER_YEAR; k < (i + 1) * HOURS_PER_YEAR; k++) {
        sum += r[k] * (a[k] + sign * p.deployedShare * m.energyPrice[k]);
        series[k] += r[k];
        mw += r[k];
      }
      out.revenue[i][products[j].name] = sum;
      if (i === 0) out.meanMwYear1[products[j].name] = mw / HOURS_PER_YEAR;
    }
  }
  return out;
}
