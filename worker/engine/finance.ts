// The financial statements of a SAM Single Owner style project: one owner
// builds with equity and project debt, sells the energy, pays O&M, interest
// and income tax, and keeps the rest. Every year is nominal money.
import type { ResolvedInputs } from '../../shared/schemas/inputs.ts';
import type {
  CashFlowYear,
  IncomeStatementYear,
  Kpis,
  RevenueBreakdown,
  RevenueLines,
} from '../../shared/schemas/result.ts';
import { debtSchedule } from './finance.debt.ts';
import { depreciationSchedule, irr, median, nominalRate, npv, p90, presentValueFromYear1 } from './finance.metrics.ts';

export interface FinanceInput {
  /** Revenue of operating years 1..N (index 0 = year 1). */
  revenue: readonly RevenueLines[];
  /** Delivered MWh of operating years 1..N (index 0 = year 1). */
  deliveredMwh: ArrayLike<number>;
}

export interface FinanceResult {
  income_statement: IncomeStatementYear[];
  cash_flow: CashFlowYear[];
  revenue_breakdown: RevenueBreakdown;
  kpis: Kpis;
}

/** Installed cost: per-kW cost of each technology plus the other (absolute) cost. */
export function installedCost(inputs: ResolvedInputs): number {
  const c = inputs.finance.capex;
  return (
    inputs.solar.capacity_mw_dc * 1000 * c.solar_per_kw_dc + inputs.wind.capacity_mw * 1000 * c.wind_per_kw + c.other
  );
}

export function financeModel(inputs: ResolvedInputs, data: FinanceInput): FinanceResult {
  const f = inputs.finance;
  const years = data.revenue.length;
  const capex = installedCost(inputs);
  const inflation = f.inflation_percent / 100;
  const omEscalation = f.om_escalation_percent / 100;
  const taxRate = f.tax_rate_percent / 100;
  const fixedYear1 =
    inputs.solar.capacity_mw_dc * 1000 * f.opex.solar_fixed_per_kw_year +
    inputs.wind.capacity_mw * 1000 * f.opex.wind_fixed_per_kw_year +
    (capex * f.opex.insurance_percent_of_capex) / 100;

  // Arrays indexed by project year, 0 = construction.
  const ebitda = new Float64Array(years + 1);
  const opex = new Float64Array(years + 1);
  const fixedOm = new Float64Array(years + 1);
  const variableOm = new Float64Array(years + 1);
  for (let y = 1; y <= years; y++) {
    // SAM escalates year-1 O&M by inflation and by its own escalation above it.
    const escalation = (1 + inflation) ** (y - 1) * (1 + omEscalation) ** (y - 1);
    fixedOm[y] = fixedYear1 * escalation;
    variableOm[y] = f.opex.variable_per_mwh * data.deliveredMwh[y - 1] * escalation;
    opex[y] = fixedOm[y] + variableOm[y];
    ebitda[y] = data.revenue[y - 1].total - opex[y];
  }

  // SAM Single Owner: cash available for debt service is EBITDA, before
  // income tax, because the owner pays tax from all its business and not
  // from the project's cash.
  const cfads = ebitda;
  const debt = debtSchedule(f.debt, capex, cfads, years);
  const depreciation = depreciationSchedule(f.depreciation.method, f.depreciation.years, capex, years);

  const incomeStatement: IncomeStatementYear[] = [];
  const cashFlow: CashFlowYear[] = [];
  const equityFlow = new Float64Array(years + 1);
  const projectFlow = new Float64Array(years + 1);
  const ownerCosts = new Float64Array(years + 1);
  equityFlow[0] = debt.amount - capex;
  projectFlow[0] = -capex;
  ownerCosts[0] = capex - debt.amount;
  cashFlow.push({
    year: 0,
    capex,
    ebitda: 0,
    income_tax: 0,
    debt_drawdown: debt.amount,
    interest: 0,
    principal: 0,
    cfads: 0,
    dscr: null,
    equity_cash_flow: equityFlow[0],
    cumulative_equity_cash_flow: equityFlow[0],
  });

  let cumulative = equityFlow[0];
  let payback: number | null = cumulative >= 0 ? 0 : null;
  let dscrMin = Number.POSITIVE_INFINITY;
  let dscrSum = 0;
  let dscrCount = 0;
  for (let y = 1; y <= years; y++) {
    const interest = debt.interest[y];
    const principal = debt.principal[y];
    const preTax = ebitda[y] - depreciation[y] - interest;
    // Single Owner assumes the owner uses a loss against other income in the
    // same year, so a negative tax (a benefit) is kept, not carried forward.
    const tax = taxRate * preTax;
    const service = interest + principal;
    const dscr = service > 0 ? cfads[y] / service : null;
    if (dscr !== null) {
      dscrMin = Math.min(dscrMin, dscr);
      dscrSum += dscr;
      dscrCount++;
    }
    equityFlow[y] = ebitda[y] - tax - interest - principal;
    projectFlow[y] = ebitda[y] - taxRate * (ebitda[y] - depreciation[y]);
    ownerCosts[y] = opex[y] + tax + interest + principal;
    cumulative += equityFlow[y];
    if (payback === null && cumulative >= 0) payback = y;

    const revenue = data.revenue[y - 1];
    incomeStatement.push({
      year: y,
      revenue: { ...revenue },
      operating_expenses: { fixed_om: fixedOm[y], variable_om: variableOm[y], total: opex[y] },
      ebitda: ebitda[y],
      depreciation: depreciation[y],
      interest,
      pre_tax_income: preTax,
      income_tax: tax,
      net_income: preTax - tax,
    });
    cashFlow.push({
      year: y,
      capex: 0,
      ebitda: ebitda[y],
      income_tax: tax,
      debt_drawdown: 0,
      interest,
      principal,
      cfads: cfads[y],
      dscr,
      equity_cash_flow: equityFlow[y],
      cumulative_equity_cash_flow: cumulative,
    });
  }

  const realRate = f.discount_rate_real_percent / 100;
  const nominal = nominalRate(realRate, inflation);
  const energy = new Float64Array(years + 1);
  for (let y = 1; y <= years; y++) energy[y] = data.deliveredMwh[y - 1];
  const lcoe = levelizedCost(ownerCosts, energy, nominal, realRate);

  return {
    income_statement: incomeStatement,
    cash_flow: cashFlow,
    revenue_breakdown: breakdown(data.revenue),
    kpis: {
      project_npv: npv(nominal, projectFlow),
      equity_npv: npv(nominal, equityFlow),
      project_irr: irr(projectFlow),
      equity_irr: irr(equityFlow),
      lcoe_nominal: lcoe.nominal,
      lcoe_real: lcoe.real,
      min_dscr: dscrCount > 0 ? dscrMin : null,
      average_dscr: dscrCount > 0 ? dscrSum / dscrCount : null,
      payback_year: payback,
      energy_p50_mwh: median(data.deliveredMwh),
      energy_p90_mwh: p90(data.deliveredMwh),
    },
  };
}

