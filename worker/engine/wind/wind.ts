// SAM's wind power model for one turbine type, scaled to the farm: power-law shear to
// hub height, a power curve at sea-level density corrected to the hour's air density,
// linear interpolation, zero outside the curve, and one total loss factor. Wakes: without a
// layout (or with wake_model "constant") the `wake` loss is a flat percentage, SAM's "constant"
// wake loss (wake_int_loss, wake model 3 in SSC); with a layout and wake_model "simple" or "park"
// the farm's output comes from the wake model of `wind.wake.ts`, from each step's direction.
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import type { WeatherYear, WindSteps } from '../../../shared/weather/types.ts';
import { curveKw, type FarmWake, farmWakeKwSteps, prepareWake, type TurbineCurve, thrustBound } from './wind.wake.ts';

/** Specific gas constant of dry air, J/(kg·K), SSC's (lib_physics.h). */
export const R_DRY_AIR = 287.058;
/** Sea-level standard air density the power curves are given at, kg/m³: 1 atm at 15 °C, as SSC. */
export const RHO_SEA_LEVEL = 101325 / (R_DRY_AIR * 288.15);

/** Breakpoints to build the built-in curve with: 0.25 m/s as in SAM's turbine library. */
const GENERIC_STEP = 0.25;
const GENERIC_CUT_IN = 3;
const GENERIC_CUT_OUT = 25;
const GENERIC_LAST = 30;
/** A good modern rotor's peak power coefficient (the Betz limit is 0.593). */
const GENERIC_CP = 0.45;

export interface WindModel {
  /** Curve breakpoints sorted by speed: effective (sea-level-equivalent) speed, m/s, and kW. */
  readonly speeds: Float64Array;
  readonly powersKw: Float64Array;
  /** A given curve's highest point, else the generic turbine's rated_kw. */
  readonly ratedKw: number;
  /** capacity_mw / rated power (fractional when the capacity is not a multiple of the rating), or the layout's length. */
  readonly turbines: number;
  /** Farm kW → MWh in one hour of the scenario's capacity, losses included. */
  readonly toMwh: number;
  readonly rotorDiameterM: number;
  /** The wake model of a laid-out farm; null for the flat wake percentage. */
  readonly wake: FarmWake | null;
  readonly hubHeightM: number;
  readonly shearExponent: number;
  /** 1 − total losses. */
  readonly keptFraction: number;
  /** Segment j, on effective speed u: one turbine's kW = intercept[j] + slope[j]·u. */
  readonly intercept: Float64Array;
  readonly slope: Float64Array;
  /** For each lookup cell [c·step, (c+1)·step): the last segment that starts at or below the cell's start. */
  readonly cellSegment: Int32Array;
  readonly cellsPerMs: number;
}

/**
 * The built-in curve when no power_curve is given: ½·ρ₀·A·Cp·v³ with a constant Cp of 0.45,
 * capped at the rating, from cut-in 3 m/s to cut-out 25 m/s. A constant Cp overstates output
 * just below rated (real rotors lose Cp there), so this is a slightly optimistic generic turbine,
 * but it needs nothing beyond the rotor diameter and the rating the user gave.
 */
export function genericPowerCurve(ratedKw: number, rotorDiameterM: number): Array<[number, number]> {
  const area = (Math.PI / 4) * rotorDiameterM * rotorDiameterM;
  const curve: Array<[number, number]> = [];
  const n = Math.round(GENERIC_LAST / GENERIC_STEP);
  for (let i = 0; i <= n; i++) {
    const v = i * GENERIC_STEP;
    const on = v >= GENERIC_CUT_IN && v <= GENERIC_CUT_OUT;
    const kw = on ? Math.min(ratedKw, (0.5 * RHO_SEA_LEVEL * area * GENERIC_CP * v * v * v) / 1000) : 0;
    curve.push([v, kw]);
  }
  return curve;
}

