// The solar plant, PVWatts v5 (Dobos 2014, NREL/TP-6A20-62641): sun position, Perez
// transposition, cover reflection, Fuentes cell temperature, linear DC power, system
// losses, and PVWatts' inverter curve clipped at the AC rating.
//
// Everything that depends only on the sun and the array (geometry, angles of incidence,
// tracker rotations, cover transmittance, Perez's sun terms) is computed once in
// `prepareSolar`; `solarYear` is then one allocation-free pass over the year's weather.
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import type { WeatherYear } from '../../../shared/weather/types.ts';
import { coverTransmittanceCurve, type PerezSunTerms, perezSkyDiffuse, perezSunTerms } from './solar.irradiance.ts';
import { HOURS_PER_YEAR, type HourlySunGeometry, hourlySunGeometry, type SunSite } from './solar.position.ts';
import { groundDerate, SkyDerates, shadeFraction1x } from './solar.selfshade.ts';
import {
  type FuentesModel,
  type FuentesState,
  fuentesModel,
  fuentesStep,
  INOCT_OPEN_RACK_C,
  INOCT_ROOF_MOUNT_C,
  initialFuentesState,
  moduleWindFactor,
} from './solar.temperature.ts';
import { type ArrayType, type SurfaceGeometry, surfaceGeometry } from './solar.tracking.ts';

export type ModuleType = ResolvedInputs['solar']['module_type'];

/** PVWatts v5's module types: temperature coefficient of power (1/°C) and cover. */
export const MODULE_TYPES: Readonly<Record<ModuleType, { gamma: number; antiReflective: boolean }>> = {
  standard: { gamma: -0.0047, antiReflective: false },
  premium: { gamma: -0.0035, antiReflective: true },
  thin_film: { gamma: -0.002, antiReflective: false },
};

/** Efficiency at which PVWatts' part-load curve peaks at 1. */
const INVERTER_REFERENCE_EFFICIENCY = 0.9637;
const T_REF_C = 25;

/** The PV system in plain numbers; the sun geometry of its site's `year` is used for every year. */
export interface SolarSystem extends SunSite {
  albedo: number;
  /** DC nameplate in any power unit; outputs are energy per hour in the same unit × h. */
  capacityDc: number;
  dcAcRatio: number;
  moduleType: ModuleType;
  arrayType: ArrayType;
  tiltDeg: number;
  azimuthDeg: number;
  gcr: number;
  /** Total system losses, %: applied to DC. */
  lossesPercent: number;
  inverterEfficiencyPercent: number;
}

export interface SolarModel {
  system: Readonly<SolarSystem>;
  sun: HourlySunGeometry;
  surface: SurfaceGeometry;
  perez: PerezSunTerms;
  /** Beam on the modules per unit DNI after the cover: max(cos AOI, 0) × transmittance; 0 with the sun below the horizon. */
  beamTransmitted: Float64Array;
  /** Beam on the modules per unit DNI: max(cos AOI, 0); 0 with the sun below the horizon. */
  beamIncident: Float64Array;
  thermal: FuentesModel;
  /** Single-axis without backtracking: the unshaded share of the beam each hour (1 − shade fraction). */
  beamUnshaded: Float64Array | null;
  gamma: number;
  /** capacityDc × (1 − losses) / 1000: DC per W/m² of transmitted irradiance at 25 °C. */
  dcPerIrradiance: number;
  acRating: number;
  /** DC input at which the inverter delivers its rating at nominal efficiency. */
  inverterDcRating: number;
  /** η_nominal / η_reference of the part-load curve. */
  inverterScale: number;
}

/** The inputs prepareSolar reads (a ResolvedInputs is one). */
export type SolarInputs = Pick<ResolvedInputs, 'site' | 'solar' | 'start_year'>;

/** The site and the start year, whose sun geometry both solar models use for every year. */
export function sunSite({ site, start_year }: Pick<ResolvedInputs, 'site' | 'start_year'>): SunSite {
  return {
    latitude: site.latitude,
    longitude: site.longitude,
    elevationM: site.elevation_m,
    timezoneHours: site.timezone_offset_hours,
    year: start_year,
  };
}

/** The system's total loss, %: a breakdown compounds, 1 − Π(1 − l/100); else losses_percent. */
export function solarLossesPercent(solar: SolarInputs['solar']): number {
  const breakdown = solar.losses_breakdown;
  if (!breakdown) return solar.losses_percent;
  let kept = 1;
  for (const loss of Object.values(breakdown)) kept *= 1 - loss / 100;
  return (1 - kept) * 100;
}

