// Plane-of-array irradiance as PVWatts v5 computes it: Perez 1990 sky diffuse, isotropic
// ground reflection, and the module cover's transmittance of the beam.
import { DEG } from '../angles.ts';

const COS_85 = Math.cos(85 * DEG);
/** Perez's normalisation of sky brightness (PVWatts uses the solar constant, not the day's value). */
export const PEREZ_SOLAR_CONSTANT = 1367;
/**
 * Beyond this zenith the sky is taken as isotropic, as SAM's Perez does: the fit has no data
 * there, and its circumsolar term (cos AOI / cos 85°) would let a grazing sun dominate.
 */
export const PEREZ_MAX_ZENITH_DEG = 87.5;

// Perez et al. 1990 (Solar Energy 44(5) 271–289) coefficients: per sky-clearness bin,
// F11, F12, F13, F21, F22, F23; the bins' upper limits of ε follow.
const PEREZ = new Float64Array([
  -0.008, 0.588, -0.062, -0.06, 0.072, -0.022, 0.13, 0.683, -0.151, -0.019, 0.066, -0.029, 0.33, 0.487, -0.221, 0.055,
  -0.064, -0.026, 0.568, 0.187, -0.295, 0.109, -0.152, -0.014, 0.873, -0.392, -0.362, 0.226, -0.462, 0.001, 1.132,
  -1.237, -0.412, 0.288, -0.823, 0.056, 1.06, -1.6, -0.359, 0.264, -1.127, 0.131, 0.678, -0.327, -0.25, 0.156, -1.377,
  0.251,
]);
const EPSILON_LIMITS = new Float64Array([1.065, 1.23, 1.5, 1.95, 2.8, 4.5, 6.2]);

/** Relative optical air mass, Kasten (1966), as in Perez's own formulation. */
export function airMassKasten(zenithDeg: number): number {
  return 1 / (Math.cos(zenithDeg * DEG) + 0.15 * (93.885 - zenithDeg) ** -1.253);
}

/**
 * Per-hour sun terms of the Perez model that do not depend on the weather: κ·Z³ for the
 * clearness ε, air mass / I₀ for the brightness Δ, and max(cos Z, cos 85°).
 */
export interface PerezSunTerms {
  /** 1.041·Z³ with Z in radians; −1 marks an hour handled as an isotropic sky. */
  kappaZ3: Float64Array;
  /** Z in radians. */
  zenithRad: Float64Array;
  /** Air mass / solar constant. */
  airMassOverI0: Float64Array;
  /** 1 / max(cos Z, cos 85°). */
  invCosZClamped: Float64Array;
}

export function perezSunTerms(zenithDeg: Float64Array, up: Uint8Array): PerezSunTerms {
  const n = zenithDeg.length;
  const t: PerezSunTerms = {
    kappaZ3: new Float64Array(n).fill(-1),
    zenithRad: new Float64Array(n),
    airMassOverI0: new Float64Array(n),
    invCosZClamped: new Float64Array(n),
  };
  for (let h = 0; h < n; h++) {
    const z = zenithDeg[h];
    if (!up[h] || z > PEREZ_MAX_ZENITH_DEG) continue;
    const zr = z * DEG;
    t.kappaZ3[h] = 1.041 * zr * zr * zr;
    t.zenithRad[h] = zr;
    t.airMassOverI0[h] = airMassKasten(z) / PEREZ_SOLAR_CONSTANT;
    t.invCosZClamped[h] = 1 / Math.max(Math.cos(zr), COS_85);
  }
  return t;
}

/**
 * Perez 1990 sky diffuse on a tilted plane, W/m². `skyView` is (1 + cos β)/2; `cosAoi` may be
 * negative (sun behind the plane: no circumsolar part).
 */
export function perezSkyDiffuse(
  dhi: number,
  dni: number,
  kappaZ3: number,
  zenithRad: number,
  airMassOverI0: number,
  invCosZClamped: number,
  cosAoi: number,
  skyView: number,
  sinTilt: number,
): number {
  if (dhi <= 0) return 0;
  if (kappaZ3 < 0) return dhi * skyView;
  const epsilon = ((dhi + dni) / dhi + kappaZ3) / (1 + kappaZ3);
  let bin = 0;
  while (bin < 7 && epsilon >= EPSILON_LIMITS[bin]) bin++;
  const o = bin * 6;
  const brightness = dhi * airMassOverI0;
  let f1 = PEREZ[o] + PEREZ[o + 1] * brightness + PEREZ[o + 2] * zenithRad;
  if (f1 < 0) f1 = 0;
  const f2 = PEREZ[o + 3] + PEREZ[o + 4] * brightness + PEREZ[o + 5] * zenithRad;
  return dhi * ((1 - f1) * skyView + f1 * Math.max(cosAoi, 0) * invCosZClamped + f2 * sinTilt);
}

// Cover optics (Snell, Fresnel, Bouguer), the physical model of De Soto et al. 2006 that
// PVWatts v5 uses: glass n = 1.526, K = 4 /m, 2 mm; premium modules add an anti-reflective
// layer n = 1.3 a hundredth of the glass thickness.
const GLASS_N = 1.526;
const AR_N = 1.3;
const EXTINCTION_PER_M = 4;
const GLASS_M = 0.002;
const AR_M = GLASS_M * 0.01;
// Angles clamped off 0° and 90°, where Fresnel's ratios are 0/0.
const AOI_MIN_DEG = 0.5;
const AOI_MAX_DEG = 89.5;

/** Transmittance through one layer of index n2 entered from index n1; returns it and the refracted angle. */
function layerTransmittance(theta1: number, n1: number, n2: number, thicknessM: number, out: { theta2: number }) {
  const theta2 = Math.asin((n1 / n2) * Math.sin(theta1));
  out.theta2 = theta2;
  const sMinus = Math.sin(theta2 - theta1);
  const sPlus = Math.sin(theta2 + theta1);
  const tMinus = Math.tan(theta2 - theta1);
  const tPlus = Math.tan(theta2 + theta1);
  const reflected = 0.5 * ((sMinus * sMinus) / (sPlus * sPlus) + (tMinus * tMinus) / (tPlus * tPlus));
  return (1 - reflected) * Math.exp((-EXTINCTION_PER_M * thicknessM) / Math.cos(theta2));
}

function coverTransmittanceRaw(aoiDeg: number, antiReflective: boolean): number {
  const theta = Math.min(AOI_MAX_DEG, Math.max(AOI_MIN_DEG, aoiDeg)) * DEG;
  const refracted = { theta2: 0 };
  if (!antiReflective) return layerTransmittance(theta, 1, GLASS_N, GLASS_M, refracted);
  const coating = layerTransmittance(theta, 1, AR_N, AR_M, refracted);
  return coating * layerTransmittance(refracted.theta2, AR_N, GLASS_N, GLASS_M, refracted);
}

/** Beam transmittance of the cover relative to normal incidence (incidence angle modifier). */
export function coverTransmittance(aoiDeg: number, antiReflective: boolean): number {
  return coverTransmittanceRaw(aoiDeg, antiReflective) / coverTransmittanceRaw(0, antiReflective);
}

/** The modifier at 0°, 1/n°, 2/n° … 90° (and one step past), for interpolation. */
export function coverTransmittanceCurve(antiReflective: boolean, pointsPerDegree: number): Float64Array {
  const normal = coverTransmittanceRaw(0, antiReflective);
  const curve = new Float64Array(90 * pointsPerDegree + 2);
  for (let i = 0; i < curve.length; i++) curve[i] = coverTransmittanceRaw(i / pointsPerDegree, antiReflective) / normal;
  return curve;
}
