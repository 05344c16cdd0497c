// Our solar plant as SSC's PVWatts takes it: pvwattsv5 or pvwattsv8 (by `solar.model`), in SSC's
// lifetime mode (the module repeats the year over the analysis period, degrading the DC) or in
// SAM's default single-year mode (one year; the degradation is then Single Owner's, see
// peer.ssc.inputs.ts). Pure; refuses by name what SSC's PVWatts cannot say.
import { YEARS } from '../shared/calendar.ts';
import type { ResolvedInputs } from '../shared/schemas/inputs.ts';
import { refuse, type SscMode, type SscTable } from './peer.ssc.table.ts';

/** PVWatts' array types in SSC's numbering (Fixed OR, Fixed Roof, 1Axis, Backtracked, 2Axis). */
const ARRAY_TYPE = {
  fixed_open_rack: 0,
  fixed_roof_mount: 1,
  single_axis: 2,
  single_axis_backtracking: 3,
  two_axis: 4,
} as const;
const MODULE_TYPE = { standard: 0, premium: 1, thin_film: 2 } as const;
/** SSC's pvwattsv8 takes no height for its bifacial model: it assumes 1 m, our default. */
export const SSC_V8_CLEARANCE_M = 1;

export type PvwattsModule = 'pvwattsv5' | 'pvwattsv8';
export interface SscSolar {
  module: PvwattsModule;
  table: SscTable;
}

/** pvwattsv8's albedo inputs for ours: the weather file's, one value or twelve (default: the site's). */
function albedo(inputs: ResolvedInputs): SscTable {
  const a = inputs.solar.albedo ?? inputs.site.albedo;
  if (a === 'weather_file') return { use_wf_albedo: 1, albedo_default: 0.2, albedo_default_snow: 0.6 };
  return { use_wf_albedo: 0, albedo: typeof a === 'number' ? [a] : a };
}

function v8Only(inputs: ResolvedInputs): SscTable {
  const s = inputs.solar;
  if (s.bifaciality > 0 && s.ground_clearance_m !== SSC_V8_CLEARANCE_M)
    refuse(`solar.ground_clearance_m ${s.ground_clearance_m} (SSC's pvwattsv8 assumes ${SSC_V8_CLEARANCE_M} m)`);
  return { bifaciality: s.bifaciality, en_snowloss: s.snow_model ? 1 : 0, ...albedo(inputs) };
}

export function mapPvwatts(inputs: ResolvedInputs, solarFile: string, mode: SscMode): SscSolar | null {
  const s = inputs.solar;
  if (!(s.capacity_mw_dc > 0)) return null;
  if (inputs.weather.source !== 'sam_csv') return refuse('weather other than one SAM CSV file');
  if (s.profile) return refuse('a supplied solar profile');
  const module: PvwattsModule = s.model === 'pvwatts_v8' ? 'pvwattsv8' : 'pvwattsv5';
  const lifetime: SscTable =
    mode === 'lifetime'
      ? { system_use_lifetime_output: 1, analysis_period: YEARS, dc_degradation: [s.degradation_percent_per_year] }
      : { system_use_lifetime_output: 0 };
  return {
    module,
    table: {
      solar_resource_file: solarFile,
      ...lifetime,
      system_capacity: s.capacity_mw_dc * 1000,
      module_type: MODULE_TYPE[s.module_type],
      dc_ac_ratio: s.dc_ac_ratio,
      inv_eff: s.inverter_efficiency_percent,
      losses: s.losses_percent,
      array_type: ARRAY_TYPE[s.array_type],
      tilt: s.tilt_deg,
      azimuth: s.azimuth_deg,
      gcr: s.gcr,
      ...(module === 'pvwattsv8' ? v8Only(inputs) : {}),
      adjust_constant: 0,
    },
  };
}
