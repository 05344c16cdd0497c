// SAM Single Owner's reserve accounts, by project year (index 0 = financial close):
// - debt service (DSRA): months of the next year's debt service, funded at close, adjusted yearly,
//   released at maturity;
// - working capital: months of the next year's operating expenses, released in the last year;
// - major equipment: each replacement (escalated by inflation) is funded evenly over the years
//   before it and spent from the reserve in its year, for cycles that end within the analysis.
// Balances earn interest (taxable) from the year after.
import { escalation } from '../escalation.ts';

export interface Reserves {
  /** Money put into the reserves in the year (releases to the owner are negative); spending excluded. */
  funding: Float64Array;
  /** The part of `funding` that goes to the equipment reserve (SAM takes it from CFADS). */
  equipmentFunding: Float64Array;
  /** Replacement cost spent from the equipment reserve. */
  equipmentSpending: Float64Array;
  /** Interest earned on the balances at the end of the year before. */
  interest: Float64Array;
}

/** Equipment replacement every `every` years at `yearOneCost` (escalated by inflation). */
export function equipmentReserve(
  yearOneCost: number,
  every: number,
  inflation: number,
  years: number,
): { funding: Float64Array; spending: Float64Array } {
  const funding = new Float64Array(years + 1);
  const spending = new Float64Array(years + 1);
  if (yearOneCost <= 0) return { funding, spending };
  for (let end = every; end <= years; end += every) {
    const cost = yearOneCost * escalation(inflation, end);
    for (let y = end - every + 1; y <= end; y++) funding[y] += cost / every;
    spending[end] = cost;
  }
  return { funding, spending };
}

/**
 * A reserve held at `months` of the next year's `flow` (debt service, operating expenses) from
 * close until the year before `last`, released in year `last`: its balance by year.
 */
function heldReserve(months: number, flow: ArrayLike<number>, last: number, years: number): Float64Array {
  const balance = new Float64Array(years + 1);
  if (months <= 0) return balance;
  for (let y = 0; y < last; y++) balance[y] = (months / 12) * flow[y + 1];
  return balance;
}

export function reserves(options: {
  years: number;
  interestRate: number;
  debtServiceMonths: number;
  /** Debt service (interest + principal) by year; the last year with service is the tenor. */
  debtService: ArrayLike<number>;
  tenor: number;
  workingCapitalMonths: number;
  operatingExpenses: ArrayLike<number>;
  equipment: { funding: Float64Array; spending: Float64Array };
}): Reserves {
  const { years } = options;
  const dsra = heldReserve(options.debtServiceMonths, options.debtService, options.tenor, years);
  const working = heldReserve(options.workingCapitalMonths, options.operatingExpenses, years, years);
  const funding = new Float64Array(years + 1);
  const interest = new Float64Array(years + 1);
  let equipmentBalance = 0;
  let previousTotal = 0;
  for (let y = 0; y <= years; y++) {
    const before = y === 0 ? 0 : dsra[y - 1] + working[y - 1];
    funding[y] = dsra[y] + working[y] - before + options.equipment.funding[y];
    equipmentBalance += options.equipment.funding[y] - options.equipment.spending[y];
    if (y > 0) interest[y] = options.interestRate * previousTotal;
    previousTotal = dsra[y] + working[y] + equipmentBalance;
  }
  return {
    funding,
    equipmentFunding: options.equipment.funding,
    equipmentSpending: options.equipment.spending,
    interest,
  };
}
