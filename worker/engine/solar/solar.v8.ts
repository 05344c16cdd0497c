// The solar plant, PVWatts v8 (NREL SSC `cmod_pvwattsv8`, SSC 2025.4.16, commit e97a19f8e; what
// SAM and NREL's PVWatts calculator use since 2022), written from its published models. Against
// v5 (solar.ts) it changes the module (a CEC single-diode model instead of a linear temperature
// coefficient; every type behind anti-reflective glass), the cover (De Soto's modifiers for the
// beam and for sky and ground diffuse), the spectrum (an air-mass modifier), the cell temperature
// (the NOCT model instead of Fuentes'), the inverter (Sandia's, with a self-consumption), and
// the rows' self-shading (fixed racks and backtracking trackers too, on a layout estimated from
// the system's size). It adds bifacial modules (the rear side's view factors, solar.bifacial.ts),
// the ground's albedo by month or from the weather file, and snow cover (solar.snow.ts).
//
// The sun, the surface's orientation and the Perez sky are v5's (solar-position.ts,
// solar.tracking.ts, solar.irradiance.ts): SSC computes them with the same code in both models.
import { MONTH_OF_HOUR } from '../../../shared/calendar.ts';
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import { hourlyFileMinute } from '../../../shared/weather/samcsv.ts';
import type { WeatherYear } from '../../../shared/weather/types.ts';
import { type BifacialModel, prepareBifacial, rearIrradiance } from './solar.bifacial.ts';
import { HOURS_PER_YEAR, type HourlySunGeometry, hourlySunGeometry } from './solar.position.ts';
import { type GroundTerms, groundDerateOf, groundTerms, SkyDerates, shadeFraction1x } from './solar.selfshade.ts';
import { SnowCover } from './solar.snow.ts';
import { type SurfaceGeometry, surfaceGeometry } from './solar.tracking.ts';
import { emptySeries, type Series, solarLossesPercent, sunSite } from './solar.ts';
import { fixedRowShade, v8Layout } from './solar.v8.layout.ts';
import {
  airMassModifier,
  coverBeamFromCurve,
  coverDiffuseModifiers,
  inverterSelfConsumptionShare,
  NOCT_OPEN_RACK_C,
  NOCT_ROOF_MOUNT_C,
  noctCellTemp,
  type PowerTable,
  powerTable,
  tablePower,
  V8_MODULES,
} from './solar.v8.module.ts';
import { type PerezSky, type PerezSun, perezSky, perezSun, type SkyParts, skyParts } from './solar.v8.perez.ts';

type SolarInputs = Pick<ResolvedInputs, 'site' | 'solar' | 'start_year' | 'weather'>;
export type AlbedoChoice = number | number[] | 'weather_file';

/**
 * SSC reads a weather file with a Minute column as instantaneous values at that minute of each hour
 * (NSRDB PSM3: :30): so does v8, when every file of the scenario is such an hourly SAM CSV file.
 */
function instantaneous(inputs: SolarInputs): { instantMinute?: number } {
  const w = inputs.weather;
  const files = w.source === 'sam_csv' ? [w] : w.source === 'years' ? w.years : [];
  if (files.length === 0 || files.some((f) => f.source !== 'sam_csv')) return {};
  const minutes = new Set(files.map((f) => hourlyFileMinute(f.text)));
  const [minute] = minutes;
  return minutes.size === 1 && minute !== null && minute !== undefined ? { instantMinute: minute } : {};
}

/** SSC's albedo where the chosen one is not valid: on snow (with the snow model on) and without. */
export const ALBEDO_DEFAULT = 0.2;
export const ALBEDO_DEFAULT_SNOW = 0.6;

/** SPA's sunrise and sunset (the upper limb, standard refraction), which SSC's irradiance processor takes. */
const SPA_SUNRISE_DEG = -0.8333;

