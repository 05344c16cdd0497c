// The year-1 PPA price that gives a target after-tax equity IRR, as SAM's financial models solve
// for it ("PPA price: solve"). Generation never runs again: the market's energy sums of each year
// (stage 4) are priced anew (`revenueAt`, which the plant gives) and the finance stage re-run, by
// bisection on the price. The equity
// IRR rises with the price (every year's revenue does), so the bracket [0, 10,000] per MWh (the
// range `market.ppa_price_per_mwh` accepts) holds the answer or there is none in a sane range.
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import type { RevenueLines } from '../../../shared/schemas/result.ts';
import { CalculationInputError } from '../engine.error.ts';
import { type FinanceInput, type FinanceResult, financeModel } from './finance.ts';

export const PPA_PRICE_RANGE = [0, 10_000] as const;
/** Bisection steps: the bracket shrinks to 10,000 / 2^60 per MWh, below a double's resolution there. */
const STEPS = 60;

export function solvePpaPrice(
  inputs: ResolvedInputs,
  revenueAt: (ppaPrice: number) => RevenueLines[],
  energy: Omit<FinanceInput, 'revenue' | 'solvedPpaPrice'>,
): FinanceResult {
  const targetPercent = inputs.finance.target_equity_irr_percent;
  if (targetPercent === undefined) {
    throw new CalculationInputError(
      'no_ppa_solution',
      'market.ppa_price_per_mwh is "solve" but finance.target_equity_irr_percent is not set',
    );
  }
  const target = targetPercent / 100;
  const at = (price: number): FinanceResult => {
    return financeModel(inputs, { ...energy, revenue: revenueAt(price), solvedPpaPrice: price });
  };
  // No IRR (no sign change: the owner never gets the investment back) is below any target.
  const below = (r: FinanceResult) => r.kpis.equity_irr === null || r.kpis.equity_irr < target;
  let lo: number = PPA_PRICE_RANGE[0];
  let hi: number = PPA_PRICE_RANGE[1];
  const atLow = at(lo);
  const atHigh = at(hi);
  if (!below(atLow) || below(atHigh)) {
    const show = (r: FinanceResult) =>
      r.kpis.equity_irr === null ? 'none' : `${(r.kpis.equity_irr * 100).toFixed(2)} %`;
    throw new CalculationInputError(
      'no_ppa_solution',
      `no year-1 PPA price from ${lo} to ${hi} per MWh gives an equity IRR of ${targetPercent} %: ` +
        `the equity IRR is ${show(atLow)} at ${lo} and ${show(atHigh)} at ${hi}`,
    );
  }
  for (let i = 0; i < STEPS && hi - lo > 0; i++) {
    const mid = lo + (hi - lo) / 2;
    if (mid === lo || mid === hi) break;
    if (below(at(mid))) lo = mid;
    else hi = mid;
  }
  // The lowest price found that reaches the target (within the bracket's width of it).
  return at(hi);
}
