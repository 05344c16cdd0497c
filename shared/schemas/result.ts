// The statements of a calculated scenario (their contract: docs/api.md, "The statements"). One schema
// documents the API (OpenAPI) and types both the engine's output and the
// stored result, so the three cannot drift.
//
// Sign convention: every cost field (capex, operating expenses, interest,
// principal, income tax) is a positive amount of money paid; income_tax is
// negative when it is a benefit. Cash-flow fields that are results
// (ebitda, cfads, equity_cash_flow) are signed cash to the owner.
import {
  type Static,
  type TArray,
  type TNull,
  type TNumber,
  type TOptional,
  type TProperties,
  type TSchema,
  type TUnion,
  Type,
} from '@sinclair/typebox';
import { HOURS_PER_YEAR, YEARS } from '../calendar.ts';
import { type AlwaysHourlyName, HOURLY_NAMES, HOURLY_SERIES, type HourlySeriesName } from '../hourly.series.ts';
import { KPIS, type KpiDefinition } from '../kpis.ts';
import { Parties } from './result.parties.ts';

export { HOURS_PER_YEAR, YEARS } from '../calendar.ts';

const Money = (description: string) => Type.Number({ description });
/** An object of the statements: its fields and no others. */
const Closed = <T extends TProperties>(fields: T, description?: string) =>
  Type.Object(fields, { additionalProperties: false, ...(description === undefined ? {} : { description }) });
const Nullable = <T extends TSchema>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });
const ProjectYear = (description: string) => Type.Integer({ minimum: 0, maximum: YEARS, description });

const Hourly = (description: string, minimum: number | undefined = 0) =>
  Type.Array(
    Type.Array(Type.Number(minimum === undefined ? {} : { minimum }), {
      minItems: HOURS_PER_YEAR,
      maxItems: HOURS_PER_YEAR,
    }),
    { minItems: YEARS, maxItems: YEARS, description },
  );

const Mwh = (description: string) => Type.Optional(Type.Number({ minimum: 0, description }));

export const AnnualEnergy = Closed(
  {
    year: ProjectYear('Operating year, 1 = start_year.'),
    solar_mwh: Type.Number({ minimum: 0, description: 'Solar energy delivered after degradation and curtailment.' }),
    wind_mwh: Type.Number({ minimum: 0, description: 'Wind energy delivered after degradation and curtailment.' }),
    curtailed_mwh: Type.Number({
      minimum: 0,
      description: 'Energy lost to the export limit (solar and wind cut in proportion).',
    }),
    export_mwh: Type.Number({ minimum: 0, description: 'Energy delivered to the grid: solar_mwh + wind_mwh.' }),
    solar_capacity_factor: Nullable(
      Type.Number({ minimum: 0 }),
      'Delivered solar energy / (DC nameplate × 8,760 h), as PVWatts reports it. Null without solar.',
    ),
    wind_capacity_factor: Nullable(
      Type.Number({ minimum: 0 }),
      'Delivered wind energy / (nameplate × 8,760 h). Null without wind.',
    ),
    storage_charge_from_plant_mwh: Mwh(
      'Battery: AC MWh charged from the plant (curtailed or not). With a battery only.',
    ),
    storage_charge_from_grid_mwh: Mwh('Battery: AC MWh charged from the grid.'),
    storage_discharge_mwh: Mwh('Battery: AC MWh discharged.'),
    storage_cycles: Mwh('Battery: equivalent full cycles, discharged MWh ÷ nameplate MWh.'),
    storage_capacity_percent: Mwh('Battery: capacity at the end of the year, % of nameplate.'),
    storage_replacements: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Battery banks replaced in the year.' }),
    ),
    curtailed_without_storage_mwh: Mwh('Energy the export limit would curtail without the battery.'),
    curtailed_by_operator_mwh: Mwh(
      "Of curtailed_mwh, the energy the operator's grid.export_limit_hourly_mw cut below export_limit_mw. With that series only.",
    ),
    load_mwh: Mwh("The buyer's load. With a load only (docs/load.md)."),
    delivered_to_load_mwh: Mwh('Energy delivered to the load: Σ min(load, plant + discharge − charge from the plant).'),
    unmet_mwh: Mwh("Load not delivered: the buyer's backup from the grid."),
    excess_mwh: Mwh('Output above the load, sold or curtailed.'),
    excess_sold_mwh: Mwh('Of the excess, MWh sold at the merchant price (0 with excess "curtail").'),
    availability_year_percent: Mwh('Delivered ÷ load over the year, %.'),
    availability_month_percent: Type.Optional(
      Type.Array(Type.Number({ minimum: 0 }), {
        minItems: 12,
        maxItems: 12,
        description: 'Delivered ÷ load of each calendar month, %, January first.',
      }),
    ),
    availability_peak_percent: Mwh("Delivered ÷ load in the contract's peak hours of the year, %."),
    shortfall_mwh: Mwh(
      "MWh below the contract's availability thresholds (each threshold's periods, added), penalised.",
    ),
  },
  'Energy of one operating year, MWh.',
);

