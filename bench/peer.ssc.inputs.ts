// A Hourglass scenario as SSC's compute modules take it: pvwattsv5 or pvwattsv8 (peer.ssc.pvwatts.ts),
// windpower, battery (front-of-meter, automated dispatch), grid and singleowner, each a table of SSC
// variables, in lifetime mode or SAM's default single-year mode, and the driver script
// (bench/peer.ssc.driver.c) that runs them in turn on one data table, as SSC's own `hybrid` module
// chains them. Pure: no I/O; the weather files are given as paths.
//
// Only what both models can say is mapped; anything else is refused by name (mapScenario throws),
// so a comparison is never silently of two different projects. Where SAM has no input for one of
// ours, its nearest equivalent is used and the difference is named in bench/README.md.
import { HOURS_PER_YEAR, YEARS } from '../shared/calendar.ts';
import type { ResolvedInputs } from '../shared/schemas/inputs.ts';
import { mapPvwatts, type SscSolar } from './peer.ssc.pvwatts.ts';
import { refuse, type SscMode, type SscTable } from './peer.ssc.table.ts';

export type { SscMode, SscTable, SscValue } from './peer.ssc.table.ts';

export interface SscCase {
  mode: SscMode;
  solar: SscSolar | null;
  windpower: SscTable | null;
  /** Degradation of the wind farm's year-1 output, %/yr, applied as SSC's hybrid module does. */
  windDegradationPercent: number;
  /** Of the solar's year-1 output, %/yr: in single-year mode Single Owner applies both (runScript). */
  solarDegradationPercent: number;
  battery: SscTable | null;
  grid: SscTable;
  singleowner: SscTable;
}

/** Where the scenario's resource files are on disk (SSC reads files, not text). */
export interface ResourceFiles {
  solar: string;
  wind: string;
}

/** SSC's wind_farm_wake_model: 0 simple (Pennsylvania), 1 park (WAsP), 3 constant. */
const WAKE_MODEL = { simple: 0, park: 1, constant: 3 } as const;

const months = (value: number) => Array.from({ length: 12 }, () => Array.from({ length: 24 }, () => value));

/** The PPA's time-of-delivery schedule Single Owner and the dispatch read: one period, factor 1. */
export const FLAT_TOD: SscTable = {
  dispatch_tod_factors: [1, 1, 1, 1, 1, 1, 1, 1, 1],
  dispatch_sched_weekday: { matrix: months(1) },
  dispatch_sched_weekend: { matrix: months(1) },
};

/**
 * Each year's energy price, $/kWh: our PPA share at its escalating price and the merchant rest at
 * its own. With flat hourly prices this is exactly our revenue per MWh, as one yearly schedule
 * (SSC's ppa_price_input with an entry per year takes no escalation).
 */
export function blendedPricesPerKwh(market: ResolvedInputs['market'], years = YEARS): number[] {
  if (market.ppa_price_per_mwh === 'solve') return refuse('a PPA price to be solved for');
  if (market.merchant_hourly_prices || market.merchant_hour_of_day_multipliers || market.ppa_month_hour_multipliers)
    return refuse('hourly price shapes (SAM prices one schedule of time-of-delivery factors)');
  const ppa = market.ppa_price_per_mwh;
  return Array.from({ length: years }, (_, i) => {
    const ppaPrice = ppa * (1 + market.ppa_escalation_percent / 100) ** i;
    const merchant = market.merchant_price_per_mwh * (1 + market.merchant_escalation_percent / 100) ** i;
    return (market.ppa_share * ppaPrice + (1 - market.ppa_share) * merchant) / 1000;
  });
}

function windpower(inputs: ResolvedInputs, files: ResourceFiles): SscTable | null {
  const w = inputs.wind;
  if (!(w.capacity_mw > 0)) return null;
  if (inputs.wind_resource?.source !== 'srw') return refuse('wind without one SRW file');
  if (!w.layout) return refuse('a wind farm without a layout');
  if (w.profile) return refuse('a supplied wind profile');
  const curve = w.turbine.power_curve ?? refuse('a turbine without a power curve');
  return {
    wind_resource_filename: files.wind,
    wind_resource_model_choice: 0,
    wind_resource_shear: inputs.wind_resource.shear_exponent,
    // As a fraction, though SSC labels it %: its simple wake model uses the number as it is, and its
    // own wake tests (which ours reproduce, docs/resource.md) give 0.1. Given 10, the wakes vanish.
    wind_resource_turbulence_coeff: w.turbulence_intensity,
    system_capacity: w.capacity_mw * 1000,
    wind_turbine_rotor_diameter: w.turbine.rotor_diameter_m,
    wind_turbine_hub_ht: w.turbine.hub_height_m,
    wind_turbine_powercurve_windspeeds: curve.map((p) => p[0]),
    wind_turbine_powercurve_powerout: curve.map((p) => p[1]),
    wind_farm_wake_model: WAKE_MODEL[w.wake_model],
    wind_farm_xCoordinates: w.layout.x_m,
    wind_farm_yCoordinates: w.layout.y_m,
    // Our losses are one total (the resolver folds a breakdown into it); SSC compounds its
    // categories the same way, so the total goes into one of them.
    turb_generic_loss: w.losses_percent,
    ...(w.wake_model === 'constant' ? { wake_int_loss: 0 } : {}),
    adjust_constant: 0,
  };
}

