// The financial statements of a SAM Single Owner style project: one owner
// builds with equity and project debt, sells the energy, pays O&M, interest
// and income tax, and keeps the rest. Every year is nominal money.
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import type {
  CashFlowYear,
  IncomeStatementYear,
  Kpis,
  RevenueBreakdown,
  RevenueLines,
  TaxCredits,
} from '../../../shared/schemas/result.ts';
import { nominalRate, npv, presentValueFromYear1 } from '../discount.ts';
import { escalation } from '../escalation.ts';
import { sizeDebt } from './finance.debt.cases.ts';
import { closingCosts } from './finance.flip.ts';
import { classFractions, depreciationSchedule, irr, MACRS_5 } from './finance.metrics.ts';
import { type Parties, partyStatements } from './finance.parties.ts';
import { equipmentReserve, reserves } from './finance.reserves.ts';
import { type EnergyPercentiles, energyPercentiles } from './uncertainty.ts';

export interface FinanceInput {
  /** Revenue of operating years 1..N (index 0 = year 1). */
  revenue: readonly RevenueLines[];
  /** Delivered MWh of operating years 1..N (index 0 = year 1), in all and by technology. */
  deliveredMwh: ArrayLike<number>;
  solarMwh: ArrayLike<number>;
  windMwh: ArrayLike<number>;
  /** The year-1 PPA price when it was solved for (reported as a KPI). */
  solvedPpaPrice?: number;
  /** The battery's discharged MWh and banks replaced, by operating year (index 0 = year 1). */
  storage?: { dischargeMwh: ArrayLike<number>; replacements: ArrayLike<number> };
  /** With a load: MWh delivered to it, grid energy bought for the battery and shortfall penalties, by year. */
  load?: { deliveredMwh: ArrayLike<number>; gridEnergyCost: ArrayLike<number>; penalty: ArrayLike<number> };
}

/** The battery's capital cost, by kW and by kWh; 0 without a battery. */
export function storageCapex(inputs: ResolvedInputs): number {
  const s = inputs.storage;
  if (!s || !(s.power_mw > 0 && s.energy_mwh > 0)) return 0;
  return s.power_mw * 1000 * s.costs.capex_per_kw + s.energy_mwh * 1000 * s.costs.capex_per_kwh;
}

export interface FinanceResult {
  income_statement: IncomeStatementYear[];
  cash_flow: CashFlowYear[];
  revenue_breakdown: RevenueBreakdown;
  parties?: Parties;
  kpis: Kpis;
}

/** Installed cost: per-kW cost of each technology plus the other (absolute) cost. */
export function installedCost(inputs: ResolvedInputs): number {
  const c = inputs.finance.capex;
  return (
    inputs.solar.capacity_mw_dc * 1000 * c.solar_per_kw_dc +
    inputs.wind.capacity_mw * 1000 * c.wind_per_kw +
    c.other +
    storageCapex(inputs)
  );
}

const NO_CREDITS: TaxCredits = { itc_solar: 0, itc_wind: 0, ptc_solar: 0, ptc_wind: 0, total: 0 };

/**
 * The escalated PTC rate, rounded to a whole $/MWh (0.1 ¢/kWh) as the IRS publishes the
 * inflation-adjusted credit and SAM applies it (half away from zero).
 */
export function ptcRate(perMwh: number): number {
  return Math.sign(perMwh) * Math.floor(Math.abs(perMwh) + 0.5);
}

/**
 * Tax credits by project year (0 = construction, none): the ITC, a percentage of each
 * technology's own capex, in year 1; the PTC, per MWh delivered, for ptc_years, its rate escalated
 * yearly (by inflation unless given) and rounded (ptcRate), as SAM Single Owner computes them.
 */