/** A wake model in place of the flat `wake` loss: simple or park, with a layout. */
export function modelsWakes(wind: ResolvedInputs['wind']): boolean {
  return wind.layout !== undefined && wind.wake_model !== 'constant';
}

/**
 * Total loss fraction: categories compound (1 − Π(1 − l)), else the single percentage. With a
 * wake model the `wake` category is left out: the model computes the wakes.
 */
export function windLossFraction(wind: ResolvedInputs['wind']): number {
  if (!wind.losses_breakdown) return wind.losses_percent / 100;
  let kept = 1;
  for (const [name, loss] of Object.entries(wind.losses_breakdown)) {
    if (name === 'wake' && modelsWakes(wind)) continue;
    kept *= 1 - loss / 100;
  }
  return 1 - kept;
}

/** The shear exponent from the measured wind to the hub (an SRW file has its own: see srw.hub.ts). */
function shearOf(inputs: ResolvedInputs): number {
  const w = inputs.weather;
  if (w.source === 'synthetic') return w.climate.shear_exponent;
  if (w.source === 'years') return w.years[0].shear_exponent;
  return w.shear_exponent;
}

export function prepareWind(inputs: ResolvedInputs): WindModel | null {
  const { wind } = inputs;
  if (!(wind.capacity_mw > 0)) return null;
  const t = wind.turbine;
  const given = t.power_curve;
  // The validator rejects unsorted curves; sorting a copy here only keeps a bad curve from
  // producing nonsense (or looping) if one ever gets through.
  const pts = (given ?? genericPowerCurve(t.rated_kw, t.rotor_diameter_m))
    .map(([v, kw]) => [v, kw] as [number, number])
    .sort((p, q) => p[0] - q[0]);
  const n = pts.length;
  const speeds = new Float64Array(n);
  const powersKw = new Float64Array(n);
  let ratedKw = 0;
  for (let i = 0; i < n; i++) {
    speeds[i] = pts[i][0];
    powersKw[i] = pts[i][1];
    if (powersKw[i] > ratedKw) ratedKw = powersKw[i];
  }
  if (!given) ratedKw = t.rated_kw;
  const layoutCount = wind.layout?.x_m.length;
  const turbines = layoutCount ?? (ratedKw > 0 ? (wind.capacity_mw * 1000) / ratedKw : 0);
  const keptFraction = 1 - windLossFraction(wind);
  // Farm kW → MWh in one hour for the scenario's capacity: a layout's farm is scaled to it.
  const farmMw = layoutCount === undefined ? wind.capacity_mw : (layoutCount * ratedKw) / 1000;
  const toMwh = farmMw > 0 ? (keptFraction / 1000) * (wind.capacity_mw / farmMw) : 0;

  const segments = Math.max(1, n - 1);
  const intercept = new Float64Array(segments);
  const slope = new Float64Array(segments);
  for (let j = 0; j < n - 1; j++) {
    const dv = speeds[j + 1] - speeds[j];
    const b = dv > 0 ? (powersKw[j + 1] - powersKw[j]) / dv : 0;
    slope[j] = b;
    intercept[j] = powersKw[j] - b * speeds[j];
  }

  // Cells fine enough that a cell rarely holds a breakpoint, so the hourly loop almost never
  // steps more than once; capped so a curve reaching 100 m/s stays a few kB.
  const last = n > 0 ? Math.max(0, speeds[n - 1]) : 0;
  const cellsPerMs = Math.min(64, 8192 / Math.max(last, 1));
  const cells = Math.ceil(last * cellsPerMs) + 1;
  const cellSegment = new Int32Array(cells);
  let j = 0;
  for (let c = 0; c < cells; c++) {
    const start = c / cellsPerMs;
    while (j + 1 < n - 1 && speeds[j + 1] <= start) j++;
    cellSegment[c] = j;
  }
  const model = {
    speeds,
    powersKw,
    ratedKw,
    turbines,
    toMwh,
    rotorDiameterM: t.rotor_diameter_m,
    wake: null as FarmWake | null,
    hubHeightM: t.hub_height_m,
    shearExponent: shearOf(inputs),
    keptFraction,
    intercept,
    slope,
    cellSegment,
    cellsPerMs,
  };
  // The wake's thrust bound reads the curve: the model is its table.
  if (modelsWakes(wind) && wind.layout) {
    const bound = thrustBound(model, t.rotor_diameter_m, RHO_SEA_LEVEL);
    model.wake = prepareWake(wind.layout, t.rotor_diameter_m, wind, bound);
  }
  return model;
}

