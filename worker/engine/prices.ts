// The merchant price of each hour of each operating year. One year of hourly prices (or a price
// and its hour-of-day shape) is year 1, escalated every year after; a forecast of n years
// (8,760 × n values, n ≥ 2) is used as given, year by year and not escalated, its last year
// repeating when the project runs longer. At the engine's root because the market's revenue, the
// battery's dispatch and the load's excess all price hours by it.
import { HOURS_PER_YEAR } from '../../shared/calendar.ts';
import { escalation } from './escalation.ts';

/** The market's merchant prices, as the revenue and the battery's dispatch read them. */
export interface MerchantPrices {
  /** Year-1 merchant price of each hour of the year. */
  merchantPrice: Float64Array;
  /** A forecast's years (unescalated), year 1 first; null = one year, escalated. */
  merchantYears: readonly Float64Array[] | null;
  merchantEscalation: number;
}

/** The forecast's years as views of one array: null for a single year (which is escalated instead). */
export function forecastYears(prices: readonly number[] | undefined): Float64Array[] | null {
  if (!prices || prices.length <= HOURS_PER_YEAR) return null;
  const all = Float64Array.from(prices);
  const years: Float64Array[] = [];
  for (let at = 0; at + HOURS_PER_YEAR <= all.length; at += HOURS_PER_YEAR) {
    years.push(all.subarray(at, at + HOURS_PER_YEAR));
  }
  return years;
}

/** The unescalated merchant price of each hour of operating year `year` (1-based). */
export function merchantPriceOf(m: MerchantPrices, year: number): Float64Array {
  const years = m.merchantYears;
  return years ? years[Math.min(year, years.length) - 1] : m.merchantPrice;
}

/** What multiplies merchantPriceOf(year): the escalation since year 1, or 1 for a forecast. */
export function merchantFactor(m: MerchantPrices, year: number): number {
  return m.merchantYears ? 1 : escalation(m.merchantEscalation, year);
}
