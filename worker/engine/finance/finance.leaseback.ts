// A sale-leaseback, as SAM's Sale Leaseback model: the sponsor (lessee) develops the plant and
// sells it at close to the tax investor (lessor) for its cost with the development fee; the
// lessor takes the depreciation, the credits and the salvage. The sponsor operates the plant,
// keeps an operating margin (a fixed amount per kW, escalated) and pays the rest of each year's
// operating cash to the lessor as rent. The sponsor funds, at close, the working-capital reserve
// and a lease-payment reserve (months of the first year's rent), keeps their interest and gets
// them back in the last year. There is no project debt.
//
// The project's statements are the Single Owner's (finance.ts) without debt, with the fee and the
// equity closing cost at close and in the basis; this file turns them into the two parties'.
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import type { CashFlowYear, IncomeStatementYear } from '../../../shared/schemas/result.ts';
import { escalation } from '../escalation.ts';
import type { FlipSplit } from './finance.flip.ts';
import { partyStatement, taxEquityTerms } from './finance.flip.ts';
import { equipmentReserve } from './finance.reserves.ts';

export interface LeasebackStatements {
  cashFlow: readonly CashFlowYear[];
  incomeStatement: readonly IncomeStatementYear[];
  devFee: number;
  /** Nominal discount rate; state and federal tax rates (fractions). */
  rate: number;
  stateRate: number;
  federalRate: number;
}

/** The rent (lease payment) of each year and the sponsor's reserves, from the project's statements. */
function rents(inputs: ResolvedInputs, s: LeasebackStatements) {
  const f = inputs.finance;
  const t = taxEquityTerms(inputs);
  const n = s.cashFlow.length - 1;
  const nameplateKw = inputs.solar.capacity_mw_dc * 1000 + inputs.wind.capacity_mw * 1000;
  const equipment = equipmentReserve(
    inputs.solar.capacity_mw_dc * 1000 * f.reserves.equipment.solar_per_kw_dc +
      inputs.wind.capacity_mw * 1000 * f.reserves.equipment.wind_per_kw,
    f.reserves.equipment.every_years,
    f.inflation_percent / 100,
    n,
  );
  const margin = new Float64Array(n + 1);
  const rent = new Float64Array(n + 1);
  // The working-capital reserve's balance (without debt, the only other reserve).
  let working = 0;
  for (let y = 0; y <= n; y++) {
    const c = s.cashFlow[y];
    const workingFunding = c.reserve_funding - equipment.funding[y];
    if (y === 0) {
      working = workingFunding;
      continue;
    }
    margin[y] = t.lessee_margin_per_kw_year * nameplateKw * escalation(t.lessee_margin_escalation_percent / 100, y);
    const salvage = s.incomeStatement[y - 1].salvage_value;
    // The last year's release of the working capital goes to the sponsor, not into the rent.
    const funding = y === n ? equipment.funding[y] : c.reserve_funding;
    rent[y] = c.ebitda - salvage - margin[y] + c.reserve_interest - funding;
    if (y < n) working += workingFunding;
  }
  const leaseReserve = (t.lease_reserve_months / 12) * (n >= 1 ? rent[1] : 0);
  return { margin, rent, working, leaseReserve, workingAtClose: s.cashFlow[0].reserve_funding };
}

/** The lessor's and the lessee's statements (the FlipSplit shape; a leaseback has no flip). */
export function leasebackSplit(inputs: ResolvedInputs, s: LeasebackStatements): FlipSplit {
  const n = s.cashFlow.length - 1;
  const { margin, rent, working, leaseReserve, workingAtClose } = rents(inputs, s);
  const reserveRate = inputs.finance.reserves.interest_percent / 100;
  const price = inputs.finance.tax_credits.transfer?.price_per_dollar ?? 1;
  const combined = s.stateRate + s.federalRate * (1 - s.stateRate);
  const tax = (income: number) => {
    const state = s.stateRate * income;
    return state + s.federalRate * (income - state);
  };
  const inv = { pre: new Float64Array(n + 1), tax: new Float64Array(n + 1), all: new Float64Array(n + 1) };
  const spo = { pre: new Float64Array(n + 1), tax: new Float64Array(n + 1), all: new Float64Array(n + 1) };
  // Close: the lessor pays the sale price (cost with the fee); the sponsor keeps the fee less the reserves it funds.
  inv.pre[0] = inv.all[0] = s.cashFlow[0].equity_cash_flow + workingAtClose;
  spo.pre[0] = spo.all[0] = s.devFee - workingAtClose - leaseReserve;
  for (let y = 1; y <= n; y++) {
    const c = s.cashFlow[y];
    const is = s.incomeStatement[y - 1];
    const leaseInterest = reserveRate * leaseReserve;
    inv.pre[y] = rent[y] + is.salvage_value;
    inv.tax[y] = c.tax_credits.total * price - tax(rent[y] + is.salvage_value - is.depreciation);
    spo.pre[y] = margin[y] + leaseInterest + (y === n ? working + leaseReserve : 0);
    const sponsorIncome = c.ebitda - is.salvage_value + c.reserve_interest + leaseInterest - rent[y];
    spo.tax[y] = -tax(sponsorIncome) - (y === 1 ? s.devFee * combined : 0);
    inv.all[y] = inv.pre[y] + inv.tax[y];
    spo.all[y] = spo.pre[y] + spo.tax[y];
  }
  return {
    investor: partyStatement(inv.pre, inv.tax, inv.all, s.rate),
    sponsor: partyStatement(spo.pre, spo.tax, spo.all, s.rate),
    flipYear: null,
  };
}
