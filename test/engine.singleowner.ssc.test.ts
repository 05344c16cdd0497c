// SAM Single Owner reproduced: SSC's PVWatts + Single Owner test case (NREL/ssc
// test/input_json/FinancialModels/singleowner/2022.08.08_develop_branch_PVWatts_Single_Owner_*,
// commit e97a19f8e, SSC 2025.4.16; extracted in test/fixtures/reference/ssc_singleowner_pvwatts.json).
// Every input of the case is mapped onto ours, our finance stage is fed the same generation
// (year 1's energy, degraded 0.5 %/yr compounding as SAM does) and the headline outputs must match
// within 1 %. Each of 13 cash-flow lines is compared year by year too, so a difference is named
// by its line rather than hidden in a tolerance.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { financeModel } from '../worker/engine/finance/finance.ts';
import { resolvedInputs } from './fixtures/inputs.ts';

interface Fixture {
  inputs: Record<string, number | number[]>;
  outputs: Record<string, number>;
  cash_flow: Record<string, number[]>;
}
const fx: Fixture = JSON.parse(
  readFileSync(new URL('./fixtures/reference/ssc_singleowner_pvwatts.json', import.meta.url), 'utf8'),
);
const sam = fx.inputs;
const num = (k: string) => {
  const v = sam[k];
  return Array.isArray(v) ? v[0] : v;
};
const years = num('analysis_period');
const kw = num('system_capacity');

// The case's structure, mapped input by input (SAM name → ours).
const inputs = resolvedInputs({
  solar: { capacity_mw_dc: kw / 1000 },
  wind: { capacity_mw: 0 },
  finance: {
    capex: {
      solar_per_kw_dc: num('total_installed_cost') / kw,
      wind_per_kw: 0,
      // Construction financing is part of SAM's depreciable basis and the owner's cost, as `other` is ours.
      other: num('construction_financing_cost'),
    },
    opex: {
      solar_fixed_per_kw_year: num('om_capacity'),
      wind_fixed_per_kw_year: 0,
      variable_per_mwh: 0,
      insurance_percent_of_capex: num('insurance_rate'),
      property_tax_percent: num('property_tax_rate'),
      land_lease_per_year: num('om_land_lease'),
    },
    inflation_percent: num('inflation_rate'),
    om_escalation_percent: 0,
    tax_rate_percent: num('federal_tax_rate'),
    state_tax_rate_percent: num('state_tax_rate'),
    depreciation: {
      allocation: (['macrs_5', 'macrs_15', 'sl_5', 'sl_15', 'sl_20', 'sl_39'] as const).map((c) => ({
        class: c,
        percent: num(`depr_alloc_${c}_percent`),
      })),
      bonus_percent: num('depr_bonus_fed'),
    },
    debt: {
      sizing: num('debt_option') === 1 ? 'dscr' : 'fraction',
      target_dscr: num('dscr'),
      interest_rate_percent: num('term_int_rate'),
      tenor_years: num('term_tenor'),
      fee_percent: num('cost_debt_fee'),
      reserve_months: num('dscr_reserve_months'),
    },
    reserves: {
      interest_percent: num('reserves_interest'),
      working_capital_months: num('months_working_reserve'),
      // SAM's equip1_reserve_cost is $/W of nameplate (here the PV array's kW DC).
      equipment: { solar_per_kw_dc: num('equip1_reserve_cost') * 1000, every_years: num('equip1_reserve_freq') },
    },
    discount_rate_real_percent: num('real_discount_rate'),
    salvage_percent: num('salvage_percentage'),
    tax_credits: {
      solar: { itc_percent: num('itc_fed_percent'), ptc_per_mwh: num('ptc_fed_amount') * 1000 },
      ptc_years: num('ptc_fed_term'),
      ptc_escalation_percent: num('ptc_fed_escal'),
    },
  },
});

