// Our battery (`storage`) as SSC's `battery` module takes it: front of the meter, AC-coupled, the
// automated dispatch on the PPA price with perfect foresight. SSC models the cells too (a voltage
// curve, a resistance, a thermal mass); those parameters are SAM's defaults for its generic Li-ion
// (NMC) battery, as SSC's own PVWatts + Wind + Battery hybrid test case sets them
// (test/input_json/hybrids/"PVWatts Wind Battery Hybrid_Single Owner.json"), scaled to our size.
// Pure: no I/O.
import type { ResolvedInputs } from '../shared/schemas/inputs.ts';
import { FLAT_TOD, type SscTable } from './peer.ssc.inputs.ts';

/** SAM's generic NMC cell: voltages (V), capacities (Ah), C-rate of the curve, resistance (Ω). */
const CELL = { Vnom_default: 3.6, Vfull: 4.1, Vexp: 4.05, Vnom: 3.4, Qfull: 2.25, Qexp: 0.04, Qnom: 2.0, C_rate: 0.2 };
const CELLS_IN_SERIES = 139;
/** SAM's defaults: 70 Wh/kg, 0.075 m²/kWh, and its capacity-vs-temperature table (°C, %). */
const WH_PER_KG = 70;
const M2_PER_KWH = 0.075;
const CAP_VS_TEMP = [
  [-20, 72.3333],
  [-10, 81.8],
  [0, 88.8],
  [10, 93],
  [23, 96.6667],
  [45, 101],
  [60, 101],
];
const matrix = (rows: number[][]) => ({ matrix: rows });