export function taxCredits(inputs: ResolvedInputs, data: FinanceInput, years: number): TaxCredits[] {
  const c = inputs.finance.tax_credits;
  const capex = inputs.finance.capex;
  const ptcEscalation = (c.ptc_escalation_percent ?? inputs.finance.inflation_percent) / 100;
  const out: TaxCredits[] = [NO_CREDITS];
  for (let y = 1; y <= years; y++) {
    const itcSolar =
      y === 1 ? (c.solar.itc_percent / 100) * inputs.solar.capacity_mw_dc * 1000 * capex.solar_per_kw_dc : 0;
    const itcWind = y === 1 ? (c.wind.itc_percent / 100) * inputs.wind.capacity_mw * 1000 * capex.wind_per_kw : 0;
    const factor = y <= c.ptc_years ? escalation(ptcEscalation, y) : 0;
    const ptcSolar = ptcRate(c.solar.ptc_per_mwh * factor) * data.solarMwh[y - 1];
    const ptcWind = ptcRate(c.wind.ptc_per_mwh * factor) * data.windMwh[y - 1];
    out.push({
      itc_solar: itcSolar,
      itc_wind: itcWind,
      ptc_solar: ptcSolar,
      ptc_wind: ptcWind,
      total: itcSolar + itcWind + ptcSolar + ptcWind,
      ...(data.storage ? { itc_storage: 0 } : {}),
    });
  }
  return out;
}

/**
 * Tax depreciation by year: the allocation's classes (or the single method), bonus in year 1; and
 * equipment replacements (spending by year), MACRS 5-year from the year they are made (SAM's default).
 */
export function depreciation(
  inputs: ResolvedInputs,
  basis: number,
  years: number,
  replacements: ArrayLike<number>,
): Float64Array {
  const d = inputs.finance.depreciation;
  const bonus = d.bonus_percent / 100;
  const out = new Float64Array(years + 1);
  const add = (classBasis: number, schedule: Float64Array | readonly number[], offset: number) => {
    for (let i = 0; i < schedule.length && offset + i <= years; i++) out[offset + i] += classBasis * schedule[i];
  };
  if (d.allocation) {
    for (const a of d.allocation) {
      const classBasis = (a.percent / 100) * basis;
      if (years >= 1) out[1] += bonus * classBasis;
      add((1 - bonus) * classBasis, classFractions(a.class), 1);
    }
  } else {
    if (years >= 1) out[1] += bonus * basis;
    const rest = depreciationSchedule(d.method, d.years, (1 - bonus) * basis, years);
    for (let y = 1; y <= years; y++) out[y] += rest[y];
  }
  for (let y = 1; y <= years; y++) add(replacements[y], MACRS_5, y);
  return out;
}

/**
 * The operating years' costs and EBITDA, as arrays by project year (0 = construction): SAM
 * escalates year-1 O&M by inflation and by its own escalation above it, insurance by inflation
 * only; property tax follows the assessed value, which declines linearly; salvage is income of the
 * last year.
 */