/** Capital cost of each part, in the scenario's money. */
export function capex(inputs: ResolvedInputs): { solar: number; wind: number; storage: number; other: number } {
  const c = inputs.finance.capex;
  const st = inputs.storage;
  const storage =
    st && st.power_mw > 0
      ? st.power_mw * 1000 * st.costs.capex_per_kw + st.energy_mwh * 1000 * st.costs.capex_per_kwh
      : 0;
  return {
    solar: inputs.solar.capacity_mw_dc * 1000 * c.solar_per_kw_dc,
    wind: inputs.wind.capacity_mw * 1000 * c.wind_per_kw,
    storage,
    other: c.other,
  };
}

/** Year-1 fixed O&M of the plant and battery, $/yr (SAM's om_fixed; escalated as ours). */
export function fixedOm(inputs: ResolvedInputs): number {
  const o = inputs.finance.opex;
  const st = inputs.storage;
  const battery = st && st.power_mw > 0 ? st.power_mw * 1000 * st.costs.fixed_om_per_kw_year : 0;
  return (
    inputs.solar.capacity_mw_dc * 1000 * o.solar_fixed_per_kw_year +
    inputs.wind.capacity_mw * 1000 * o.wind_fixed_per_kw_year +
    o.land_lease_per_year +
    battery
  );
}

function finance(inputs: ResolvedInputs, mode: SscMode): SscTable {
  const f = inputs.finance;
  if (f.depreciation.allocation || f.depreciation.method !== 'macrs_5')
    refuse('depreciation other than MACRS 5-year on the whole basis');
  if (f.debt.sizing !== 'fraction') refuse('debt sized by DSCR (mapped only as a fraction of capex)');
  const credits = f.tax_credits;
  if (credits.solar.itc_percent || credits.wind.itc_percent || credits.storage.itc_percent)
    refuse('ITCs (SAM takes one ITC on the whole basis)');
  if (credits.solar.ptc_per_mwh || credits.wind.ptc_per_mwh) refuse('PTCs');
  if (f.reserves.equipment.solar_per_kw_dc || f.reserves.equipment.wind_per_kw) refuse('equipment reserves');
  const c = capex(inputs);
  return {
    analysis_period: YEARS,
    system_use_lifetime_output: mode === 'lifetime' ? 1 : 0,
    system_capacity: inputs.solar.capacity_mw_dc * 1000 + inputs.wind.capacity_mw * 1000,
    ppa_soln_mode: 1,
    ppa_price_input: blendedPricesPerKwh(inputs.market),
    ppa_escalation: 0,
    ppa_multiplier_model: 0,
    ...FLAT_TOD,
    total_installed_cost: c.solar + c.wind + c.storage + c.other,
    construction_financing_cost: 0,
    // No capacity payments (they are SAM's, not ours).
    cp_capacity_payment_type: 0,
    cp_capacity_payment_amount: [0],
    cp_capacity_payment_esc: 0,
    cp_capacity_credit_percent: [0],
    cp_system_nameplate: inputs.solar.capacity_mw_dc + inputs.wind.capacity_mw,
    cp_battery_nameplate: 0,
    om_fixed: [fixedOm(inputs)],
    om_fixed_escal: f.om_escalation_percent,
    om_production: [f.opex.variable_per_mwh],
    om_production_escal: f.om_escalation_percent,
    om_capacity: [0],
    om_capacity_escal: 0,
    insurance_rate: f.opex.insurance_percent_of_capex,
    property_tax_rate: f.opex.property_tax_percent,
    prop_tax_cost_assessed_percent: f.opex.property_tax_assessed_percent,
    prop_tax_assessed_decline: f.opex.property_tax_decline_percent,
    inflation_rate: f.inflation_percent,
    real_discount_rate: f.discount_rate_real_percent,
    federal_tax_rate: [f.tax_rate_percent],
    state_tax_rate: [f.state_tax_rate_percent],
    depr_alloc_macrs_5_percent: 100,
    depr_alloc_macrs_15_percent: 0,
    depr_alloc_sl_5_percent: 0,
    depr_alloc_sl_15_percent: 0,
    depr_alloc_sl_20_percent: 0,
    depr_alloc_sl_39_percent: 0,
    depr_alloc_custom_percent: 0,
    depr_custom_schedule: [0],
    depr_bonus_fed: f.depreciation.bonus_percent,
    depr_bonus_sta: f.depreciation.bonus_percent,
    debt_option: 0,
    debt_percent: f.debt.fraction * 100,
    payment_option: 0,
    term_int_rate: f.debt.interest_rate_percent,
    term_tenor: f.debt.tenor_years,
    cost_debt_fee: f.debt.fee_percent,
    cost_debt_closing: 0,
    cost_other_financing: 0,
    dscr: f.debt.target_dscr,
    dscr_reserve_months: f.debt.reserve_months,
    months_working_reserve: f.reserves.working_capital_months,
    reserves_interest: f.reserves.interest_percent,
    equip1_reserve_cost: 0,
    equip2_reserve_cost: 0,
    equip3_reserve_cost: 0,
    salvage_percentage: f.salvage_percent,
    // Lifetime mode: the generation is already degraded, year by year. Single-year mode: the
    // driver's `degradation` line (runScript) replaces this with the hybrid's own schedule.
    degradation: [0],
  };
}

