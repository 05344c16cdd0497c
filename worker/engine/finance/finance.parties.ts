// The statements per party for an owner other than a single one (finance.structure): which model
// splits the Single Owner statements (finance.flip.ts, finance.leaseback.ts), and the parties' KPIs.
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import type { Parties } from '../../../shared/schemas/result.parties.ts';
import type { CashFlowYear, IncomeStatementYear, Kpis } from '../../../shared/schemas/result.ts';
import { type FlipSplit, flipSplit } from './finance.flip.ts';
import { leasebackSplit } from './finance.leaseback.ts';

export type { Parties };

export interface ProjectStatements {
  cashFlow: readonly CashFlowYear[];
  incomeStatement: readonly IncomeStatementYear[];
  /** State + federal × (1 − state), the rate of year 1. */
  combinedRate: number;
}

/** Each party's statement and KPIs, by the structure; null for a single owner. */
export function partyStatements(
  inputs: ResolvedInputs,
  s: ProjectStatements,
  devFee: number,
  nominal: number,
): { parties: Parties; kpis: Partial<Kpis> } | null {
  const f = inputs.finance;
  const structure = f.structure ?? 'single_owner';
  if (structure === 'single_owner') return null;
  const split =
    structure === 'sale_leaseback'
      ? leasebackSplit(inputs, {
          cashFlow: s.cashFlow,
          incomeStatement: s.incomeStatement,
          devFee,
          rate: nominal,
          stateRate: f.state_tax_rate_percent / 100,
          federalRate: f.tax_rate_percent / 100,
        })
      : flipSplit(inputs, s.cashFlow, devFee, nominal, s.combinedRate);
  return {
    parties: { structure, flip_year: split.flipYear, tax_investor: split.investor, sponsor: split.sponsor },
    kpis: partyKpis(split),
  };
}

/** The parties' KPIs: each party's return and the flip year (absent when there is none). */
function partyKpis(split: FlipSplit): Partial<Kpis> {
  return {
    ...(split.investor.irr === null ? {} : { investor_irr: split.investor.irr }),
    investor_npv: split.investor.npv,
    sponsor_npv: split.sponsor.npv,
    ...(split.sponsor.irr === null ? {} : { sponsor_irr: split.sponsor.irr }),
    ...(split.flipYear === null ? {} : { flip_year: split.flipYear }),
  };
}