export function prepareSolar(inputs: SolarInputs): SolarModel | null {
  const { site, solar } = inputs;
  if (!(solar.capacity_mw_dc > 0)) return null;
  return prepareSolarSystem({
    ...sunSite(inputs),
    albedo: site.albedo,
    capacityDc: solar.capacity_mw_dc,
    dcAcRatio: solar.dc_ac_ratio,
    moduleType: solar.module_type,
    arrayType: solar.array_type,
    tiltDeg: solar.tilt_deg,
    azimuthDeg: solar.azimuth_deg,
    gcr: solar.gcr,
    lossesPercent: solarLossesPercent(solar),
    inverterEfficiencyPercent: solar.inverter_efficiency_percent,
  });
}

/**
 * The model of a system. `sun` defaults to the hourly geometry of `system.year`; any other
 * geometry (one instant, for solarTimestep) gives a model of as many steps as it has entries.
 */
export function prepareSolarSystem(
  system: SolarSystem,
  sun: HourlySunGeometry = hourlySunGeometry({
    latitude: system.latitude,
    longitude: system.longitude,
    elevationM: system.elevationM,
    timezoneHours: system.timezoneHours,
    year: system.year,
  }),
): SolarModel {
  const steps = sun.zenith.length;
  const surface = surfaceGeometry(sun, {
    arrayType: system.arrayType,
    tiltDeg: system.tiltDeg,
    azimuthDeg: system.azimuthDeg,
    gcr: system.gcr,
  });
  const module = MODULE_TYPES[system.moduleType];
  const beamIncident = new Float64Array(steps);
  const beamTransmitted = new Float64Array(steps);
  // The cover's transmittance varies slowly with the angle: a 0.1° table serves every hour.
  const curve = coverTransmittanceCurve(module.antiReflective, 10);
  for (let h = 0; h < steps; h++) {
    const c = surface.cosAoi[h];
    if (!sun.up[h] || sun.cosZenith[h] <= 0 || c <= 0) continue;
    const x = surface.aoiDeg[h] * 10;
    const i = Math.min(899, Math.floor(x));
    beamIncident[h] = c;
    beamTransmitted[h] = c * (curve[i] + (x - i) * (curve[i + 1] - curve[i]));
  }
  const acRating = system.capacityDc / system.dcAcRatio;
  const nominal = system.inverterEfficiencyPercent / 100;
  let beamUnshaded: Float64Array | null = null;
  if (system.arrayType === 'single_axis') {
    beamUnshaded = new Float64Array(steps).fill(1);
    for (let h = 0; h < steps; h++) {
      if (sun.up[h]) {
        beamUnshaded[h] = 1 - shadeFraction1x(system.gcr, surface.rotationDeg[h], surface.trueTrackingDeg[h]);
      }
    }
  }
  return {
    beamUnshaded,
    system: { ...system },
    sun,
    surface,
    perez: perezSunTerms(sun.zenith, sun.up),
    beamIncident,
    beamTransmitted,
    thermal: fuentesModel(system.arrayType === 'fixed_roof_mount' ? INOCT_ROOF_MOUNT_C : INOCT_OPEN_RACK_C),
    gamma: module.gamma,
    dcPerIrradiance: (system.capacityDc * (1 - system.lossesPercent / 100)) / 1000,
    acRating,
    inverterDcRating: acRating / nominal,
    inverterScale: nominal / INVERTER_REFERENCE_EFFICIENCY,
  };
}

/** One Float64Array series for each name. */
export type Series<Names extends readonly string[]> = Record<Names[number], Float64Array>;

/** A zeroed series of `steps` entries for each name. */
export function emptySeries<Names extends readonly string[]>(names: Names, steps: number): Series<Names> {
  const series = {} as Series<Names>;
  for (const name of names) series[name as Names[number]] = new Float64Array(steps);
  return series;
}

/**
 * Hourly intermediate results, for tests and diagnostics: plane-of-array irradiance before the
 * cover (poa) and transmitted through it (poaTransmitted), W/m²; the cell temperature, °C; DC after
 * system losses, capacity units.
 */
const SOLAR_DETAIL = ['poa', 'poaTransmitted', 'cellTempC', 'dc'] as const;
export type SolarDetail = Series<typeof SOLAR_DETAIL>;

/** Empty detail series for `steps` steps (a year's hours, or one instant). */
export function solarDetail(steps = HOURS_PER_YEAR): SolarDetail {
  return emptySeries(SOLAR_DETAIL, steps);
}

/** AC energy in each hour of a weather year, at plant scale, before yearly degradation. */
export function solarYear(model: SolarModel, weather: WeatherYear, outAc: Float64Array): void {
  runSteps(model, weather, outAc, null, initialFuentesState());
}

