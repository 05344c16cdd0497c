// The KPI registry: every key figure a scenario reports, defined once. Plain data, so the viewer's
// bundle can import it too. From it come the `Kpis` schema (shared/schemas/result.ts: the engine's
// result, a scenario's summary, the OpenAPI document with each KPI's `x-better`), the sweep
// results' sort keys and CSV columns, an optimization's objectives and constraints, and the
// viewer's cards and columns. A new KPI: one entry here, then compute it in the engine.

/** How a value is shown: percent is a fraction shown as %, points a figure already in %. */
type KpiFormat = 'money' | 'percent' | 'points' | 'ratio' | 'energy' | 'price' | 'year';

export interface KpiDefinition {
  /** Short label for a card or a column. */
  readonly label: string;
  readonly description: string;
  readonly format: KpiFormat;
  /** Which way is better; null where neither is (a battery's cycles). */
  readonly better: 'higher' | 'lower' | null;
  /**
   * always: a number in every result; nullable: a number or null; optional: present only when
   * the scenario has what it measures (a battery, a load).
   */
  readonly presence: 'always' | 'nullable' | 'optional';
  /** A whole project year (0–25) rather than any number. */
  readonly year?: true;
  /** Shown as a card on a scenario's page, and as a column of a sweep's table. */
  readonly card?: true;
  readonly column?: true;
}