export interface SolarV8Model {
  readonly kind: 'pvwatts_v8';
  sun: HourlySunGeometry;
  /** The Perez sky's terms of the sun alone, each step (the same in every weather year). */
  perezSun: PerezSun;
  surface: SurfaceGeometry;
  /** cos of the modules' tilt, each hour. */
  cosTilt: Float64Array;
  /** Beam on the modules per unit DNI after the rows' beam shading: max(cos AOI, 0) × unshaded share. */
  beamOnModules: Float64Array;
  /** The cover's modifiers: the beam's by hour, the sky's and ground's by hour (trackers turn). */
  coverBeam: Float64Array;
  coverSky: Float64Array;
  coverGround: Float64Array;
  /** The spectral modifier of each hour. */
  spectral: Float64Array;
  /** Sky and ground seen between rows (fixed racks and single-axis trackers); null otherwise. */
  skyDerates: SkyDerates | null;
  /** groundDerate's geometric terms each hour (groundTerms), with skyDerates; null without. */
  ground: GroundTermSeries | null;
  rows: number;
  gcr: number;
  table: PowerTable;
  /** DC (capacity units) per W of one module's maximum power, after the system's losses. */
  dcPerModuleWatt: number;
  noctC: number;
  efficiencyRef: number;
  acRating: number;
  /** The inverter's self-consumption Pso and the slope of its line from there to the rating. */
  inverterPso: number;
  inverterSlope: number;
  albedo: AlbedoChoice;
  bifaciality: number;
  bifacial: BifacialModel | null;
  snow: { modulesUp: number } | null;
}

/** groundTerms of each step, as columns. */
export interface GroundTermSeries {
  cosZenith: Float64Array;
  openView: Float64Array;
  sunlitView: Float64Array;
  allView: Float64Array;
}

/** The ground's geometric terms of each step the sun is up: the same in every weather year. */
function groundTermSeries(sun: HourlySunGeometry, surface: SurfaceGeometry, gcr: number): GroundTermSeries {
  const steps = sun.zenith.length;
  const series = {
    cosZenith: new Float64Array(steps),
    openView: new Float64Array(steps),
    sunlitView: new Float64Array(steps),
    allView: new Float64Array(steps),
  };
  const t: GroundTerms = { cosZenith: 0, openView: 0, sunlitView: 0, allView: 0 };
  for (let h = 0; h < steps; h++) {
    if (!sun.up[h]) continue;
    groundTerms(surface.tiltDeg[h], sun.zenith[h], gcr, t);
    series.cosZenith[h] = t.cosZenith;
    series.openView[h] = t.openView;
    series.sunlitView[h] = t.sunlitView;
    series.allView[h] = t.allView;
  }
  return series;
}

/**
 * The model of one solar plant. `layoutCapacityKw`: the plant's real DC size, which sets the
 * layout PVWatts v8 assumes (rows, their length); the output is in units of capacity_mw_dc.
 * `sun` defaults to the hourly geometry of the start year; any other geometry (one instant) gives
 * a model of as many steps as it has entries.
 */
