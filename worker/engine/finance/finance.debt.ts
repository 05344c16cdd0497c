// Project term debt, drawn at the end of construction (year 0) and repaid
// yearly over the tenor, in one of SAM's two ways:
// - fraction: debt = fraction × installed cost, repaid in level (mortgage
//   style) payments;
// - dscr: each year's debt service is CFADS / target DSCR, and the debt is
//   the present value of that service at the interest rate. The payments
//   are then "sculpted" to the cash flow, so every year's DSCR equals the
//   target (SAM's DSCR option does the same; a level payment would breach the
//   target in the weakest year).
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import { annuityPayment } from './finance.metrics.ts';

export interface DebtSchedule {
  amount: number;
  /** By project year, 0 = construction. */
  interest: Float64Array;
  principal: Float64Array;
}

export function debtSchedule(
  terms: Pick<
    ResolvedInputs['finance']['debt'],
    'sizing' | 'fraction' | 'target_dscr' | 'interest_rate_percent' | 'tenor_years'
  >,
  installedCost: number,
  cfads: ArrayLike<number>,
  years: number,
): DebtSchedule {
  const interest = new Float64Array(years + 1);
  const principal = new Float64Array(years + 1);
  const tenor = Math.min(terms.tenor_years, years);
  const rate = terms.interest_rate_percent / 100;
  const service = new Float64Array(years + 1);
  let amount = 0;
  if (tenor > 0 && installedCost > 0) {
    if (terms.sizing === 'fraction') {
      amount = terms.fraction * installedCost;
      service.fill(annuityPayment(amount, rate, tenor), 1, tenor + 1);
    } else {
      // A year with negative CFADS cannot service debt; it gets none.
      for (let y = 1; y <= tenor; y++) {
        service[y] = Math.max(0, cfads[y]) / terms.target_dscr;
        amount += service[y] / (1 + rate) ** y;
      }
      // Debt beyond the installed cost would pay the owner to build: cap it
      // and scale the service down, which lifts DSCR above the target.
      if (amount > installedCost) {
        const scale = installedCost / amount;
        for (let y = 1; y <= tenor; y++) service[y] *= scale;
        amount = installedCost;
      }
    }
  }
  let balance = amount;
  for (let y = 1; y <= tenor && amount > 0; y++) {
    interest[y] = balance * rate;
    // The last payment clears what rounding left of the balance.
    principal[y] = y === tenor ? balance : service[y] - interest[y];
    balance -= principal[y];
  }
  return { amount, interest, principal };
}
