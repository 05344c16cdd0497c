// Row-to-row self-shading of single-axis trackers that do not backtrack, as PVWatts v5 models it
// (NREL SSC, ssc/cmod_pvwattsv5.cpp `powerout`, with `shadeFraction1x` from shared/lib_irradproc.cpp
// and `diffuse_reduce` and the sky-diffuse table from shared/lib_pvshade.cpp; SSC 2025.4.16,
// commit e97a19f8e). Written here from those equations; only the flat ground (no cross-axis slope)
// that PVWatts assumes.
//
// - Beam: the shaded share of a row's width, from the ground coverage ratio, the tracker's
//   (clamped) rotation and the angle true tracking would have taken.
// - Sky diffuse: the share of the sky dome a module still sees between the rows, averaged over its
//   width, as a function of its tilt (a table by whole degree, as SSC keeps it).
// - Ground-reflected: the view of the sunlit and the shaded ground between rows of 1,000.
import { DEG } from '../angles.ts';

const tand = (x: number) => Math.tan(x * DEG);
const sind = (x: number) => Math.sin(x * DEG);
const cosd = (x: number) => Math.cos(x * DEG);
/** PVWatts' array of 1,000 rows, in the ground-reflected reduction. */
const ROWS = 1000;

/** The shaded fraction (0..1) of a row's width: rotation and true-tracking angle in degrees. */
export function shadeFraction1x(gcr: number, rotationDeg: number, trueTrackingDeg: number): number {
  const tanTrue = tand(trueTrackingDeg);
  const numerator = gcr * cosd(rotationDeg) + gcr * sind(rotationDeg) * tanTrue - 1;
  const denominator = gcr * (sind(rotationDeg) * tanTrue + cosd(rotationDeg));
  const fs = numerator / denominator;
  return fs < 0 ? 0 : fs > 1 ? 1 : fs;
}

/** The share of the isotropic sky a module tilted `tiltDeg` still sees behind the row in front. */
export function skyDiffuseDerate(tiltDeg: number, gcr: number): number {
  const steps = 250;
  const tanTilt = tand(tiltDeg);
  const sinTilt = sind(tiltDeg);
  const open = Math.PI + Math.PI / Math.sqrt(1 + tanTilt * tanTilt);
  let seen = 0;
  for (let n = 0; n < steps; n++) {
    // The mask angle at a point n/steps up the module's width.
    const arg = tiltDeg !== 0 ? 1 / tanTilt - 1 / (gcr * sinTilt * (1 - n / steps)) : Number.NaN;
    const mask = -Math.PI / 2 + Math.atan(arg);
    const t = Math.tan(tiltDeg * DEG + mask);
    let masked = Math.PI + Math.PI / Math.sqrt(1 + t * t);
    if (Number.isNaN(masked)) masked = open;
    else if (tiltDeg * DEG + mask > Math.PI / 2) masked = 2 * Math.PI - masked;
    seen += masked / open / steps;
  }
  return seen;
}

/**
 * Sky-diffuse derates by whole degree of tilt, filled as hours need them: as in SSC, the first
 * tilt computed in a degree stands for that degree for the rest of the year.
 */
export class SkyDerates {
  readonly #byDegree = new Map<number, number>();
  readonly #gcr: number;
  /** With `steps`: each step's derate once looked up (NaN before), for a tilt that step always has. */
  readonly #byStep: Float64Array | null;

  constructor(gcr: number, initialTiltDeg: number, steps = 0) {
    this.#gcr = gcr;
    this.#byStep = steps > 0 ? new Float64Array(steps).fill(Number.NaN) : null;
    this.lookup(initialTiltDeg);
  }

  /**
   * lookup for step `h` of a model whose step h has the same tilt in every weather year (v8 keeps
   * its derates across years): a degree's derate never changes once set, so the step keeps it.
   */
  lookupStep(h: number, tiltDeg: number): number {
    const byStep = this.#byStep;
    if (!byStep) return this.lookup(tiltDeg);
    const kept = byStep[h];
    if (!Number.isNaN(kept)) return kept;
    const d = this.lookup(tiltDeg);
    byStep[h] = d;
    return d;
  }