export const RevenueLines = Closed(
  {
    ppa_solar: Money('Solar energy sold under the PPA.'),
    ppa_wind: Money('Wind energy sold under the PPA.'),
    merchant_solar: Money('Solar energy sold at the hourly merchant price.'),
    merchant_wind: Money('Wind energy sold at the hourly merchant price.'),
    ppa_storage: Type.Optional(
      Money(
        "Battery, under the PPA: its net energy (discharged − charged) at each hour's PPA price; the solar and wind lines count the energy they put into it.",
      ),
    ),
    merchant_storage: Type.Optional(Money('Battery, at the merchant price: net energy × the hour’s price.')),
    load_contract: Type.Optional(
      Money(
        'With a load: energy delivered to the load × the year’s contract price (the PPA and merchant lines above are then 0).',
      ),
    ),
    load_excess: Type.Optional(Money('With a load: excess sold × the hour’s escalated merchant price.')),
    capacity: Type.Optional(
      Money(
        'With market.capacity: price per MW-year × (1 + escalation)^(year − 1) × capacity credit × accredited MW (docs/markets.md).',
      ),
    ),
    curtailment_payment: Type.Optional(
      Money(
        "With market.curtailment_payment_per_mwh: MWh curtailed by the operator's hourly export limit × the escalated payment per MWh.",
      ),
    ),
    ancillary: Type.Optional(
      Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_]{0,39}$' }), Money('One product’s revenue.'), {
        description:
          'With ancillary products (market.ancillary), a line per product by its name: MW reserved × the escalated capacity price, plus the expected deployed energy at the merchant price (sold for up, bought for down).',
      }),
    ),
    total: Money('Sum of the lines.'),
  },
  'Revenue, nominal money of the year.',
);

export const OperatingExpenses = Closed(
  {
    fixed_om: Money('Fixed O&M per kW (solar per kW DC, wind per kW).'),
    variable_om: Money('Variable O&M per MWh delivered.'),
    insurance: Money('Insurance: % of installed cost, escalated by inflation only (as SAM).'),
    property_tax: Money('Property tax: % of the assessed value (a % of installed cost, declining linearly).'),
    land_lease: Money('Land lease.'),
    storage_fixed_om: Type.Optional(Money('Battery fixed O&M per kW (escalated as O&M).')),
    storage_variable_om: Type.Optional(Money('Battery variable O&M per MWh discharged (escalated as O&M).')),
    storage_replacement: Type.Optional(
      Money('Battery banks replaced: replacement cost per kWh × nameplate, escalated by inflation.'),
    ),
    load_grid_energy: Type.Optional(
      Money('With a load: energy the battery bought from the grid × the hour’s escalated backup price.'),
    ),
    load_shortfall_penalty: Type.Optional(
      Money(
        "With a load: MWh below the contract's availability thresholds × penalty multiple × the year's contract price.",
      ),
    ),
    total: Money('Sum of the lines above.'),
  },
  'O&M and land lease: year-1 money × (1 + inflation)^(year − 1) × (1 + O&M escalation)^(year − 1), as SAM escalates O&M.',
);

