// A partnership flip, as SAM's Leveraged and All Equity Partnership Flip models split a project:
// a tax investor and a sponsor put in the equity in agreed shares; each year's pre-tax cash and
// tax benefits (taxes, which can be negative, and credits) go to the investor in its pre-flip
// shares until its after-tax IRR, measured from year 0 to the year before, has reached the flip
// target, and in its post-flip shares after; the sponsor gets the rest. The sponsor earns a
// development fee, paid from the project's cost at close and taxed in year 1. With no debt
// (all_equity_flip) the sponsor first recovers its own equity from the pre-tax cash of the first
// years, as SAM's "capital recovery by time" does.
//
// The project's statements are the Single Owner's (finance.ts) with the fee and the equity
// closing cost added to the cost at close and to the depreciable basis; this file only splits
// its after-tax cash flow between the two parties.

import type { TaxEquityInputs } from '../../../shared/schemas/inputs.finance.ts';
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import type { Party } from '../../../shared/schemas/result.parties.ts';
import type { CashFlowYear } from '../../../shared/schemas/result.ts';
import { npv } from '../discount.ts';
import { irr } from './finance.metrics.ts';

/** SAM's tolerance on the investor's IRR (as a fraction) for calling a year the flip year. */
const FLIP_TOLERANCE = 1e-5;

export type FlipStructure = 'leveraged_flip' | 'all_equity_flip';

/** The partnership's terms, as given or defaulted. */
export function taxEquityTerms(inputs: ResolvedInputs): TaxEquityInputs {
  const t = inputs.finance.tax_equity;
  // Resolution (shared/inputs.resolve.ts) writes SAM's defaults into a flip that has no terms.
  if (!t) throw new Error('finance.tax_equity is not resolved');
  return t;
}

/**
 * What a partnership adds to the cost at close (and to the depreciable basis, as SAM does since
 * 2024): the development fee, a percentage of the installed cost, and the equity closing cost.
 * Zero for a single owner.
 */
export function closingCosts(inputs: ResolvedInputs, installedCost: number): { devFee: number; total: number } {
  const structure = inputs.finance.structure ?? 'single_owner';
  if (structure === 'single_owner') return { devFee: 0, total: 0 };
  const t = taxEquityTerms(inputs);
  const devFee = (t.development_fee_percent / 100) * installedCost;
  return { devFee, total: devFee + t.equity_closing_cost };
}

export interface FlipSplit {
  investor: Party;
  sponsor: Party;
  /** The first year whose investor IRR (years 0..y) reaches the target; null if none does. */
  flipYear: number | null;
}

/** One party's statement from its yearly cash, tax benefit and after-tax flows. */
export function partyStatement(pretax: Float64Array, tax: Float64Array, aftertax: Float64Array, rate: number): Party {
  let cumulative = 0;
  const years = Array.from(aftertax, (a, y) => {
    cumulative += a;
    return { year: y, pre_tax_cash: pretax[y], tax_benefit: tax[y], after_tax_cash: a, cumulative };
  });
  return { years, npv: npv(rate, aftertax), irr: irr(aftertax), pre_tax_npv: npv(rate, pretax) };
}

/**
 * The partnership's split of the project's after-tax cash flow (cash_flow of the Single Owner
 * statements, which already carry the closing costs). `rate` is the nominal discount rate;
 * `taxRate` the combined state and federal rate of year 1 (the development fee's tax).
 */
export function flipSplit(
  inputs: ResolvedInputs,
  cashFlow: readonly CashFlowYear[],
  devFee: number,
  rate: number,
  taxRate: number,
): FlipSplit {
  const t = taxEquityTerms(inputs);
  const allEquity = inputs.finance.structure === 'all_equity_flip';
  const n = cashFlow.length;
  const target = t.flip_target_irr_percent / 100;
  const share = t.investor_equity_percent / 100;
  const inv = { pre: new Float64Array(n), tax: new Float64Array(n), all: new Float64Array(n) };
  const spo = { pre: new Float64Array(n), tax: new Float64Array(n), all: new Float64Array(n) };
  // Year 0: the equity at close (the project's year-0 flow, negative), shared; the fee to the sponsor.
  const equity = -cashFlow[0].equity_cash_flow;
  inv.pre[0] = inv.all[0] = -share * equity;
  spo.pre[0] = spo.all[0] = -(1 - share) * equity + devFee;
  let recoveryBalance = allEquity ? (1 - share) * equity : 0;
  let maxIrr = 0;
  let flipYear: number | null = null;
  for (let y = 1; y < n; y++) {
    const c = cashFlow[y];
    // Credits sold (transfer) count at what they brought.
    const benefit = (c.credit_transfer_proceeds ?? c.tax_credits.total) - c.income_tax;
    const pretax = c.equity_cash_flow - benefit;
    const preFlip = maxIrr < target;
    // All equity: the sponsor's capital comes back first, from positive pre-tax cash, in its years.
    const recovery =
      allEquity && y <= t.sponsor_capital_recovery_years && pretax > 0 ? Math.min(recoveryBalance, pretax) : 0;
    recoveryBalance -= recovery;
    inv.pre[y] = (preFlip ? t.preflip_cash_percent : t.postflip_cash_percent) * 0.01 * (pretax - recovery);
    inv.tax[y] = (preFlip ? t.preflip_tax_percent : t.postflip_tax_percent) * 0.01 * benefit;
    inv.all[y] = inv.pre[y] + inv.tax[y];
    spo.pre[y] = pretax - inv.pre[y];
    spo.tax[y] = benefit - inv.tax[y] - (y === 1 ? devFee * taxRate : 0);
    spo.all[y] = spo.pre[y] + spo.tax[y];
    const r = irr(inv.all.subarray(0, y + 1));
    if (r !== null && preFlip && Math.abs(r - target) < FLIP_TOLERANCE) maxIrr = target;
    else if (r !== null) maxIrr = Math.max(maxIrr, r);
    if (flipYear === null && preFlip && maxIrr >= target) flipYear = y;
  }
  return {
    investor: partyStatement(inv.pre, inv.tax, inv.all, rate),
    sponsor: partyStatement(spo.pre, spo.tax, spo.all, rate),
    flipYear,
  };
}