export function prepareSolarV8(
  inputs: SolarInputs,
  layoutCapacityKw: number,
  sun: HourlySunGeometry = hourlySunGeometry({
    ...sunSite(inputs),
    horizonDeg: SPA_SUNRISE_DEG,
    ...instantaneous(inputs),
  }),
): SolarV8Model {
  const { site, solar } = inputs;
  const arrayType = solar.array_type;
  const surface = surfaceGeometry(sun, {
    arrayType,
    tiltDeg: solar.tilt_deg,
    azimuthDeg: solar.azimuth_deg,
    gcr: solar.gcr,
  });
  const moduleType = V8_MODULES[solar.module_type];
  const layout = v8Layout(layoutCapacityKw * 1000, moduleType.efficiency, arrayType, solar.gcr);
  const steps = sun.zenith.length;
  const beamOnModules = new Float64Array(steps);
  const coverBeam = new Float64Array(steps);
  const coverSky = new Float64Array(steps);
  const coverGround = new Float64Array(steps);
  const spectral = new Float64Array(steps);
  const fixedDiffuse = coverDiffuseModifiers(solar.tilt_deg);
  const tracking = arrayType !== 'fixed_open_rack' && arrayType !== 'fixed_roof_mount';
  for (let h = 0; h < steps; h++) {
    if (!sun.up[h]) continue;
    const c = surface.cosAoi[h];
    let unshaded = 1;
    if (arrayType === 'single_axis') {
      unshaded = 1 - shadeFraction1x(solar.gcr, surface.rotationDeg[h], surface.trueTrackingDeg[h]);
    } else if (arrayType === 'fixed_open_rack') {
      unshaded = 1 - fixedRowShade(layout, solar.tilt_deg, solar.azimuth_deg, sun.zenith[h], sun.azimuth[h]);
    }
    beamOnModules[h] = sun.cosZenith[h] > 0 && c > 0 ? c * unshaded : 0;
    coverBeam[h] = coverBeamFromCurve(surface.aoiDeg[h]);
    const diffuse = tracking ? coverDiffuseModifiers(surface.tiltDeg[h]) : fixedDiffuse;
    coverSky[h] = diffuse.sky;
    coverGround[h] = diffuse.ground;
    spectral[h] = airMassModifier(sun.zenith[h], site.elevation_m);
  }
  // cos(tilt) = 2·skyView − 1 (a loop: TypedArray map with a closure is slow).
  const cosTilt = new Float64Array(steps);
  for (let h = 0; h < steps; h++) cosTilt[h] = 2 * surface.skyView[h] - 1;
  const selfShaded =
    arrayType === 'fixed_open_rack' || arrayType === 'single_axis' || arrayType === 'single_axis_backtracking';
  const capacity = solar.capacity_mw_dc;
  const acRating = capacity / solar.dc_ac_ratio;
  const pso = inverterSelfConsumptionShare(layoutCapacityKw * 1000) * acRating;
  const pdco = acRating / (solar.inverter_efficiency_percent / 100);
  const cec = moduleType.cec;
  const bifaciality = solar.bifaciality;
  return {
    kind: 'pvwatts_v8',
    sun,
    perezSun: perezSun(sun.zenith, sun.up),
    surface,
    cosTilt,
    beamOnModules,
    coverBeam,
    coverSky,
    coverGround,
    spectral,
    skyDerates: selfShaded ? new SkyDerates(solar.gcr, solar.tilt_deg, steps) : null,
    ground: selfShaded ? groundTermSeries(sun, surface, solar.gcr) : null,
    rows: layout.rows,
    gcr: solar.gcr,
    table: powerTable(solar.module_type),
    dcPerModuleWatt: (capacity * (1 - solarLossesPercent(solar) / 100)) / (cec.vmp * cec.imp),
    noctC: arrayType === 'fixed_roof_mount' ? NOCT_ROOF_MOUNT_C : NOCT_OPEN_RACK_C,
    efficiencyRef: (cec.vmp * cec.imp) / (1000 * cec.area),
    acRating,
    inverterPso: pso,
    inverterSlope: acRating / (pdco - pso),
    albedo: solar.albedo ?? site.albedo,
    bifaciality,
    bifacial:
      bifaciality > 0
        ? prepareBifacial(sun, surface, {
            tracking: arrayType === 'single_axis' || arrayType === 'single_axis_backtracking',
            gcr: solar.gcr,
            slopeLengthM: layout.lengthM * layout.modulesUp,
            clearanceM: solar.ground_clearance_m,
          })
        : null,
    snow: solar.snow_model ? { modulesUp: layout.modulesUp } : null,
  };
}

/** The ground's albedo in each hour, as SSC chooses it (the file's or the input's, else its defaults). */
export function hourlyAlbedo(model: SolarV8Model, weather: WeatherYear, out: Float64Array): Float64Array {
  const choice = model.albedo;
  const fromFile = choice === 'weather_file' ? (weather.albedo ?? null) : null;
  const snow = model.snow ? (weather.snowDepthCm ?? null) : null;
  for (let h = 0; h < out.length; h++) {
    let a = 0;
    if (choice === 'weather_file') a = fromFile ? fromFile[h] : 0;
    else if (typeof choice === 'number') a = choice;
    else a = choice[MONTH_OF_HOUR[h]];
    if (!(a > 0 && a < 1)) {
      const depth = snow ? snow[h] : Number.NaN;
      a = depth > 0.5 && depth < 999 ? ALBEDO_DEFAULT_SNOW : ALBEDO_DEFAULT;
    }
    out[h] = a;
  }
  return out;
}

/**
 * Hourly intermediate results of v8, for tests and diagnostics: the ground's albedo; the front
 * plane-of-array irradiance after the rows' shading (poaFront) and the rear irradiance counted
 * (poaRear: × bifaciality, after the rows' sky derate), W/m²; the cell temperature, °C; the snow's
 * DC derate, % (snowDeratePercent, SSC's dcsnowderate); DC.
 */
const SOLAR_V8_DETAIL = ['albedo', 'poaFront', 'poaRear', 'cellTempC', 'snowDeratePercent', 'dc'] as const;
export type SolarV8Detail = Series<typeof SOLAR_V8_DETAIL>;

export function solarV8Detail(steps = HOURS_PER_YEAR): SolarV8Detail {
  return emptySeries(SOLAR_V8_DETAIL, steps);
}