/**
 * LCOE as SAM defines it for its financial models (the cost of installing
 * and operating the system, including debt and tax costs):
 *
 *   LCOE_nominal = (C0 + Σ Cn / (1 + d_nominal)^n) / Σ Qn / (1 + d_nominal)^n
 *   LCOE_real    = (C0 + Σ Cn / (1 + d_nominal)^n) / Σ Qn / (1 + d_real)^n
 *
 * C0 = the owner's equity investment (installed cost − debt), Cn = the
 * owner's costs in year n (O&M + interest + principal + income tax, i.e.
 * revenue − equity cash flow), Qn = delivered MWh. Costs are always
 * discounted at the nominal rate; discounting energy at the real rate turns
 * the price into start-year money. Hence LCOE × discounted energy =
 * discounted costs exactly, and nominal LCOE = levelized revenue per MWh −
 * equity NPV / discounted energy. Null without energy.
 */
export function levelizedCost(
  costs: ArrayLike<number>,
  energyByYear: ArrayLike<number>,
  nominal: number,
  real: number,
): { nominal: number | null; real: number | null; discountedCosts: number } {
  const discountedCosts = npv(nominal, costs);
  const energyNominal = presentValueFromYear1(nominal, energyByYear);
  const energyReal = presentValueFromYear1(real, energyByYear);
  return {
    nominal: energyNominal > 0 ? discountedCosts / energyNominal : null,
    real: energyReal > 0 ? discountedCosts / energyReal : null,
    discountedCosts,
  };
}

function breakdown(revenue: readonly RevenueLines[]): RevenueBreakdown {
  let ppa = 0;
  let merchant = 0;
  let solar = 0;
  let wind = 0;
  for (const r of revenue) {
    ppa += r.ppa_solar + r.ppa_wind;
    merchant += r.merchant_solar + r.merchant_wind;
    solar += r.ppa_solar + r.merchant_solar;
    wind += r.ppa_wind + r.merchant_wind;
  }
  return { by_source: { ppa, merchant }, by_technology: { solar, wind }, total: ppa + merchant };
}