function operatingYears(inputs: ResolvedInputs, data: FinanceInput, capex: number) {
  const f = inputs.finance;
  const o = f.opex;
  const years = data.revenue.length;
  const inflation = f.inflation_percent / 100;
  const omEscalation = f.om_escalation_percent / 100;
  const fixedYear1 =
    inputs.solar.capacity_mw_dc * 1000 * o.solar_fixed_per_kw_year +
    inputs.wind.capacity_mw * 1000 * o.wind_fixed_per_kw_year;
  const insuranceYear1 = (capex * o.insurance_percent_of_capex) / 100;
  const ebitda = new Float64Array(years + 1);
  const opex = new Float64Array(years + 1);
  const lines: IncomeStatementYear['operating_expenses'][] = [];
  const salvage = new Float64Array(years + 1);
  if (years >= 1) salvage[years] = (capex * f.salvage_percent) / 100;
  for (let y = 1; y <= years; y++) {
    const omFactor = escalation(inflation, y) * escalation(omEscalation, y);
    const assessed = Math.max(0, 1 - ((y - 1) * o.property_tax_decline_percent) / 100);
    const line: IncomeStatementYear['operating_expenses'] = {
      fixed_om: fixedYear1 * omFactor,
      variable_om: o.variable_per_mwh * data.deliveredMwh[y - 1] * omFactor,
      insurance: insuranceYear1 * escalation(inflation, y),
      property_tax: ((capex * o.property_tax_assessed_percent) / 100) * assessed * (o.property_tax_percent / 100),
      land_lease: o.land_lease_per_year * omFactor,
      total: 0,
    };
    line.total = line.fixed_om + line.variable_om + line.insurance + line.property_tax + line.land_lease;
    if (data.storage && inputs.storage) storageCosts(inputs.storage, data.storage, y, omFactor, inflation, line);
    if (data.load) {
      line.load_grid_energy = data.load.gridEnergyCost[y - 1];
      line.load_shortfall_penalty = data.load.penalty[y - 1];
      line.total += line.load_grid_energy + line.load_shortfall_penalty;
    }
    lines.push(line);
    opex[y] = line.total;
    ebitda[y] = data.revenue[y - 1].total + salvage[y] - opex[y];
  }
  return { lines, opex, salvage, ebitda };
}

/** The battery's operating costs of year y, added to its lines and the total. */
function storageCosts(
  s: NonNullable<ResolvedInputs['storage']>,
  data: NonNullable<FinanceInput['storage']>,
  y: number,
  omFactor: number,
  inflation: number,
  line: IncomeStatementYear['operating_expenses'],
): void {
  line.storage_fixed_om = s.power_mw * 1000 * s.costs.fixed_om_per_kw_year * omFactor;
  line.storage_variable_om = s.costs.variable_om_per_mwh * data.dischargeMwh[y - 1] * omFactor;
  line.storage_replacement =
    data.replacements[y - 1] * s.costs.replacement_per_kwh * s.energy_mwh * 1000 * escalation(inflation, y);
  line.total += line.storage_fixed_om + line.storage_variable_om + line.storage_replacement;
}

/** The capital side of the project: reserves, debt and its service, tax credits and depreciation. */
function capitalStructure(
  inputs: ResolvedInputs,
  data: FinanceInput,
  capex: number,
  operating: OperatingYears,
  energy: EnergyPercentiles,
) {
  const f = inputs.finance;
  const years = data.revenue.length;
  const inflation = f.inflation_percent / 100;
  // SAM Single Owner: cash available for debt service is EBITDA (before income tax, because the
  // owner pays tax from all its business) less the equipment reserve's funding.
  const equipment = equipmentReserve(
    inputs.solar.capacity_mw_dc * 1000 * f.reserves.equipment.solar_per_kw_dc +
      inputs.wind.capacity_mw * 1000 * f.reserves.equipment.wind_per_kw,
    f.reserves.equipment.every_years,
    inflation,
    years,
  );
  const cfads = new Float64Array(years + 1);
  for (let y = 1; y <= years; y++) cfads[y] = operating.ebitda[y] - equipment.funding[y];
  const revenue = new Float64Array(years + 1);
  for (let y = 1; y <= years; y++) revenue[y] = data.revenue[y - 1].total;
  const sigma = Math.hypot(energy.sigmaInterannual, energy.sigmaModel);
  // A sale-leaseback's lessor buys the plant with equity: no project debt.
  const debtInputs =
    f.structure === 'sale_leaseback' ? { ...inputs, finance: { ...f, debt: { ...f.debt, tenor_years: 0 } } } : inputs;
  const debt = sizeDebt(debtInputs, capex, cfads, revenue, { p50: energy.p50, sigma });
  const debtFee = (debt.amount * f.debt.fee_percent) / 100;
  const service = new Float64Array(years + 1);
  for (let y = 1; y <= years; y++) service[y] = debt.interest[y] + debt.principal[y];
  const reserve = reserves({
    years,
    interestRate: f.reserves.interest_percent / 100,
    debtServiceMonths: debt.amount > 0 ? f.debt.reserve_months : 0,
    debtService: service,
    tenor: Math.min(f.debt.tenor_years, years),
    workingCapitalMonths: f.reserves.working_capital_months,
    operatingExpenses: operating.opex,
    equipment,
  });
  const credits = taxCredits(inputs, data, years);
  // US rules and SAM: the ITC reduces the depreciable basis by half the credit.
  if (data.storage && credits[1]) {
    const itcStorage = (f.tax_credits.storage.itc_percent / 100) * storageCapex(inputs);
    credits[1].itc_storage = itcStorage;
    credits[1].total += itcStorage;
  }
  // A partnership's development fee and equity closing cost are paid at close and depreciated.
  const closing = closingCosts(inputs, capex);
  const basis =
    capex +
    closing.total -
    0.5 * (credits[1] ? credits[1].itc_solar + credits[1].itc_wind + (credits[1].itc_storage ?? 0) : 0);
  return {
    closing,
    equipment,
    cfads,
    debt,
    debtFee,
    service,
    reserve,
    credits,
    depreciation: depreciation(inputs, basis, years, equipment.spending),
  };
}