export const KPIS = {
  project_npv: {
    label: 'Project NPV',
    description:
      'NPV at the nominal discount rate of the unlevered after-tax project cash flow: −installed cost, then EBITDA − tax rate × (EBITDA − depreciation).',
    format: 'money',
    better: 'higher',
    presence: 'always',
  },
  equity_npv: {
    label: 'Equity NPV',
    description: 'NPV at the nominal discount rate of equity_cash_flow, years 0–25.',
    format: 'money',
    better: 'higher',
    presence: 'always',
    card: true,
    column: true,
  },
  project_irr: {
    label: 'Project IRR (unlevered)',
    description:
      "IRR of the unlevered after-tax project cash flow, as a fraction (0.08 = 8 %). Null if none. SAM's headline after-tax IRR is the equity one (equity_irr).",
    format: 'percent',
    better: 'higher',
    presence: 'nullable',
    card: true,
    column: true,
  },
  equity_irr: {
    label: 'Equity IRR (after tax)',
    description: 'IRR of equity_cash_flow, as a fraction. Null if none.',
    format: 'percent',
    better: 'higher',
    presence: 'nullable',
    card: true,
    column: true,
  },
  lcoe_nominal: {
    label: 'LCOE nominal / MWh',
    description:
      'Nominal LCOE per MWh: (installed cost + NPV of O&M at the nominal rate) / NPV of delivered energy at the nominal rate. Null without energy.',
    format: 'price',
    better: 'lower',
    presence: 'nullable',
    card: true,
    column: true,
  },
  lcoe_real: {
    label: 'LCOE real / MWh',
    description:
      'Real LCOE per MWh (start-year money): the same costs / NPV of delivered energy at the real rate. Null without energy.',
    format: 'price',
    better: 'lower',
    presence: 'nullable',
    card: true,
    column: true,
  },
  min_dscr: {
    label: 'Min DSCR',
    description: 'Lowest DSCR over the years with debt service. Null without debt.',
    format: 'ratio',
    better: 'higher',
    presence: 'nullable',
    card: true,
    column: true,
  },
  average_dscr: {
    label: 'Average DSCR',
    description: 'Mean DSCR over the years with debt service. Null without debt.',
    format: 'ratio',
    better: 'higher',
    presence: 'nullable',
  },
  payback_year: {
    label: 'Payback year',
    description: 'First project year (0–25) in which cumulative_equity_cash_flow ≥ 0. Null if never.',
    format: 'year',
    better: 'lower',
    presence: 'nullable',
    year: true,
  },
  energy_p50_mwh: {
    label: 'P50 energy (MWh/yr)',
    description: 'Mean of the 25 annual delivered energies, MWh (normal: P50 = mean).',
    format: 'energy',
    better: 'higher',
    presence: 'always',
    card: true,
    column: true,
  },
  energy_p90_mwh: {
    label: 'P90 energy, 1 yr (MWh)',
    description:
      'One-year P90: P50 − 1.2816 × √(σ_interannual² + σ_model²), MWh; σ_model from `uncertainty`; σ_interannual from the simulated years (synthetic weather), the spread of the real years (weather.years, wind_resource.years), or `uncertainty` for one measured year. See docs/methodology.md (P50 and P90) and docs/resource.md.',
    format: 'energy',
    better: 'higher',
    presence: 'always',
    card: true,
    column: true,
  },
  energy_p90_10y_mwh: {
    label: 'P90 energy, 10 yr (MWh)',
    description: '10-year-average P90: P50 − 1.2816 × √((σ_interannual / √10)² + σ_model²), MWh.',
    format: 'energy',
    better: 'higher',
    presence: 'always',
    card: true,
  },
  solved_ppa_price_per_mwh: {
    label: 'Solved PPA price / MWh',
    description:
      'The year-1 PPA price solved for finance.target_equity_irr_percent (market.ppa_price_per_mwh = "solve"). Null otherwise.',
    format: 'price',
    better: 'lower',
    presence: 'nullable',
    card: true,
  },
  storage_cycles_year1: {
    label: 'Battery cycles, year 1',
    description: 'Battery: equivalent full cycles in year 1. With a battery only.',
    format: 'ratio',
    better: null,
    presence: 'optional',
    card: true,
  },
  curtailment_percent: {
    label: 'Curtailment (% of output)',
    description:
      'Energy curtailed at the export limit (after what a battery stored), % of the solar and wind output before the limit, all years. In every result calculated since it was added (absent from older ones).',
    format: 'points',
    better: 'lower',
    presence: 'optional',
    card: true,
  },
  curtailment_recovered_mwh: {
    label: 'Curtailment recovered (MWh)',
    description: 'Energy the limit would curtail that the battery stored instead, all years, MWh. With a battery only.',
    format: 'energy',
    better: 'higher',
    presence: 'optional',
    card: true,
  },
  capacity_credit_percent: {
    label: 'Capacity credit (%)',
    description:
      "The capacity credit the capacity payment is made on, % of the accredited MW: given, or HOPP's top-hours rule on year 1 (docs/markets.md). With market.capacity only.",
    format: 'points',
    better: 'higher',
    presence: 'optional',
    card: true,
    column: true,
  },
  storage_revenue: {
    label: 'Battery revenue (all years)',
    description:
      "The battery's own contribution to revenue, all years: revenue with it − revenue of the same plant without it (its ancillary lines included). With a battery only.",
    format: 'money',
    better: 'higher',
    presence: 'optional',
    card: true,
  },
  ancillary_revenue: {
    label: 'Ancillary revenue (all years)',
    description:
      'The ancillary-service lines summed over all years: MW reserved × capacity price, plus the expected deployed energy at the merchant price. With ancillary products only.',
    format: 'money',
    better: 'higher',
    presence: 'optional',
    card: true,
    column: true,
  },
  hourly_match_percent: {
    label: 'Hourly match (% of load)',
    description:
      "Load served hour by hour, energy-weighted: Σ delivered ÷ Σ load, %, all years (HOPP's capacity_factor_load; the 24/7 score). Delivered each hour = min(load, plant + discharge − charge from the plant). With a load only.",
    format: 'points',
    better: 'higher',
    presence: 'optional',
    card: true,
    column: true,
  },
  annual_match_percent: {
    label: 'Annual match (% of load)',
    description:
      'min(100, Σ plant output ÷ Σ load), %, all years: the volume match, for contrast with the hourly one. With a load only.',
    format: 'points',
    better: 'higher',
    presence: 'optional',
    card: true,
  },
  cfe_percent: {
    label: 'Carbon-free energy (% of load)',
    description:
      "(Σ clean delivered + Σ grid clean share × unmet) ÷ Σ load, %, all years. Energy the battery charged from the grid is never clean; the battery's losses and discharge take from its clean and grid parts in proportion (docs/load.md). With a load only.",
    format: 'points',
    better: 'higher',
    presence: 'optional',
    card: true,
    column: true,
  },
  availability_year_percent: {
    label: 'Availability, worst year (%)',
    description:
      'Delivered ÷ load of the worst operating year, % (energy basis, each hour capped at its load). With a load only.',
    format: 'points',
    better: 'higher',
    presence: 'optional',
    card: true,
  },
  availability_worst_month_percent: {
    label: 'Availability, worst month (%)',
    description: 'Delivered ÷ load of the worst calendar month of any year, % (energy basis). With a load only.',
    format: 'points',
    better: 'higher',
    presence: 'optional',
    card: true,
  },
  availability_peak_percent: {
    label: 'Availability, peak block (%)',
    description: "Delivered ÷ load in the contract's peak hours of the worst year, % (energy basis). With a load only.",
    format: 'points',
    better: 'higher',
    presence: 'optional',
    card: true,
  },
  hours_load_met_percent: {
    label: 'Hours load met (%)',
    description:
      "Hours in which delivered ≥ 95 % of the load, % of all hours, all years (HOPP's time_load_met). With a load only.",
    format: 'points',
    better: 'higher',
    presence: 'optional',
  },
  unmet_mwh_year1: {
    label: 'Unmet load, year 1 (MWh)',
    description: "Load not delivered in year 1, MWh: the buyer's backup from the grid. With a load only.",
    format: 'energy',
    better: 'lower',
    presence: 'optional',
    card: true,
  },
  excess_mwh_year1: {
    label: 'Excess, year 1 (MWh)',
    description: 'Output above the load in year 1 (sold or curtailed), MWh. With a load only.',
    format: 'energy',
    better: null,
    presence: 'optional',
  },
  lcod_nominal: {
    label: 'LCOD nominal / MWh',
    description:
      'Levelised cost of the energy delivered to the load: the costs of LCOE (installed cost + NPV of the owner’s costs at the nominal rate) ÷ NPV of the MWh delivered to the load. With a load that is served only.',
    format: 'price',
    better: 'lower',
    presence: 'optional',
    card: true,
    column: true,
  },
  buyer_cost_per_mwh: {
    label: "Buyer's cost / MWh of load",
    description:
      'What the buyer pays per MWh of its load, levelised at the nominal rate: NPV of (contract payments + backup purchases at the backup price) ÷ NPV of the load. With a load only.',
    format: 'price',
    better: 'lower',
    presence: 'optional',
    card: true,
    column: true,
  },
  investor_irr: {
    label: 'Tax investor IRR',
    description:
      "A partnership flip: the tax investor's after-tax IRR over the analysis (its share of cash, taxes and credits). With finance.structure a flip only.",
    format: 'percent',
    better: 'higher',
    presence: 'optional',
    card: true,
    column: true,
  },
  investor_npv: {
    label: 'Tax investor NPV',
    description: "A partnership flip: NPV at the nominal discount rate of the tax investor's after-tax cash flow.",
    format: 'money',
    better: 'higher',
    presence: 'optional',
  },
  sponsor_npv: {
    label: 'Sponsor NPV',
    description:
      "A partnership flip: NPV at the nominal discount rate of the sponsor's after-tax cash flow (its equity, development fee and share).",
    format: 'money',
    better: 'higher',
    presence: 'optional',
    card: true,
    column: true,
  },
  sponsor_irr: {
    label: 'Sponsor IRR',
    description: "A partnership flip: the sponsor's after-tax IRR; absent where its flows have none.",
    format: 'percent',
    better: 'higher',
    presence: 'optional',
  },
  flip_year: {
    label: 'Flip year',
    description:
      'A partnership flip: the first year whose investor after-tax IRR (years 0 to it) reaches the flip target; absent when it never does.',
    format: 'year',
    better: 'lower',
    presence: 'optional',
    year: true,
    card: true,
    column: true,
  },
  binding_debt_case: {
    label: 'Binding debt case (P)',
    description:
      'With finance.debt.cases: the energy case (50, 90 or 99) that supports the least debt, and so sizes it.',
    format: 'points',
    better: null,
    presence: 'optional',
    column: true,
  },
} as const satisfies Record<string, KpiDefinition>;

/** Every KPI's name, in the registry's order (the order of a summary, a CSV's columns). */
export const KPI_NAMES: readonly string[] = Object.keys(KPIS);