// The same generation: SAM's year-1 energy (kWh → MWh), degraded by compounding.
const year1Mwh = num('annual_energy_pre_curtailment_ac') / 1000;
const mwh = Array.from({ length: years }, (_, i) => year1Mwh * (1 - num('degradation') / 100) ** i);
const pricePerMwh = num('ppa_price_input') * 1000;
const revenue = mwh.map((e, i) => {
  const ppa = e * pricePerMwh * (1 + num('ppa_escalation') / 100) ** i;
  return { ppa_solar: ppa, ppa_wind: 0, merchant_solar: 0, merchant_wind: 0, total: ppa };
});
const r = financeModel(inputs, {
  revenue,
  deliveredMwh: mwh,
  solarMwh: mwh,
  windMwh: new Array(years).fill(0),
});

const rel = (ours: number, theirs: number) => (ours - theirs) / Math.abs(theirs);
const pct = (x: number) => `${(100 * x).toExponential(1)} %`;

t.test('headline outputs within 1 %', async (t) => {
  const o = fx.outputs;
  const rows: [string, number, number][] = [
    ['after-tax NPV ($)', r.kpis.equity_npv, o.project_return_aftertax_npv],
    ['after-tax equity IRR (%)', (r.kpis.equity_irr ?? Number.NaN) * 100, o.project_return_aftertax_irr],
    ['LCOE nominal (¢/kWh)', (r.kpis.lcoe_nominal ?? Number.NaN) / 10, o.lcoe_nom],
    ['LCOE real (¢/kWh)', (r.kpis.lcoe_real ?? Number.NaN) / 10, o.lcoe_real],
    ['debt ($)', r.cash_flow[0].debt_drawdown, o.size_of_debt],
    ['minimum DSCR', r.kpis.min_dscr ?? Number.NaN, o.min_dscr],
    ['debt fee ($)', r.cash_flow[0].debt_fee, o.cost_debt_upfront],
    ['equity at close ($)', -r.cash_flow[0].equity_cash_flow, o.issuance_of_equity],
  ];
  for (const [what, ours, theirs] of rows) {
    const d = rel(ours, theirs);
    t.ok(Math.abs(d) <= 0.01, `${what}: ours ${ours.toPrecision(8)}, SSC ${theirs.toPrecision(8)}, ${pct(d)}`);
  }
});

t.test('cash-flow lines, year by year', async (t) => {
  const cf = fx.cash_flow;
  const is = (y: number) => r.income_statement[y - 1];
  const c = (y: number) => r.cash_flow[y];
  // SAM's signs: taxes negative when paid; reserve balances at the end of the year.
  const lines: [string, (y: number) => number][] = [
    ['cf_energy_sales', (y) => mwh[y - 1] * 1000],
    ['cf_energy_value', (y) => is(y).revenue.total],
    ['cf_operating_expenses', (y) => is(y).operating_expenses.total],
    ['cf_ebitda', (y) => is(y).ebitda],
    ['cf_disbursement_equip1', (y) => -c(y).equipment_replacement],
    ['cf_reserve_interest', (y) => is(y).reserve_interest],
    ['cf_debt_payment_interest', (y) => c(y).interest],
    ['cf_debt_payment_principal', (y) => c(y).principal],
    ['cf_feddepr_total', (y) => is(y).depreciation],
    ['cf_statax', (y) => -is(y).state_income_tax],
    ['cf_fedtax', (y) => -is(y).federal_income_tax],
    ['cf_ptc_fed', (y) => is(y).tax_credits.ptc_solar],
    ['cf_project_return_aftertax', (y) => c(y).equity_cash_flow],
  ];
  for (const [name, ours] of lines) {
    let worst = 0;
    let at = 0;
    for (let y = 1; y <= years; y++) {
      const theirs = cf[name][y];
      const d = Math.abs(ours(y) - theirs) / Math.max(1, Math.abs(theirs));
      if (d > worst) {
        worst = d;
        at = y;
      }
    }
    t.ok(worst <= 1e-6, `${name}: largest difference ${pct(worst)} (year ${at})`);
  }
});