type OperatingYears = ReturnType<typeof operatingYears>;
type Capital = ReturnType<typeof capitalStructure>;

/** Year 0 of the cash flow: construction, the debt drawn, its fee and the reserves' first funding. */
function constructionYear(capex: number, capital: Capital): CashFlowYear {
  const closing = capital.closing.total;
  const equity = capital.debt.amount - capex - capital.debtFee - capital.reserve.funding[0] - closing;
  return {
    year: 0,
    capex,
    debt_fee: capital.debtFee,
    ebitda: 0,
    reserve_interest: 0,
    income_tax: 0,
    tax_credits: { ...NO_CREDITS },
    debt_drawdown: capital.debt.amount,
    interest: 0,
    principal: 0,
    cfads: 0,
    dscr: null,
    reserve_funding: capital.reserve.funding[0],
    equipment_replacement: 0,
    equity_cash_flow: equity,
    cumulative_equity_cash_flow: equity,
    ...(closing > 0 ? { closing_costs: closing } : {}),
  };
}

/** The income statement and cash flow of every operating year, and the flows the KPIs are made of. */
function statements(
  inputs: ResolvedInputs,
  data: FinanceInput,
  capex: number,
  operating: OperatingYears,
  capital: Capital,
) {
  const f = inputs.finance;
  const years = data.revenue.length;
  const stateRate = f.state_tax_rate_percent / 100;
  const federalRate = f.tax_rate_percent / 100;
  const combinedRate = stateRate + federalRate * (1 - stateRate);
  const { ebitda, lines, salvage } = operating;
  const { debt, reserve, credits, service, cfads, equipment } = capital;
  const incomeStatement: IncomeStatementYear[] = [];
  const year0 = constructionYear(capex, capital);
  const cashFlow: CashFlowYear[] = [year0];
  const equityFlow = new Float64Array(years + 1);
  const projectFlow = new Float64Array(years + 1);
  const ownerCosts = new Float64Array(years + 1);
  equityFlow[0] = year0.equity_cash_flow;
  projectFlow[0] = -capex;
  ownerCosts[0] = -equityFlow[0];
  let cumulative = equityFlow[0];
  let payback: number | null = cumulative >= 0 ? 0 : null;
  const dscrs: number[] = [];
  for (let y = 1; y <= years; y++) {
    const interest = debt.interest[y];
    const principal = debt.principal[y];
    const reserveInterest = reserve.interest[y];
    const preTax = ebitda[y] + reserveInterest - capital.depreciation[y] - interest;
    // Single Owner assumes the owner uses a loss against other income in the same year, so a
    // negative tax (a benefit) is kept, not carried forward; likewise every tax credit is used in
    // the year it arises. State tax is deductible from federal taxable income.
    const stateTax = stateRate * preTax;
    const federalTax = federalRate * (preTax - stateTax);
    const tax = stateTax + federalTax;
    const credit = credits[y];
    const price = f.tax_credits.transfer?.price_per_dollar;
    // Credits sold (transferability) bring credit × price in cash, untaxed, instead of the credit.
    const creditCash = price === undefined ? credit.total : credit.total * price;
    const dscr = service[y] > 0 ? cfads[y] / service[y] : null;
    if (dscr !== null) dscrs.push(dscr);
    equityFlow[y] = ebitda[y] + reserveInterest - tax + creditCash - interest - principal - reserve.funding[y];
    projectFlow[y] =
      ebitda[y] - equipment.funding[y] - combinedRate * (ebitda[y] - capital.depreciation[y]) + creditCash;
    // The owner's costs: what the revenue pays beyond the equity cash flow (SAM's annual costs).
    ownerCosts[y] = data.revenue[y - 1].total - equityFlow[y];
    cumulative += equityFlow[y];
    if (payback === null && cumulative >= 0) payback = y;
    incomeStatement.push({
      year: y,
      revenue: { ...data.revenue[y - 1] },
      salvage_value: salvage[y],
      operating_expenses: lines[y - 1],
      ebitda: ebitda[y],
      reserve_interest: reserveInterest,
      depreciation: capital.depreciation[y],
      interest,
      pre_tax_income: preTax,
      state_income_tax: stateTax,
      federal_income_tax: federalTax,
      income_tax: tax,
      tax_credits: { ...credit },
      net_income: preTax - tax + credit.total,
    });
    cashFlow.push({
      year: y,
      capex: 0,
      debt_fee: 0,
      ebitda: ebitda[y],
      reserve_interest: reserveInterest,
      income_tax: tax,
      tax_credits: { ...credit },
      debt_drawdown: 0,
      interest,
      principal,
      cfads: cfads[y],
      dscr,
      reserve_funding: reserve.funding[y],
      equipment_replacement: equipment.spending[y],
      equity_cash_flow: equityFlow[y],
      cumulative_equity_cash_flow: cumulative,
      ...(price === undefined ? {} : { credit_transfer_proceeds: creditCash }),
    });
  }
  return { incomeStatement, cashFlow, equityFlow, projectFlow, ownerCosts, payback, dscrs, combinedRate };
}

