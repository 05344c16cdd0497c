// The statements of each party of a partnership flip or a sale-leaseback: the tax investor's
// (lessor's) and the sponsor's (lessee's) cash by year, with their NPVs and IRRs. Part of the scenario
// result (result.ts); docs/finance.md explains the split.
import { type Static, Type } from '@sinclair/typebox';
import { YEARS } from '../calendar.ts';

const Money = (description: string) => Type.Number({ description });

export const PartyYear = Type.Object(
  {
    year: Type.Integer({ minimum: 0, maximum: YEARS, description: '0 = financial close, then operating years.' }),
    pre_tax_cash: Money(
      "The party's share of the pre-tax cash (year 0: its equity, negative; the sponsor's includes the development fee).",
    ),
    tax_benefit: Money(
      "The party's share of tax credits less income tax (the sponsor's year 1 also bears the development fee's tax).",
    ),
    after_tax_cash: Money('pre_tax_cash + tax_benefit.'),
    cumulative: Money('Sum of after_tax_cash from year 0 through this year.'),
  },
  { additionalProperties: false },
);

export const Party = Type.Object(
  {
    years: Type.Array(PartyYear, { minItems: YEARS + 1, maxItems: YEARS + 1 }),
    npv: Money('NPV of after_tax_cash at the nominal discount rate.'),
    irr: Type.Union([Type.Number(), Type.Null()], { description: 'IRR of after_tax_cash; null where there is none.' }),
    pre_tax_npv: Money('NPV of pre_tax_cash at the nominal discount rate.'),
  },
  { additionalProperties: false },
);

export const Parties = Type.Object(
  {
    structure: Type.Union([
      Type.Literal('leveraged_flip'),
      Type.Literal('all_equity_flip'),
      Type.Literal('sale_leaseback'),
    ]),
    flip_year: Type.Union([Type.Integer({ minimum: 1, maximum: YEARS }), Type.Null()], {
      description:
        'The first year whose investor IRR (years 0 to it) reaches the flip target; null if none does (and for a sale-leaseback).',
    }),
    tax_investor: Party,
    sponsor: Party,
  },
  {
    additionalProperties: false,
    description:
      "The statements per party of a partnership flip (tax investor and sponsor) or a sale-leaseback (lessor and lessee); docs/finance.md says how they add up to the project's.",
  },
);

export type Party = Static<typeof Party>;
export type Parties = Static<typeof Parties>;