export function solarYearDetail(
  model: SolarModel,
  weather: WeatherYear,
  outAc: Float64Array,
  detail: SolarDetail,
): void {
  runSteps(model, weather, outAc, detail, initialFuentesState());
}

/** The weather series the solar chain reads: one value per step of the model. */
export type SolarStepWeather = Pick<WeatherYear, 'dni' | 'dhi' | 'tempC' | 'windMs' | 'windHeightM'>;

/**
 * Every step of a model (8,760 hours, or the instants of a model prepared with its own sun
 * geometry), the module's temperature carried on from `state`, which is left after the last step.
 */
export function solarSteps(
  model: SolarModel,
  weather: SolarStepWeather,
  state: FuentesState,
  outAc: Float64Array,
  detail: SolarDetail | null,
): void {
  runSteps(model, weather, outAc, detail, state);
}

/** PVWatts' inverter: part-load efficiency curve, clipped at the AC rating. */
export function inverterAc(model: SolarModel, dc: number): number {
  if (dc <= 0) return 0;
  const load = dc / model.inverterDcRating;
  const efficiency = model.inverterScale * (-0.0162 * load - 0.0059 / load + 0.9858);
  return Math.max(0, Math.min(model.acRating, dc * efficiency));
}

function runSteps(
  model: SolarModel,
  weather: SolarStepWeather,
  outAc: Float64Array,
  detail: SolarDetail | null,
  state: FuentesState,
): void {
  const { sun, surface, perez, thermal } = model;
  const { dni, dhi, tempC, windMs } = weather;
  const albedo = model.system.albedo;
  const windFactor = moduleWindFactor(weather.windHeightM);
  const steps = model.beamIncident.length;
  // SSC's table starts with the array's own tilt (0 for a horizontal axis).
  const skyDerates = model.beamUnshaded ? new SkyDerates(model.system.gcr, model.system.tiltDeg) : null;
  for (let h = 0; h < steps; h++) {
    if (!sun.up[h]) {
      fuentesStep(thermal, state, 0, tempC[h], 0);
      outAc[h] = 0;
      if (detail) {
        detail.poa[h] = 0;
        detail.poaTransmitted[h] = 0;
        detail.cellTempC[h] = tempC[h];
        detail.dc[h] = 0;
      }
      continue;
    }
    const beamNormal = Math.max(dni[h], 0);
    const diffuse = Math.max(dhi[h], 0);
    const cosZ = sun.cosZenith[h];
    // PVWatts reads beam and diffuse; the global that the ground reflects follows from them.
    const ghi = (cosZ > 0 ? beamNormal * cosZ : 0) + diffuse;
    const sky = perezSkyDiffuse(
      diffuse,
      beamNormal,
      perez.kappaZ3[h],
      perez.zenithRad[h],
      perez.airMassOverI0[h],
      perez.invCosZClamped[h],
      surface.cosAoi[h],
      surface.skyView[h],
      surface.sinTilt[h],
    );
    const ground = ghi * albedo * surface.groundView[h];
    let poa: number;
    let transmitted: number;
    if (model.beamUnshaded && skyDerates) {
      // Self-shaded trackers (PVWatts v5): the beam on the shaded part of each row is lost; the
      // sky and ground are seen less between rows; the cover's loss is of the unshaded beam.
      let skySeen = sky;
      let groundSeen = ground;
      if (sky > 0 && sky + ground >= 0.1) {
        const fSky = Math.min(1, skyDerates.lookup(surface.tiltDeg[h]));
        const fGround = groundDerate(surface.tiltDeg[h], sun.zenith[h], beamNormal, diffuse, model.system.gcr, albedo);
        if (fSky >= 0 && fSky <= 1) skySeen *= fSky;
        if (fGround >= 0 && fGround <= 1) groundSeen *= fGround;
      }
      poa = beamNormal * model.beamIncident[h] * model.beamUnshaded[h] + skySeen + groundSeen;
      const coverLoss = beamNormal * (model.beamIncident[h] - model.beamTransmitted[h]);
      transmitted = Math.max(0, Math.min(poa, poa - coverLoss));
    } else {
      poa = beamNormal * model.beamIncident[h] + sky + ground;
      transmitted = beamNormal * model.beamTransmitted[h] + sky + ground;
    }
    const cellC = fuentesStep(thermal, state, poa, tempC[h], windMs[h] * windFactor);
    let dc = model.dcPerIrradiance * transmitted * (1 + model.gamma * (cellC - T_REF_C));
    if (dc < 0) dc = 0;
    outAc[h] = inverterAc(model, dc);
    if (detail) {
      detail.poa[h] = poa;
      detail.poaTransmitted[h] = transmitted;
      detail.cellTempC[h] = cellC;
      detail.dc[h] = dc;
    }
  }
}