export function financeModel(inputs: ResolvedInputs, data: FinanceInput): FinanceResult {
  const f = inputs.finance;
  const years = data.revenue.length;
  const capex = installedCost(inputs);
  const inflation = f.inflation_percent / 100;
  const operating = operatingYears(inputs, data, capex);
  const percentiles = energyPercentiles(inputs, data.solarMwh, data.windMwh);
  const capital = capitalStructure(inputs, data, capex, operating, percentiles);
  const s = statements(inputs, data, capex, operating, capital);

  const realRate = f.discount_rate_real_percent / 100;
  const nominal = nominalRate(realRate, inflation);
  const energy = new Float64Array(years + 1);
  for (let y = 1; y <= years; y++) energy[y] = data.deliveredMwh[y - 1];
  const lcoe = levelizedCost(s.ownerCosts, energy, nominal, realRate);
  const split = partyStatements(inputs, s, capital.closing.devFee, nominal);
  let dscrMin = Number.POSITIVE_INFINITY;
  let dscrSum = 0;
  for (const d of s.dscrs) {
    dscrMin = Math.min(dscrMin, d);
    dscrSum += d;
  }
  const dscrCount = s.dscrs.length;
  return {
    income_statement: s.incomeStatement,
    cash_flow: s.cashFlow,
    revenue_breakdown: breakdown(data.revenue, data.storage !== undefined, data.load !== undefined),
    ...(split ? { parties: split.parties } : {}),
    kpis: {
      project_npv: npv(nominal, s.projectFlow),
      equity_npv: npv(nominal, s.equityFlow),
      project_irr: irr(s.projectFlow),
      equity_irr: irr(s.equityFlow),
      lcoe_nominal: lcoe.nominal,
      lcoe_real: lcoe.real,
      min_dscr: dscrCount > 0 ? dscrMin : null,
      average_dscr: dscrCount > 0 ? dscrSum / dscrCount : null,
      payback_year: s.payback,
      energy_p50_mwh: percentiles.p50,
      energy_p90_mwh: percentiles.p90,
      energy_p90_10y_mwh: percentiles.p90_10y,
      solved_ppa_price_per_mwh: data.solvedPpaPrice ?? null,
      ...(data.load ? lcod(data.load.deliveredMwh, s.ownerCosts, nominal, realRate) : {}),
      ...(split ? split.kpis : {}),
      ...(capital.debt.binding === null ? {} : { binding_debt_case: capital.debt.binding }),
    },
  };
}