export const TaxCredits = Closed(
  {
    itc_solar: Money('Solar investment tax credit (year 1 only).'),
    itc_wind: Money('Wind investment tax credit (year 1 only).'),
    ptc_solar: Money('Solar production tax credit: delivered MWh × escalated rate, for ptc_years.'),
    ptc_wind: Money('Wind production tax credit.'),
    itc_storage: Type.Optional(Money('Storage investment tax credit (year 1 only).')),
    total: Money('Sum of the lines.'),
  },
  'Tax credits of the year, by technology; used against tax as they arise (SAM Single Owner: the owner has the tax appetite).',
);

export const IncomeStatementYear = Closed(
  {
    year: ProjectYear('Operating year, 1 = start_year.'),
    revenue: RevenueLines,
    salvage_value: Money('Salvage value (last year only), taxed as income.'),
    operating_expenses: OperatingExpenses,
    ebitda: Money('revenue.total + salvage_value − operating_expenses.total.'),
    reserve_interest: Money('Interest earned on the reserve accounts (taxable).'),
    depreciation: Money(
      'Tax depreciation: of the installed cost (after half the ITC) by class, bonus in year 1, and of equipment replacements (MACRS 5-year).',
    ),
    interest: Money('Interest paid on the project debt.'),
    pre_tax_income: Money('ebitda + reserve_interest − depreciation − interest.'),
    state_income_tax: Money('State tax rate × pre_tax_income.'),
    federal_income_tax: Money('Federal tax rate × (pre_tax_income − state_income_tax).'),
    income_tax: Money(
      'state_income_tax + federal_income_tax; negative is a benefit (Single Owner: the owner uses losses as they occur).',
    ),
    tax_credits: TaxCredits,
    net_income: Money('pre_tax_income − income_tax + tax_credits.total.'),
  },
  'Income statement of one operating year.',
);

export const CashFlowYear = Closed(
  {
    year: ProjectYear('0 = construction, then operating years 1–25.'),
    capex: Money('Installed cost paid (year 0 only).'),
    debt_fee: Money('Up-front debt fee (year 0 only).'),
    ebitda: Money('As in the income statement; 0 in year 0.'),
    reserve_interest: Money('As in the income statement.'),
    income_tax: Money('As in the income statement (negative = benefit); 0 in year 0.'),
    tax_credits: TaxCredits,
    debt_drawdown: Money('Debt drawn to pay the installed cost (year 0 only).'),
    interest: Money('Interest paid.'),
    principal: Money('Principal repaid.'),
    cfads: Money(
      'Cash available for debt service, as SAM Single Owner defines it (before income tax): EBITDA less the equipment reserve funding.',
    ),
    dscr: Nullable(Type.Number(), 'cfads / (interest + principal). Null in a year without debt service.'),
    reserve_funding: Money(
      'Money put into the reserves (debt service, working capital, equipment); a release to the owner is negative.',
    ),
    equipment_replacement: Money('Equipment replacement paid from the equipment reserve.'),
    equity_cash_flow: Money(
      'Cash to the owner after tax: debt_drawdown − capex − debt_fee + ebitda + reserve_interest − income_tax + tax_credits.total − interest − principal − reserve_funding.',
    ),
    cumulative_equity_cash_flow: Money('Sum of equity_cash_flow from year 0 through this year.'),
    closing_costs: Type.Optional(
      Money(
        'A partnership flip, year 0: the development fee and equity closing cost, paid at close with capex (and depreciated); equity_cash_flow is less by them.',
      ),
    ),
    credit_transfer_proceeds: Type.Optional(
      Money(
        'With finance.tax_credits.transfer: cash from the credits sold, tax_credits.total × price_per_dollar; equity_cash_flow takes it in place of tax_credits.total.',
      ),
    ),
  },
  'Cash flow of one year.',
);