/** AC energy in each hour of a weather year (capacity units × h), before yearly degradation. */
export function solarV8Year(
  model: SolarV8Model,
  weather: WeatherYear,
  outAc: Float64Array,
  detail: SolarV8Detail | null = null,
): void {
  const { sun, surface } = model;
  const sky0: PerezSky = { mode: 0, f1: 0, f2: 0, invZh: 0 };
  const parts: SkyParts = { isotropic: 0, circumsolar: 0, horizon: 0 };
  const { dni, dhi, tempC, windMs } = weather;
  const steps = model.beamOnModules.length;
  const albedo = hourlyAlbedo(model, weather, detail ? detail.albedo : new Float64Array(steps));
  const snow = model.snow ? new SnowCover(model.snow.modulesUp, weather.snowDepthCm ?? null) : null;
  for (let h = 0; h < steps; h++) {
    outAc[h] = 0;
    if (detail) detail.cellTempC[h] = tempC[h];
    if (!sun.up[h]) continue;
    const beamNormal = Math.max(dni[h], 0);
    const diffuse = Math.max(dhi[h], 0);
    const alb = albedo[h];
    const perez = perezSky(model.perezSun, h, beamNormal, dhi[h], sky0);
    skyParts(perez, dhi[h], surface.cosAoi[h], model.cosTilt[h], surface.sinTilt[h], parts);
    let sky = parts.isotropic + parts.circumsolar + parts.horizon;
    let ground = perez.mode === 2 ? (beamNormal * sun.cosZenith[h] + diffuse) * alb * surface.groundView[h] : 0;
    const beam = beamNormal * model.beamOnModules[h];
    let rear = 0;
    if (model.bifacial) {
      const cosZ = sun.cosZenith[h];
      const beamH = cosZ > 0 ? beamNormal * cosZ : 0;
      const cosBack = model.bifacial.backCos[h];
      const beamBack = cosBack > 0 ? beamNormal * cosBack : 0;
      if (perez.mode === 2) {
        const circ = diffuse * perez.f1 * perez.invZh;
        rear = rearIrradiance(
          model.bifacial,
          h,
          diffuse * (1 - perez.f1),
          diffuse * perez.f2,
          beamH + circ * Math.max(cosZ, 0),
          beamBack + circ * Math.max(cosBack, 0),
          alb,
        );
      } else {
        rear = rearIrradiance(model.bifacial, h, perez.mode === 1 ? diffuse : 0, 0, beamH, beamBack, alb);
      }
    }
    const rearTotal = rear;
    rear *= model.bifaciality;
    if (model.skyDerates && model.ground && sky + ground >= 0.1) {
      const fSky = Math.min(1, model.skyDerates.lookupStep(h, surface.tiltDeg[h]));
      const g = model.ground;
      const fGround = groundDerateOf(
        g.cosZenith[h],
        g.openView[h],
        g.sunlitView[h],
        g.allView[h],
        dni[h],
        dhi[h],
        alb,
        model.rows,
      );
      if (fSky >= -0.00001 && fSky <= 1.00001) {
        sky *= fSky;
        rear *= fSky;
      }
      if (fGround >= -0.00001 && fGround <= 1.00001) ground *= fGround;
    }
    const front = beam + sky + ground;
    const poa = front + rear;
    let snowFactor = 1;
    if (snow) {
      let loss = snow.step(h, front + rearTotal, surface.tiltDeg[h], tempC[h]);
      if (poa !== 0) loss *= front / poa;
      snowFactor = 1 - loss;
    }
    const frontEffective =
      (beam * model.coverBeam[h] + sky * model.coverSky[h] + ground * model.coverGround[h]) * model.spectral[h];
    const cellC =
      frontEffective > 0 ? noctCellTemp(frontEffective, tempC[h], windMs[h], model.noctC, model.efficiencyRef) : 0;
    const geff = frontEffective + rear * model.spectral[h];
    const dc = tablePower(model.table, geff, cellC) * model.dcPerModuleWatt * snowFactor;
    let ac = 0;
    if (dc > model.inverterPso) ac = Math.min(model.acRating, model.inverterSlope * (dc - model.inverterPso));
    outAc[h] = ac > 0 ? ac : 0;
    if (detail) {
      detail.poaFront[h] = front;
      detail.poaRear[h] = rear;
      detail.cellTempC[h] = cellC;
      detail.snowDeratePercent[h] = (1 - snowFactor) * 100;
      detail.dc[h] = dc;
    }
  }
}
