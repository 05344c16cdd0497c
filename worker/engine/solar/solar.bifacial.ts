// The rear side of bifacial modules as PVWatts v8 computes it: SSC's port of NREL's bifacialvf
// (Marion et al. 2017, NREL/CP-5J00-67847; SSC shared/lib_irradproc.cpp `calc_rear_side`, commit
// e97a19f8e), written here from its equations. In the plane across the rows: the ground between
// two rows in 100 strips, each seeing some of the sky past the rows and lit by the beam unless a
// row's shadow (which lets 1.3 % through) lies on it; six cells up each module, front and back,
// each seeing sky, the row behind (reflecting what its front does not absorb) and the ground
// through 1° arcs, with Marion's glass modifiers; the back's own beam and circumsolar through
// the glass (Sjerps-Koomen), less the part the row shades.
//
// Everything but the weather is geometry, and the result is linear in the hour's sky: so each
// daylight hour's rear irradiance is kept as five coefficients of (isotropic sky, horizon band,
// albedo × isotropic sky, albedo × (beam + circumsolar) on the ground, the back's own beam and
// circumsolar), computed once per scenario from the geometry alone.

import { DEG } from '../angles.ts';
import { GroundStrips, groundShade, type Section, STRIPS, skyFactors } from './solar.bifacial.ground.ts';
import type { HourlySunGeometry } from './solar.position.ts';
import type { SurfaceGeometry } from './solar.tracking.ts';

const CELL_ROWS = 6;
const GLASS_N = 1.526;
const R0 = ((GLASS_N - 1) / (GLASS_N + 1)) ** 2;
/** 0.5 (cos 84° − cos 90°): the horizon band is the 6° above the horizon. */
const HORIZON_BAND = 0.5 * (Math.cos(84 * DEG) - Math.cos(90 * DEG));

// Marion's transmittance of glass for each 1° arc of a cell's view, 0° (along the module) to 180°.
// biome-ignore format: a table
const MARION = [
  0.057563, 0.12857, 0.199651, 0.265024, 0.324661, 0.378968, 0.428391, 0.47367, 0.514788, 0.552454, 0.586857,
  0.618484, 0.647076, 0.673762, 0.698029, 0.720118, 0.740726, 0.759671, 0.776946, 0.792833, 0.807374, 0.82101,
  0.833534, 0.845241, 0.855524, 0.865562, 0.874567, 0.882831, 0.890769, 0.897939, 0.904373, 0.910646, 0.916297,
  0.921589, 0.926512, 0.930906, 0.935179, 0.939074, 0.942627, 0.946009, 0.949096, 0.95203, 0.954555, 0.957157,
  0.959669, 0.9615, 0.963481, 0.965353, 0.967387, 0.96858, 0.970311, 0.971567, 0.972948, 0.974114, 0.975264,
  0.976287, 0.977213, 0.978142, 0.979057, 0.979662, 0.98046, 0.9811, 0.981771, 0.982459, 0.982837, 0.983199,
  0.983956, 0.984156, 0.984682, 0.985026, 0.985364, 0.985645, 0.985954, 0.986241, 0.986484, 0.986686, 0.986895,
  0.987043, 0.987287, 0.987388, 0.987541, 0.987669, 0.987755, 0.987877, 0.987903, 0.987996, 0.988022, 0.988091,
  0.988104, 0.988114, 0.988114, 0.988104, 0.988091, 0.988022, 0.987996, 0.987903, 0.987877, 0.987755, 0.987669,
  0.987541, 0.987388, 0.987287, 0.987043, 0.986895, 0.986686, 0.986484, 0.98624, 0.985954, 0.985645, 0.985364,
  0.98502, 0.984676, 0.984156, 0.983956, 0.983199, 0.982837, 0.982459, 0.981771, 0.9811, 0.98046, 0.979662,
  0.979057, 0.978142, 0.977213, 0.976287, 0.975264, 0.974114, 0.972947, 0.971567, 0.970311, 0.96858, 0.967387,
  0.965353, 0.963481, 0.961501, 0.959671, 0.957157, 0.954555, 0.95203, 0.949096, 0.946009, 0.942627, 0.939074,
  0.935179, 0.930906, 0.926512, 0.921589, 0.916297, 0.910646, 0.904373, 0.897939, 0.890769, 0.882831, 0.874567,
  0.865562, 0.855524, 0.845241, 0.833534, 0.82101, 0.807374, 0.792833, 0.776946, 0.759671, 0.740726, 0.720118,
  0.698029, 0.673762, 0.647076, 0.618484, 0.586857, 0.552454, 0.514788, 0.47367, 0.428391, 0.378968, 0.324661,
  0.265024, 0.199651, 0.12857, 0.057563,
];
/** The view factor of arc j (0.5 (cos j° − cos (j+1)°)) and its product with Marion's modifier. */
const ARC = Float64Array.from({ length: 180 }, (_, j) => 0.5 * (Math.cos(j * DEG) - Math.cos((j + 1) * DEG)));
const ARC_GLASS = Float64Array.from(ARC, (w, j) => w * MARION[j]);
/** What the glass reflects of what arc j brings: 1 − M (1 − r0). */
const ARC_REFLECTED = Float64Array.from(ARC, (w, j) => w * (1 - MARION[j] * (1 - R0)));