export const RevenueBreakdown = Closed(
  {
    by_source: Closed({
      ppa: Money('PPA revenue, all years.'),
      merchant: Money('Merchant revenue, all years (with a load: the excess sold).'),
      contract: Type.Optional(Money('With a load: the load contract’s revenue, all years.')),
      capacity: Type.Optional(Money('With market.capacity: the capacity payments, all years.')),
      curtailment: Type.Optional(Money('With a curtailment payment: the payments for curtailment, all years.')),
      ancillary: Type.Optional(Money('With ancillary products: their lines, all years.')),
    }),
    by_technology: Closed({
      solar: Money('Solar revenue, all years.'),
      wind: Money('Wind revenue, all years.'),
      storage: Type.Optional(
        Money('Battery revenue lines (net energy, and with ancillary products their lines), all years.'),
      ),
      load: Type.Optional(Money('With a load: the contract and excess revenue, all years (not split by technology).')),
    }),
    total: Money('Revenue, all years.'),
  },
  'Lifetime revenue (undiscounted sum of nominal money).',
);

type KpiSchema<D extends KpiDefinition> = D['presence'] extends 'always'
  ? TNumber
  : D['presence'] extends 'nullable'
    ? TUnion<[TNumber, TNull]>
    : TOptional<TNumber>;

/** One KPI's schema, from its registry entry (shared/kpis.ts), with its direction as `x-better`. */
function kpiSchema<D extends KpiDefinition>(d: D): KpiSchema<D> {
  const number = d.year ? Type.Integer({ minimum: 0, maximum: YEARS }) : Type.Number();
  const annotated = { description: d.description, 'x-better': d.better ?? 'none' };
  if (d.presence === 'always') return Type.Number(annotated) as KpiSchema<D>;
  if (d.presence === 'nullable') return Type.Union([number, Type.Null()], annotated) as KpiSchema<D>;
  return Type.Optional(Type.Number(annotated)) as unknown as KpiSchema<D>;
}

type KpiProperties = { -readonly [K in keyof typeof KPIS]: KpiSchema<(typeof KPIS)[K]> };

export const Kpis = Closed(
  Object.fromEntries(Object.entries(KPIS).map(([name, d]) => [name, kpiSchema(d)])) as unknown as KpiProperties,
  'Key figures. Nominal discount rate = (1 + real)(1 + inflation) − 1; year 0 is undiscounted, year n is divided by (1 + rate)^n. `x-better` says whether a higher or a lower value is better.',
);

/** The wind rose of a scenario's wind resource at hub height (with a wind_resource only). */
export const WindRose = Closed(
  {
    hub_height_m: Type.Number({ description: 'The hub height the speeds and directions are taken at, m.' }),
    sectors: Type.Literal(16, { description: 'Direction sectors of 22.5°, sector 0 centred on north, clockwise.' }),
    speed_bins_ms: Type.Array(Type.Number(), {
      minItems: 6,
      maxItems: 6,
      description: 'Lower edges of the speed bins, m/s; the last bin is open above.',
    }),
    frequency: Type.Array(Type.Array(Type.Number({ minimum: 0, maximum: 1 }), { minItems: 6, maxItems: 6 }), {
      minItems: 16,
      maxItems: 16,
      description:
        'Share of the time steps of every resource year with the wind from sector s at speed bin b, [s][b]; the shares sum to 1.',
    }),
    mean_speed_ms: Type.Array(Type.Union([Type.Number({ minimum: 0 }), Type.Null()]), {
      minItems: 16,
      maxItems: 16,
      description: "Mean hub-height speed of each sector's steps, m/s; null for a sector the wind never came from.",
    }),
  },
  "How often the wind comes from each direction at each speed, over the wind_resource's steps at hub height. Only when the scenario has a wind_resource with directions.",
);