function grid(inputs: ResolvedInputs, mode: SscMode): SscTable {
  const limit = inputs.grid.export_limit_mw;
  return {
    ...(mode === 'lifetime'
      ? { system_use_lifetime_output: 1, analysis_period: YEARS }
      : { system_use_lifetime_output: 0 }),
    enable_interconnection_limit: limit === undefined ? 0 : 1,
    grid_interconnection_limit_kwac: limit === undefined ? 1e9 : limit * 1000,
    // SAM's "no curtailment" schedule (MW each hour); without it the grid module curtails everything.
    grid_curtailment: new Array(HOURS_PER_YEAR).fill(1e38),
  };
}

/** The whole scenario as SSC's modules take it; throws (naming the input) where SAM cannot say it. */
export function mapScenario(
  inputs: ResolvedInputs,
  files: ResourceFiles,
  battery: SscTable | null = null,
  mode: SscMode = 'lifetime',
): SscCase {
  if (inputs.load) refuse("a buyer's load");
  return {
    mode,
    solar: mapPvwatts(inputs, files.solar, mode),
    windpower: windpower(inputs, files),
    windDegradationPercent: inputs.wind.degradation_percent_per_year,
    solarDegradationPercent: inputs.solar.degradation_percent_per_year,
    battery,
    grid: grid(inputs, mode),
    singleowner: finance(inputs, mode),
  };
}

/** A table as driver commands (bench/peer.ssc.driver.c). */
export function setLines(table: SscTable): string[] {
  return Object.entries(table).map(([name, v]) => {
    if (typeof v === 'number') return `num ${name} ${v}`;
    if (typeof v === 'string') return `str ${name} ${v}`;
    if ('matrix' in v) return `mat ${name} ${v.matrix.length} ${v.matrix[0]?.length ?? 0} ${v.matrix.flat().join(' ')}`;
    return `arr ${name} ${v.join(' ')}`;
  });
}

/** What the script asks back at its end, in the driver's answer names. */
export const OUTPUTS = {
  solarYear1Kwh: 'annual_energy_solar',
  windYear1Kwh: 'annual_energy_wind',
  equityNpv: 'project_return_aftertax_npv',
  equityIrrPercent: 'project_return_aftertax_irr',
  lcoeNominalCentsPerKwh: 'lcoe_nom',
  debt: 'size_of_debt',
} as const;

/**
 * The driver script of one run: the generators, their generation added up (lifetime mode: wind's
 * year 1 repeated with its degradation, as SSC's hybrid module does; single-year mode: year 1 of
 * each, and Single Owner's degradation schedule from their year-1 energies), the battery, the grid
 * limit and Single Owner; then the outputs OUTPUTS names, the year-1 delivered energy (sum of gen)
 * and, with a battery, its year-1 discharge and charge.
 */
export function runScript(c: SscCase): string[] {
  const lines = ['data'];
  const parts: string[] = [];
  if (c.solar) {
    lines.push(
      ...setLines(c.solar.table),
      `exec ${c.solar.module}`,
      'rename gen gen_solar',
      'rename annual_energy annual_energy_solar',
    );
    parts.push('gen_solar');
  } else lines.push('num annual_energy_solar 0');
  if (c.windpower) {
    lines.push(
      ...setLines(c.windpower),
      'exec windpower',
      c.mode === 'lifetime' ? `lifetime gen_wind gen ${YEARS} ${c.windDegradationPercent}` : 'rename gen gen_wind',
      'rename annual_energy annual_energy_wind',
    );
    parts.push('gen_wind');
  } else lines.push('num annual_energy_wind 0');
  if (parts.length === 0) refuse('a scenario with neither solar nor wind');
  if (parts.length === 2) lines.push('add gen gen_solar gen_wind');
  else lines.push(`rename ${parts[0]} gen`);
  // Single Owner's inputs first: the battery's dispatch reads the PPA price from them.
  lines.push(...setLines(c.singleowner));
  if (c.mode === 'single_year')
    lines.push(
      `degradation degradation ${YEARS} annual_energy_solar ${c.solarDegradationPercent} annual_energy_wind ${c.windDegradationPercent}`,
    );
  // The battery's year-1 energy is read before Single Owner, which may prepend a year 0 to it.
  if (c.battery)
    lines.push(
      ...setLines(c.battery),
      'exec battery',
      'sum batt_annual_discharge_energy 0 1',
      'sum batt_annual_charge_energy 0 1',
    );
  lines.push(...setLines(c.grid), 'exec grid', 'exec singleowner');
  lines.push(...Object.values(OUTPUTS).map((name) => `get ${name}`), `sum gen 0 ${HOURS_PER_YEAR}`);
  lines.push('end');
  return lines;
}