/** With a load: the levelised cost of the energy delivered to it (LCOE's costs over those MWh); absent without delivery. */
function lcod(
  delivered: ArrayLike<number>,
  costs: ArrayLike<number>,
  nominal: number,
  real: number,
): { lcod_nominal?: number } {
  const energy = new Float64Array(delivered.length + 1);
  for (let y = 1; y <= delivered.length; y++) energy[y] = delivered[y - 1];
  const value = levelizedCost(costs, energy, nominal, real).nominal;
  return value === null ? {} : { lcod_nominal: value };
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

function breakdown(revenue: readonly RevenueLines[], withStorage: boolean, withLoad: boolean): RevenueBreakdown {
  let ppa = 0;
  let merchant = 0;
  let solar = 0;
  let wind = 0;
  let storage = 0;
  let contract = 0;
  let excess = 0;
  let ancillary: number | null = null;
  for (const r of revenue) {
    ppa += r.ppa_solar + r.ppa_wind + (r.ppa_storage ?? 0);
    merchant += r.merchant_solar + r.merchant_wind + (r.merchant_storage ?? 0);
    solar += r.ppa_solar + r.merchant_solar;
    wind += r.ppa_wind + r.merchant_wind;
    storage += (r.ppa_storage ?? 0) + (r.merchant_storage ?? 0);
    contract += r.load_contract ?? 0;
    excess += r.load_excess ?? 0;
    if (r.ancillary) for (const v of Object.values(r.ancillary)) ancillary = (ancillary ?? 0) + v;
  }
  const payments = paymentSums(revenue);
  const paid = (payments.capacity ?? 0) + (payments.curtailment ?? 0);
  if (ancillary !== null) {
    // The ancillary lines (never with a load): a source of their own, and the battery's revenue.
    return {
      by_source: { ppa, merchant, ...payments, ancillary },
      by_technology: { solar, wind, storage: storage + ancillary },
      total: ppa + merchant + paid + ancillary,
    };
  }
  const byTechnology = withStorage ? { solar, wind, storage } : { solar, wind };
  if (withLoad) {
    return {
      by_source: { ppa, merchant: merchant + excess, contract, ...payments },
      by_technology: { ...byTechnology, load: contract + excess },
      total: ppa + merchant + excess + contract + paid,
    };
  }
  return { by_source: { ppa, merchant, ...payments }, by_technology: byTechnology, total: ppa + merchant + paid };
}

/** The capacity and curtailment payments of all years, each only when its line is in the statements. */
function paymentSums(revenue: readonly RevenueLines[]): { capacity?: number; curtailment?: number } {
  const out: { capacity?: number; curtailment?: number } = {};
  for (const r of revenue) {
    if (r.capacity !== undefined) out.capacity = (out.capacity ?? 0) + r.capacity;
    if (r.curtailment_payment !== undefined) out.curtailment = (out.curtailment ?? 0) + r.curtailment_payment;
  }
  return out;
}
