// Debt sized on several energy cases, as lenders do: each case (P50, P90, P99 of the scenario's
// one-year energy) at its own coverage supports a debt (the present value, at the interest rate,
// of its CFADS over its DSCR); the project borrows the least of them, with its service sculpted to
// that case. A case's CFADS is the P50 CFADS with the revenue scaled by the case's energy ÷ P50:
// costs are kept at P50 (variable O&M would fall a little with the energy; keeping it is the
// lender's conservative side).
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import { type DebtSchedule, debtSchedule } from './finance.debt.ts';
import { Z_P90 } from './uncertainty.ts';

/** z of the 1 % one-sided normal quantile. */
export const Z_P99 = 2.326;

const Z = { p50: 0, p90: Z_P90, p99: Z_P99 } as const;
const P_LEVEL = { p50: 50, p90: 90, p99: 99 } as const;

export interface CaseDebt {
  energy: keyof typeof Z;
  dscr: number;
  /** The case's energy ÷ P50. */
  factor: number;
  amount: number;
}

export interface SizedDebt extends DebtSchedule {
  /** Each case's debt, in the order given; empty without cases. */
  cases: CaseDebt[];
  /** The P level (50, 90, 99) of the case that sized the debt; null without cases. */
  binding: number | null;
}

/**
 * The project's debt: with `cases` (and DSCR sizing), the least any case supports; otherwise the
 * single sizing of finance.debt. `revenue` is by project year (index 0 unused); `p50` and `sigma`
 * are the scenario's one-year P50 energy and its σ (MWh).
 */
export function sizeDebt(
  inputs: ResolvedInputs,
  installedCost: number,
  cfads: Float64Array,
  revenue: ArrayLike<number>,
  energy: { p50: number; sigma: number },
): SizedDebt {
  const terms = inputs.finance.debt;
  const years = cfads.length - 1;
  if (!terms.cases || terms.sizing !== 'dscr') {
    return { ...debtSchedule(terms, installedCost, cfads, years), cases: [], binding: null };
  }
  let best: { schedule: DebtSchedule; index: number } | null = null;
  const cases: CaseDebt[] = [];
  for (const [index, c] of terms.cases.entries()) {
    const factor = energy.p50 > 0 ? Math.max(0, energy.p50 - Z[c.energy] * energy.sigma) / energy.p50 : 1;
    const caseCfads = new Float64Array(years + 1);
    for (let y = 1; y <= years; y++) caseCfads[y] = cfads[y] - (1 - factor) * revenue[y];
    const schedule = debtSchedule({ ...terms, target_dscr: c.dscr }, installedCost, caseCfads, years);
    cases.push({ energy: c.energy, dscr: c.dscr, factor, amount: schedule.amount });
    if (best === null || schedule.amount < best.schedule.amount) best = { schedule, index };
  }
  if (best === null) throw new Error('sizeDebt: no case');
  return { ...best.schedule, cases, binding: P_LEVEL[terms.cases[best.index].energy] };
}
