// The capital stack's inputs: who owns the project (a single owner or a tax-equity partnership
// flip), credits sold for cash, and debt sized on several energy cases. Part of `finance` in the
// scenario inputs (inputs.ts); docs/finance.md explains each.
import { type Static, Type } from '@sinclair/typebox';
import { YEARS } from '../calendar.ts';
import { compileDefaults } from '../schema.defaults.ts';

const Percent = (dflt: number, description: string) =>
  Type.Number({ minimum: 0, maximum: 100, default: dflt, description });

export const FINANCE_STRUCTURES = ['single_owner', 'leveraged_flip', 'all_equity_flip', 'sale_leaseback'] as const;

export const FinanceStructure = Type.Union(
  FINANCE_STRUCTURES.map((s) => Type.Literal(s)),
  {
    description:
      "Who owns the project (SAM's financial models): single_owner (the default), leveraged_flip (a tax investor and a sponsor, with project debt), all_equity_flip (the same without debt), sale_leaseback (the sponsor sells the plant to the tax investor and leases it back; no project debt). The terms are in finance.tax_equity.",
  },
);

export const TaxEquity = Type.Object(
  {
    investor_equity_percent: Percent(98, "The tax investor's share of the equity at close, % (SAM 98)."),
    preflip_cash_percent: Percent(98, "The investor's share of each year's pre-tax cash before the flip, %."),
    postflip_cash_percent: Percent(10, "The investor's share of pre-tax cash after the flip, %."),
    preflip_tax_percent: Percent(98, "The investor's share of taxes and tax credits before the flip, %."),
    postflip_tax_percent: Percent(10, "The investor's share of taxes and tax credits after the flip, %."),
    flip_target_irr_percent: Type.Number({
      minimum: -50,
      maximum: 100,
      default: 11,
      description: "The investor's after-tax IRR at which the allocations flip, %.",
    }),
    flip_target_year: Type.Integer({
      minimum: 1,
      maximum: YEARS,
      default: 9,
      description: 'The year the investor expects to reach the target (reported; the flip happens when it is reached).',
    }),
    development_fee_percent: Percent(
      3,
      "The sponsor's development fee, % of the installed cost: paid at close from the project's cost, depreciable, taxed to the sponsor in year 1.",
    ),
    equity_closing_cost: Type.Number({
      minimum: 0,
      maximum: 1e12,
      default: 100_000,
      description: 'Equity closing cost, paid at close and depreciable (SAM 100,000).',
    }),
    sponsor_capital_recovery_years: Type.Integer({
      minimum: 0,
      maximum: YEARS,
      default: 3,
      description:
        'all_equity_flip: the years in which the sponsor first recovers its equity from positive pre-tax cash, before the shares apply (SAM 3).',
    }),
    lessee_margin_per_kw_year: Type.Number({
      minimum: 0,
      maximum: 10_000,
      default: 40,
      description:
        "sale_leaseback: the sponsor's (lessee's) yearly operating margin per kW of nameplate (solar DC + wind), kept before the rent (SAM 40).",
    }),
    lessee_margin_escalation_percent: Type.Number({
      minimum: -20,
      maximum: 50,
      default: 2,
      description: "sale_leaseback: the margin's yearly escalation, % (SAM 2).",
    }),
    lease_reserve_months: Type.Integer({
      minimum: 0,
      maximum: 24,
      default: 6,
      description:
        "sale_leaseback: the lease-payment reserve the lessor requires, months of year 1's rent, funded by the sponsor at close and returned in the last year (SAM 6).",
    }),
  },
  {
    additionalProperties: false,
    description:
      'The terms of a partnership flip or a sale-leaseback (SAM’s inputs and defaults). Used when finance.structure is not single_owner.',
  },
);

export type TaxEquityInputs = Static<typeof TaxEquity>;

/** The terms when none are given: the schema's defaults. */
export const TAX_EQUITY_DEFAULTS = Object.freeze(compileDefaults(TaxEquity)({}) as TaxEquityInputs);

export const CreditTransfer = Type.Object(
  {
    price_per_dollar: Type.Number({
      minimum: 0,
      maximum: 1,
      description: 'Cash received per dollar of credit (e.g. 0.92): the credits are sold in the year they arise.',
    }),
  },
  {
    additionalProperties: false,
    description:
      'Credits sold for cash (transferability, IRC §6418) instead of used against tax: the proceeds are not taxed and the discount not deducted.',
  },
);

export const DEBT_ENERGY_CASES = ['p50', 'p90', 'p99'] as const;

export const DebtCases = Type.Array(
  Type.Object(
    {
      energy: Type.Union(
        DEBT_ENERGY_CASES.map((c) => Type.Literal(c)),
        {
          description:
            "The energy case: P50, or P90 / P99 = P50 − 1.2816 σ / 2.326 σ of the scenario's one-year energy uncertainty.",
        },
      ),
      dscr: Type.Number({
        exclusiveMinimum: 0,
        maximum: 10,
        description: 'The coverage the lender asks on this case.',
      }),
    },
    { additionalProperties: false },
  ),
  {
    minItems: 1,
    maxItems: 3,
    description:
      'debt.sizing = dscr only: the debt each case supports (its CFADS, revenue scaled to the case, over its DSCR, at the interest rate); the debt is the least of them, its service sculpted to that case.',
  },
);