  lookup(tiltDeg: number): number {
    const key = Math.trunc(tiltDeg);
    let d = this.#byDegree.get(key);
    if (d === undefined) {
      d = skyDiffuseDerate(tiltDeg, this.#gcr);
      this.#byDegree.set(key, d);
    }
    return d;
  }
}

/**
 * The parts of the ground-reflected factor that depend on the geometry alone (the tilt, the sun's
 * zenith, the rows' spacing), not on the hour's irradiance or albedo: a model whose sun and surface
 * are the same in every weather year computes them once (PVWatts v8). Each is the very expression
 * groundDerate evaluates, so the factor is the same to the last bit either way.
 */
export interface GroundTerms {
  /** cos of the zenith. */
  cosZenith: number;
  /** sin²(tilt / 2): the open ground's view, per unit albedo. */
  openView: number;
  /** 1 + d − √(d² − 2d·cos(180° − tilt) + 1) for d = the sunlit ground's width and d = the row pitch. */
  sunlitView: number;
  allView: number;
}

/** The sunlit ground's width between rows (at least 0.00001), as a share of a row's width. */
function sunlitWidth(tiltDeg: number, zenithDeg: number, rowPitch: number): number {
  const altitude = 90 - zenithDeg;
  const y1 = rowPitch - sind(180 - altitude - tiltDeg) / sind(altitude);
  return Math.max(0.00001, y1);
}

/** 1 + d − √(d² − 2d·cosBack + 1): the view of a strip of ground d wide, per half albedo. */
function stripView(d: number, cosBack: number): number {
  return 1 + d - Math.sqrt(d * d - 2 * d * cosBack + 1);
}

/** The geometric terms of groundDerate, written into `out`. */
export function groundTerms(tiltDeg: number, zenithDeg: number, gcr: number, out: GroundTerms): GroundTerms {
  const rowPitch = 1 / gcr;
  const cosBack = cosd(180 - tiltDeg);
  out.cosZenith = cosd(zenithDeg);
  out.openView = sind(tiltDeg / 2) ** 2;
  out.sunlitView = stripView(sunlitWidth(tiltDeg, zenithDeg, rowPitch), cosBack);
  out.allView = stripView(rowPitch, cosBack);
  return out;
}

/** groundDerate from its geometric terms (groundTerms) and the hour's irradiance and albedo. */
export function groundDerateOf(
  cosZenith: number,
  openView: number,
  sunlitView: number,
  allView: number,
  beamNormal: number,
  diffuseHorizontal: number,
  albedo: number,
  rows: number,
): number {
  const beamHorizontal = beamNormal * cosZenith;
  const open = albedo * openView;
  const half = 0.5 * albedo;
  const sunlit = half * sunlitView;
  const all = half * allView;
  const unshaded = open * (beamHorizontal + diffuseHorizontal);
  if (!(unshaded > 0)) return 1;
  const reduced =
    ((open + (rows - 1) * sunlit) / rows) * beamHorizontal + ((open + (rows - 1) * all) / rows) * diffuseHorizontal;
  return reduced / unshaded;
}

/**
 * The factor on ground-reflected irradiance between rows (SSC's Fgnddiff); 1 when nothing is
 * reflected. `rows`: PVWatts v5 assumes 1,000; v8 estimates them from the system's size.
 */
export function groundDerate(
  tiltDeg: number,
  zenithDeg: number,
  beamNormal: number,
  diffuseHorizontal: number,
  gcr: number,
  albedo: number,
  rows = ROWS,
): number {
  const rowPitch = 1 / gcr;
  const cosBack = cosd(180 - tiltDeg);
  return groundDerateOf(
    cosd(zenithDeg),
    sind(tiltDeg / 2) ** 2,
    stripView(sunlitWidth(tiltDeg, zenithDeg, rowPitch), cosBack),
    stripView(rowPitch, cosBack),
    beamNormal,
    diffuseHorizontal,
    albedo,
    rows,
  );
}
