// Small pure functions of money, kept apart from the statements so that tests can check each
// against published values: IRR, annuities, depreciation tables. Discounting (NPV, the nominal
// rate) is the engine root's (../discount.ts), since the load's buyer cost discounts too.
// Convention throughout: flows[0] is at time 0 (undiscounted) and flows[n] is divided by
// (1 + rate)^n, as SAM discounts its cash flows.
import { npv } from '../discount.ts';

const IRR_GRID_POINTS = 400;
const IRR_MIN_GROWTH = 1e-3; // 1 + rate: rates from −99.9 %
const IRR_MAX_GROWTH = 1e3; // … to +99,900 %

/**
 * Internal rate of return: a rate at which npv(rate, flows) = 0, or null if
 * there is none in (−99.9 %, +99,900 %). Flows with several sign changes
 * can have several roots; this scans a log-spaced grid of 1 + rate for every
 * sign change, refines each bracket by bisection (always converges, unlike
 * Newton's method) and returns the root nearest 0.
 */
export function irr(flows: ArrayLike<number>): number | null {
  let positive = false;
  let negative = false;
  for (let n = 0; n < flows.length; n++) {
    if (flows[n] > 0) positive = true;
    else if (flows[n] < 0) negative = true;
  }
  if (!positive || !negative) return null;

  const logMin = Math.log(IRR_MIN_GROWTH);
  const step = (Math.log(IRR_MAX_GROWTH) - logMin) / IRR_GRID_POINTS;
  let best: number | null = null;
  let prevRate = Math.exp(logMin) - 1;
  let prevValue = npv(prevRate, flows);
  for (let i = 1; i <= IRR_GRID_POINTS; i++) {
    const rate = Math.exp(logMin + i * step) - 1;
    const value = npv(rate, flows);
    let root: number | null = null;
    if (value === 0) root = rate;
    else if (prevValue !== 0 && value < 0 !== prevValue < 0) root = bisect(flows, prevRate, rate, prevValue);
    if (root !== null && (best === null || Math.abs(root) < Math.abs(best))) best = root;
    prevRate = rate;
    prevValue = value;
  }
  if (best === null) return null;
  return Number.isFinite(best) ? best : null;
}

function bisect(flows: ArrayLike<number>, lo: number, hi: number, loValue: number): number {
  for (let i = 0; i < 200 && hi - lo > 1e-15 * Math.max(1, Math.abs(lo)); i++) {
    const mid = 0.5 * (lo + hi);
    const value = npv(mid, flows);
    if (value === 0) return mid;
    if (value < 0 === loValue < 0) {
      lo = mid;
      loValue = value;
    } else {
      hi = mid;
    }
  }
  return 0.5 * (lo + hi);
}

/** Level payment per period that repays `principal` over `periods` at `rate` per period (mortgage style). */
export function annuityPayment(principal: number, rate: number, periods: number): number {
  if (periods <= 0) return 0;
  if (rate === 0) return principal / periods;
  return (principal * rate) / (1 - (1 + rate) ** -periods);
}

/** IRS MACRS 5-year property, half-year convention (Pub. 946, table A-1): fraction of the basis per year. */
export const MACRS_5 = Object.freeze([0.2, 0.32, 0.192, 0.1152, 0.1152, 0.0576]);

/** IRS MACRS 15-year property, half-year convention (Pub. 946, table A-1). */
export const MACRS_15 = Object.freeze([
  0.05, 0.095, 0.0855, 0.077, 0.0693, 0.0623, 0.059, 0.059, 0.0591, 0.059, 0.0591, 0.059, 0.0591, 0.059, 0.0591, 0.0295,
]);

/**
 * 15-year straight line, half-year convention, as the IRS tabulates it (Pub. 946, table A-8):
 * percentages rounded to two decimals, 6.67 and 6.66 alternating so the column sums to 100.
 */
export const SL_15 = Object.freeze([
  0.0333, 0.0667, 0.0667, 0.0667, 0.0667, 0.0667, 0.0667, 0.0666, 0.0667, 0.0666, 0.0667, 0.0666, 0.0667, 0.0666,
  0.0667, 0.0333,
]);

export type DepreciationClass = 'macrs_5' | 'macrs_15' | 'sl_5' | 'sl_15' | 'sl_20' | 'sl_39';

/**
 * Fraction of a class's basis deducted in each year after it is placed in service (index 0 = the
 * first year): the MACRS tables, or straight line over N years with the half-year convention
 * (half a year's share in the first year and in year N + 1; 15 years as the IRS table), as SAM's classes.
 */
export function classFractions(c: DepreciationClass): readonly number[] {
  if (c === 'macrs_5') return MACRS_5;
  if (c === 'macrs_15') return MACRS_15;
  if (c === 'sl_15') return SL_15;
  const life = Number(c.slice(3));
  return Array.from({ length: life + 1 }, (_, i) => (i === 0 || i === life ? 0.5 : 1) / life);
}

/**
 * Depreciation of `basis` by operating year: index 0 is construction (none),
 * 1..years. Straight line deducts basis / lifeYears in each of the first
 * lifeYears years; what falls beyond the horizon is never deducted.
 */
export function depreciationSchedule(
  method: 'macrs_5' | 'straight_line',
  lifeYears: number,
  basis: number,
  years: number,
): Float64Array {
  const out = new Float64Array(years + 1);
  if (method === 'macrs_5') {
    for (let i = 0; i < MACRS_5.length && i < years; i++) out[i + 1] = basis * MACRS_5[i];
  } else {
    for (let y = 1; y <= Math.min(lifeYears, years); y++) out[y] = basis / lifeYears;
  }
  return out;
}