const YearHours = (description: string, minimum: number | undefined) =>
  Type.Array(Type.Number(minimum === undefined ? {} : { minimum }), {
    minItems: HOURS_PER_YEAR,
    maxItems: HOURS_PER_YEAR,
    description,
  });

const floor = (name: HourlySeriesName) => (HOURLY_SERIES[name].nonNegative ? 0 : undefined);

/** The registry's series (shared/hourly.series.ts) as the statements' 25 × 8,760 fields, each optional (?hourly=false). */
const FULL_HOURLY = Object.fromEntries(
  HOURLY_NAMES.map((n) => [n, Type.Optional(Hourly(HOURLY_SERIES[n].description, floor(n)))]),
) as { [K in HourlySeriesName]: TOptional<TArray<TArray<TNumber>>> };

/** The registry's series as one year's fields: those present always required, the others optional. */
const YEAR_HOURLY = Object.fromEntries(
  HOURLY_NAMES.map((n) => {
    const hours = YearHours(HOURLY_SERIES[n].yearDescription, floor(n));
    return [n, HOURLY_SERIES[n].present === 'always' ? hours : Type.Optional(hours)];
  }),
) as { [K in AlwaysHourlyName]: TArray<TNumber> } & {
  [K in Exclude<HourlySeriesName, AlwaysHourlyName>]: TOptional<TArray<TNumber>>;
};

export const ScenarioResult = Type.Object(
  {
    scenario_id: Type.String({ format: 'uuid', description: 'The scenario these statements belong to.' }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code of every money figure.' }),
    energy_unit: Type.Literal('MWh'),
    start_year: Type.Integer({ description: 'Calendar year of operating year 1.' }),
    years: Type.Literal(YEARS),
    hours_per_year: Type.Literal(HOURS_PER_YEAR),
    ...FULL_HOURLY,
    annual: Type.Array(AnnualEnergy, { minItems: YEARS, maxItems: YEARS }),
    wind_rose: Type.Optional(WindRose),
    income_statement: Type.Array(IncomeStatementYear, { minItems: YEARS, maxItems: YEARS }),
    cash_flow: Type.Array(CashFlowYear, { minItems: YEARS + 1, maxItems: YEARS + 1 }),
    revenue_breakdown: RevenueBreakdown,
    parties: Type.Optional(Parties),
    kpis: Kpis,
  },
  {
    additionalProperties: false,
    $id: 'ScenarioResult',
    description: 'Hourly generation and SAM Single Owner style financial statements of a scenario.',
  },
);

/** One operating year's hourly output (GET …/statements?year=N): what a chart of one year needs. */
export const HourlyYear = Closed(
  {
    scenario_id: Type.String({ format: 'uuid' }),
    year: Type.Integer({ minimum: 1, maximum: YEARS, description: 'Operating year (1 = start_year).' }),
    calendar_year: Type.Integer({ description: 'start_year + year − 1.' }),
    hours_per_year: Type.Literal(HOURS_PER_YEAR),
    ...YEAR_HOURLY,
  },
  "One operating year's hourly delivered energy.",
);

export type HourlyYear = Static<typeof HourlyYear>;
export type AnnualEnergy = Static<typeof AnnualEnergy>;
export type RevenueLines = Static<typeof RevenueLines>;
export type TaxCredits = Static<typeof TaxCredits>;
export type IncomeStatementYear = Static<typeof IncomeStatementYear>;
export type CashFlowYear = Static<typeof CashFlowYear>;
export type RevenueBreakdown = Static<typeof RevenueBreakdown>;
export type Kpis = Static<typeof Kpis>;
export type ScenarioResult = Static<typeof ScenarioResult>;
export type WindRose = Static<typeof WindRose>;