/** One turbine's kW at the sea-level-equivalent speed u: the curve, linear between points, 0 outside. */
export function turbineKw(model: WindModel, u: number): number {
  return curveKw(model, u);
}

/** ρ/ρ₀ at a pressure (Pa) and temperature (°C). */
const densityRatio = (pressurePa: number, tempC: number) => pressurePa / (R_DRY_AIR * (tempC + 273.15) * RHO_SEA_LEVEL);

/**
 * Farm output for each hour of one weather year, MWh, before yearly degradation.
 *
 * Density correction follows IEC 61400-12-1: the sea-level curve is read at the
 * sea-level-equivalent speed v·(ρ/ρ₀)^(1/3), i.e. the curve's speeds are stretched by
 * (ρ₀/ρ)^(1/3) so thin air needs more wind for the same power. SSC's turbinePower
 * (lib_windwakemodel) scales the curve's speeds the same way, by (ρ₀/ρ)^(1/3).
 */
export function windYear(model: WindModel, weather: WeatherYear, outMwh: Float64Array): void {
  const shear = (model.hubHeightM / weather.windHeightM) ** model.shearExponent;
  const { windMs, tempC, pressureMbar } = weather;
  const farm = model.turbines * model.toMwh;
  const hours = outMwh.length;
  for (let h = 0; h < hours; h++) {
    const u = windMs[h] * shear * Math.cbrt(densityRatio(pressureMbar[h] * 100, tempC[h]));
    outMwh[h] = turbineKw(model, u) * farm;
  }
}

/**
 * Farm output for each hour from the wind at hub height (a wind resource file): each step's
 * power, with the wake model of a laid-out farm from the step's direction, averaged over the
 * hour's steps, as SSC's cmod_windpower averages sub-hourly output. `moreYears`: whether other
 * years of the resource follow with this model (the wake's geometries are then kept for them).
 */
export function windStepsYear(model: WindModel, steps: WindSteps, outMwh: Float64Array, moreYears = false): void {
  const { stepsPerHour, speedMs, tempC, pressurePa, directionDeg } = steps;
  const wake = model.wake;
  if (wake && !directionDeg) throw new Error('a wake model needs the wind direction');
  const perStep = model.toMwh / stepsPerHour;
  const hours = outMwh.length;
  const count = hours * stepsPerHour;
  // Each step's farm kW, then summed by hour in step order.
  const u = new Float64Array(count);
  for (let s = 0; s < count; s++) u[s] = speedMs[s] * Math.cbrt(densityRatio(pressurePa[s], tempC[s]));
  const kwOf = new Float64Array(count);
  if (wake) {
    const curve: TurbineCurve = { table: model, rhoSeaLevel: RHO_SEA_LEVEL };
    farmWakeKwSteps(curve, wake, u, (directionDeg as Float64Array).subarray(0, count), kwOf, moreYears);
  } else {
    for (let s = 0; s < count; s++) kwOf[s] = turbineKw(model, u[s]) * model.turbines;
  }
  for (let h = 0; h < hours; h++) {
    let kw = 0;
    for (let s = h * stepsPerHour; s < (h + 1) * stepsPerHour; s++) kw += kwOf[s];
    outMwh[h] = kw * perStep;
  }
}