/** The battery's SSC variables; null without a battery. */
export function mapBattery(inputs: ResolvedInputs): SscTable | null {
  const st = inputs.storage;
  if (!st || !(st.power_mw > 0)) return null;
  if (st.degradation.cycle || st.degradation.calendar) throw new Error('not mappable onto SSC: battery fade tables');
  if (st.dispatch.strategy !== 'arbitrage' || st.dispatch.max_cycles_per_day !== null)
    throw new Error('not mappable onto SSC: a dispatch other than unconstrained arbitrage');
  if (st.standing_loss_percent_per_day > 0) throw new Error('not mappable onto SSC: a standing loss');
  // Our round trip is √RTE in and √RTE out, AC to AC; SSC's is its two conversions times the cells'
  // own losses, so SSC's round trip comes out a little lower (bench/README.md gives both).
  const eta = Math.sqrt(st.round_trip_efficiency_percent / 100);
  const kwh = st.energy_mwh * 1000;
  const kwAc = st.power_mw * 1000;
  const stringKwh = (CELLS_IN_SERIES * CELL.Vnom_default * CELL.Qfull) / 1000;
  const strings = Math.round(kwh / stringKwh);
  const bankKwh = strings * stringKwh;
  const bankVolts = CELLS_IN_SERIES * CELL.Vnom_default;
  const dischargeKwDc = kwAc / eta;
  const chargeKwDc = kwAc * eta;
  const limit = inputs.grid.export_limit_mw;
  const table: SscTable = {
    en_batt: 1,
    en_standalone_batt: 0,
    batt_chem: 1,
    batt_meter_position: 1,
    batt_ac_or_dc: 1,
    batt_ac_dc_efficiency: eta * 100,
    batt_dc_ac_efficiency: eta * 100,
    batt_dc_dc_efficiency: 100,
    batt_inverter_efficiency_cutoff: 0,
    ...Object.fromEntries(Object.entries(CELL).map(([k, v]) => [`batt_${k}`, v])),
    batt_Vcut: 0,
    batt_resistance: 0.002,
    batt_voltage_choice: 0,
    batt_computed_series: CELLS_IN_SERIES,
    batt_computed_strings: strings,
    batt_computed_bank_capacity: bankKwh,
    // Read for every chemistry though only flow and lead-acid batteries use them (SAM's values).
    batt_Qfull_flow: CELL.Qfull * strings,
    LeadAcid_q20_computed: CELL.Qfull * strings,
    LeadAcid_q10_computed: CELL.Qfull * strings * 0.93,
    LeadAcid_qn_computed: CELL.Qfull * strings * 0.6,
    LeadAcid_tn: 1,
    batt_current_choice: 1,
    batt_power_charge_max_kwdc: chargeKwDc,
    batt_power_discharge_max_kwdc: dischargeKwDc,
    batt_power_charge_max_kwac: kwAc,
    batt_power_discharge_max_kwac: kwAc,
    batt_current_charge_max: (chargeKwDc * 1000) / bankVolts,
    batt_current_discharge_max: (dischargeKwDc * 1000) / bankVolts,
    batt_initial_SOC: st.initial_soc_percent,
    batt_minimum_SOC: st.soc_min_percent,
    batt_maximum_SOC: st.soc_max_percent,
    batt_minimum_modetime: 0,
    batt_loss_choice: 0,
    batt_losses: [0],
    batt_losses_charging: new Array(12).fill(0),
    batt_losses_discharging: new Array(12).fill(0),
    batt_losses_idle: new Array(12).fill(0),
    // No fade, as ours without fade tables: a cycle table at 100 % and no calendar model.
    batt_life_model: 0,
    batt_calendar_choice: 0,
    // Read though unused without the calendar model (SAM's values).
    batt_calendar_q0: 1.02,
    batt_calendar_a: 0.00266,
    batt_calendar_b: -7280,
    batt_calendar_c: 939,
    batt_replacement_option: st.replacement.at_capacity_percent === null ? 0 : 1,
    batt_replacement_capacity: st.replacement.at_capacity_percent ?? 0,
    batt_replacement_schedule_percent: [0],
    om_replacement_cost1: [st.costs.replacement_per_kwh],
    om_batt_replacement_cost: [st.costs.replacement_per_kwh],
    om_batt_variable_cost: [0],
    om_batt_capacity_cost: [0],
    om_batt_fixed_cost: [0],
    om_batt_nameplate: bankKwh,
    om_replacement_cost_escal: 0,
    batt_mass: (bankKwh * 1000) / WH_PER_KG,
    batt_surface_area: bankKwh * M2_PER_KWH,
    batt_Cp: 1500,
    batt_h_to_ambient: 100,
    batt_room_temperature_celsius: [25],
    // Front-of-meter automated dispatch on the PPA price: ours sees 48 hours and commits 24.
    batt_dispatch_choice: 0,
    batt_dispatch_auto_can_charge: 1,
    batt_dispatch_auto_can_clipcharge: 0,
    batt_dispatch_auto_can_curtailcharge: 1,
    batt_dispatch_auto_can_gridcharge: st.charge_from_grid ? 1 : 0,
    batt_dispatch_auto_can_fuelcellcharge: 0,
    batt_dispatch_wf_forecast_choice: 0,
    batt_pv_clipping_forecast: [0],
    batt_pv_ac_forecast: [0],
    batt_custom_dispatch: [0],
    batt_look_ahead_hours: 48,
    batt_dispatch_update_frequency_hours: 24,
    // No cycle cost in the dispatch: ours has none but variable O&M (0 here).
    batt_cycle_cost_choice: 1,
    batt_cycle_cost: [st.costs.variable_om_per_mwh / 1000],
    enable_interconnection_limit: limit === undefined ? 0 : 1,
    grid_interconnection_limit_kwac: limit === undefined ? 1e9 : limit * 1000,
  };
  return {
    ...table,
    batt_lifetime_matrix: matrix([
      [50, 0, 100],
      [100, 0, 100],
      [100, 1e7, 100],
    ]),
    cap_vs_temp: matrix(CAP_VS_TEMP),
    batt_voltage_matrix: matrix([[0, 0]]),
    batt_calendar_lifetime_matrix: matrix([
      [0, 100],
      [3650, 100],
    ]),
    ...FLAT_TOD,
  };
}