/** sin and cos of whole degrees 0…181, for the arcs (angle sums instead of a tangent per arc). */
const SIN_DEG = Float64Array.from({ length: 182 }, (_, k) => Math.sin(k * DEG));
const COS_DEG = Float64Array.from({ length: 182 }, (_, k) => Math.cos(k * DEG));

/** cot(k° + a), from sin a and cos a. */
const cotPlus = (k: number, sinA: number, cosA: number) =>
  (COS_DEG[k] * cosA - SIN_DEG[k] * sinA) / (SIN_DEG[k] * cosA + COS_DEG[k] * sinA);

/** Sjerps-Koomen's incidence modifier of glass, relative to normal incidence. */
function iamSjerpsKoomen(incidenceRad: number): number {
  if (incidenceRad === 0) return 1;
  const refracted = Math.asin(Math.sin(incidenceRad) / GLASS_N);
  const r1 = Math.sin(refracted - incidenceRad) ** 2 / Math.sin(refracted + incidenceRad) ** 2;
  const r2 = Math.tan(refracted - incidenceRad) ** 2 / Math.tan(refracted + incidenceRad) ** 2;
  return (1 - 0.5 * (r1 + r2)) / (1 - R0);
}

/**
 * A quantity linear in the hour's sky, as its coefficients of: the horizontal isotropic diffuse,
 * the horizon band, albedo × isotropic, albedo × (beam + circumsolar) on the ground, the back's
 * own beam + circumsolar (the order of BifacialModel.coefficients).
 */
type Linear = Float64Array;
const COEFFICIENTS = 5;
const ISO = 0;
const HORIZON = 1;
const ALBEDO_ISO = 2;
const ALBEDO_BEAM = 3;
const BACK_DIRECT = 4;

/** What each cell of a row's front reflects, 4 per cell: isotropic, horizon, albedo × iso, albedo × beam. */
function frontReflected(s: Section, tiltRad: number, ground: GroundStrips): Float64Array {
  const { rowToRow, verticalHeight, clearance, between, horizontalLength } = s;
  const reflected = new Float64Array(CELL_ROWS * 4);
  for (let i = 0; i < CELL_ROWS; i++) {
    const cellX = (horizontalLength * (i + 0.5)) / CELL_ROWS;
    const cellY = clearance + (verticalHeight * (i + 0.5)) / CELL_ROWS;
    const up = Math.atan((verticalHeight + clearance - cellY) / (cellX + between));
    const down = Math.atan((cellY - clearance) / (cellX + rowToRow));
    const stopIso = Math.min(180, Math.max(0, Math.round((Math.PI - tiltRad - up) / DEG)));
    const horBright = Math.round(Math.max(0, 6 - up / DEG));
    const startGround = Math.max(0, Math.round((Math.PI - tiltRad + down) / DEG));
    const o = i * 4;
    for (let j = 0; j < stopIso; j++) {
      reflected[o] += ARC_REFLECTED[j];
      if (stopIso - j <= horBright) reflected[o + 1] += ARC_REFLECTED[j] / HORIZON_BAND;
    }
    const sinDown = Math.sin(down);
    const cosDown = Math.cos(down);
    for (let j = startGround; j < 180; j++) {
      let x1 = cellX - cellY * cotPlus(j - startGround, sinDown, cosDown);
      let x2 = cellX - cellY * cotPlus(j + 1 - startGround, sinDown, cosDown);
      if (Math.abs(x1 - x2) > 0.99 * rowToRow) ground.seeAll();
      else {
        x1 = (STRIPS * x1) / rowToRow;
        x2 = (STRIPS * x2) / rowToRow;
        while (x1 < 0 || x2 < 0) {
          x1 += STRIPS;
          x2 += STRIPS;
        }
        ground.see(x1, x2, Math.trunc(x1), Math.trunc(x2));
      }
      reflected[o + 2] += ARC_REFLECTED[j] * ground.seenIso;
      reflected[o + 3] += ARC_REFLECTED[j] * ground.seenBeam;
    }
  }
  return reflected;
}

/** The share of each cell of the row behind that an arc from x1 to x2 (in row widths) sees, times what it reflects, into `out`. */
function addRowBehind(x1: number, x2: number, weight: number, reflected: Float64Array, out: Linear): void {
  const tolerance = 0.0001;
  for (let k = 0; k < CELL_ROWS; k++) {
    const bottom = k / CELL_ROWS;
    const top = (k + 1) / CELL_ROWS;
    let length = 0;
    if (bottom >= x1 - tolerance && top <= x2 + tolerance) length = top - bottom;
    else if (bottom <= x1 + tolerance && top >= x2 - tolerance) length = x2 - x1;
    else if (bottom >= x1 - tolerance && x2 > bottom - tolerance && top >= x2 - tolerance) length = x2 - bottom;
    else if (bottom <= x1 + tolerance && x1 < top + tolerance && top <= x2 + tolerance) length = top - x1;
    if (length === 0) continue;
    const o = k * 4;
    out[ISO] += weight * length * reflected[o];
    out[HORIZON] += weight * length * reflected[o + 1];
    out[ALBEDO_ISO] += weight * length * reflected[o + 2];
    out[ALBEDO_BEAM] += weight * length * reflected[o + 3];
  }
}

/**
 * SSC's rear irradiance (the average of the six cells' backs), for one hour's geometry, as
 * coefficients of the sky's parts (added into `out`): sky, the row behind, the ground, its own beam.
 */
function rearAverage(
  s: Section,
  tiltRad: number,
  backShade: number,
  ground: GroundStrips,
  backIam: number,
  out: Linear,
): void {
  const { rowToRow, verticalHeight, clearance, horizontalLength } = s;
  const reflected = frontReflected(s, tiltRad, ground);
  const index = (x: number) => Math.min(STRIPS - 1, Math.trunc(x + STRIPS) - STRIPS);
  for (let i = 0; i < CELL_ROWS; i++) {
    const cellX = (horizontalLength * (i + 0.5)) / CELL_ROWS;
    const cellY = clearance + (verticalHeight * (i + 0.5)) / CELL_ROWS;
    const up = Math.atan((verticalHeight + clearance - cellY) / (rowToRow + horizontalLength - cellX));
    const down = Math.atan((cellY - clearance) / (rowToRow - cellX));
    const stopIso = Math.max(0, Math.round((tiltRad - up) / DEG));
    const horBright = Math.round(Math.max(0, 6 - up / DEG));
    const startGround = Math.min(180, Math.round((tiltRad + down) / DEG));
    for (let j = 0; j < stopIso; j++) {
      out[ISO] += ARC_GLASS[j] / CELL_ROWS;
      if (stopIso - j <= horBright) out[HORIZON] += ARC_GLASS[j] / HORIZON_BAND / CELL_ROWS;
    }
    const sinDown = Math.sin(down);
    const cosDown = Math.cos(down);
    const diagonal = (rowToRow - cellX) / cosDown;
    // Arc j looks (up + down) − (j − stopIso)° below the top of the row behind: its ends on that row
    // are diagonal × sin(A − k°) / sin(tilt − up + k°), A = up + down, k = j − stopIso (and k + 1).
    const sinA = Math.sin(up + down);
    const cosA = Math.cos(up + down);
    const sinB = Math.sin(tiltRad - up);
    const cosB = Math.cos(tiltRad - up);
    const onRowBehind = (k: number) =>
      (diagonal * (sinA * COS_DEG[k] - cosA * SIN_DEG[k])) / (sinB * COS_DEG[k] + cosB * SIN_DEG[k]);
    for (let j = stopIso; j < startGround; j++) {
      const x2 = onRowBehind(j - stopIso);
      const x1 = Math.max(0, onRowBehind(j + 1 - stopIso));
      addRowBehind(x1, x2, ARC_GLASS[j] / (x2 - x1) / CELL_ROWS, reflected, out);
    }
    for (let j = startGround; j < 180; j++) {
      let x2 = cellX + cellY * cotPlus(j - startGround, sinDown, cosDown);
      let x1 = cellX + cellY * cotPlus(j + 1 - startGround, sinDown, cosDown);
      if (Math.abs(x1 - x2) > 0.99 * rowToRow) ground.seeAll();
      else {
        x1 = (STRIPS * x1) / rowToRow;
        x2 = (STRIPS * x2) / rowToRow;
        while (x1 >= STRIPS || x2 >= STRIPS) {
          x1 -= STRIPS;
          x2 -= STRIPS;
        }
        while (x1 < -STRIPS || x2 < -STRIPS) {
          x1 += STRIPS;
          x2 += STRIPS;
        }
        // Strips before the row's front are the previous interval's (the same ground).
        ground.see(x1, x2, index(x1), index(x2));
      }
      out[ALBEDO_ISO] += (ARC_GLASS[j] * ground.seenIso) / CELL_ROWS;
      out[ALBEDO_BEAM] += (ARC_GLASS[j] * ground.seenBeam) / CELL_ROWS;
    }
    const cellShade = Math.min(1, Math.max(0, backShade * CELL_ROWS - i));
    if (cellShade < 1) out[BACK_DIRECT] += ((1 - cellShade) * backIam) / CELL_ROWS;
  }
}

export interface BifacialLayout {
  /** Horizontal single-axis trackers: the clearance is the axis's height. */
  tracking: boolean;
  gcr: number;
  /** The row's width up its slope, m. */
  slopeLengthM: number;
  /** Height of the modules' lower edge (trackers: of the axis) above the ground, m. */
  clearanceM: number;
}

export interface BifacialModel {
  /** Per hour: coefficients of iso, horizon, albedo × iso, albedo × (beam + circumsolar), back direct. */
  coefficients: Float64Array;
  /** cos of the back's angle of incidence each hour (−cos AOI of the front). */
  backCos: Float64Array;
}

/** The rear side's coefficients of every daylight hour of the sun's year. */
export function prepareBifacial(
  sun: HourlySunGeometry,
  surface: SurfaceGeometry,
  layout: BifacialLayout,
): BifacialModel {
  const steps = sun.zenith.length;
  const coefficients = new Float64Array(steps * COEFFICIENTS);
  const backCos = new Float64Array(steps);
  for (let h = 0; h < steps; h++) {
    if (!sun.up[h]) continue;
    const tilt = surface.tiltDeg[h] * DEG;
    const slope = layout.slopeLengthM;
    const rowToRow = slope / layout.gcr;
    const horizontalLength = slope * Math.cos(tilt);
    const section: Section = {
      rowToRow,
      verticalHeight: slope * Math.sin(tilt),
      horizontalLength,
      clearance: layout.tracking ? layout.clearanceM - 0.5 * slope * Math.sin(tilt) : layout.clearanceM,
      between: rowToRow - horizontalLength,
    };
    const cf = skyFactors(section);
    const shade = groundShade(section, surface.azimuthDeg[h] * DEG, sun.azimuth[h] * DEG, (90 - sun.zenith[h]) * DEG);
    const cosBack = -surface.cosAoi[h];
    backCos[h] = cosBack;
    const backIam = cosBack > 0 ? iamSjerpsKoomen(Math.acos(Math.min(1, cosBack))) : 0;
    const ground = new GroundStrips(cf, shade.shaded);
    rearAverage(
      section,
      tilt,
      shade.back,
      ground,
      backIam,
      coefficients.subarray(h * COEFFICIENTS, (h + 1) * COEFFICIENTS),
    );
  }
  return { coefficients, backCos };
}

/**
 * The whole rear irradiance of hour h (before bifaciality), W/m², from the hour's sky: the
 * horizontal isotropic diffuse, the horizon band's diffuse, the ground's beam + circumsolar, the
 * back's own beam + circumsolar, and the albedo.
 */
export function rearIrradiance(
  m: BifacialModel,
  h: number,
  iso: number,
  horizon: number,
  beamCircum: number,
  backDirect: number,
  albedo: number,
): number {
  const o = h * COEFFICIENTS;
  const c = m.coefficients;
  return c[o] * iso + c[o + 1] * horizon + albedo * (c[o + 2] * iso + c[o + 3] * beamCircum) + c[o + 4] * backDirect;
}
