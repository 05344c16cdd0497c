// The Perez 1990 sky as SSC's irradiance processor computes it for PVWatts v8 (NREL SSC
// shared/lib_irradproc.cpp `perez`): its coefficients to seven digits, its air mass, an
// isotropic sky beyond a zenith of 87.5°, and no ground-reflected light from a sky without
// diffuse or beyond 87.5°. (PVWatts v5's Perez, solar.irradiance.ts, stays as v5 was validated.)
// Split into isotropic, circumsolar and horizon parts, which the rear side needs separately.
import { DEG } from '../angles.ts';

const MAX_ZENITH_RAD = 1.5271631;
const B2 = 0.000005534;
const F11 = [-0.0083117, 0.1299457, 0.3296958, 0.5682053, 0.873028, 1.1326077, 1.0601591, 0.677747];
const F12 = [0.5877285, 0.6825954, 0.4868735, 0.1874525, -0.3920403, -1.2367284, -1.5999137, -0.3272588];
const F13 = [-0.0620636, -0.1513752, -0.2210958, -0.295129, -0.3616149, -0.4118494, -0.3589221, -0.2504286];
const F21 = [-0.0596012, -0.0189325, 0.055414, 0.1088631, 0.2255647, 0.2877813, 0.2642124, 0.1561313];
const F22 = [0.0721249, 0.065965, -0.0639588, -0.1519229, -0.4620442, -0.8230357, -1.127234, -1.3765031];
const F23 = [-0.0220216, -0.0288748, -0.0260542, -0.0139754, 0.0012448, 0.0558651, 0.1310694, 0.2506212];
const EPS_BINS = [1.065, 1.23, 1.5, 1.95, 2.8, 4.5, 6.2];

/** The sky's brightness coefficients of an hour: F1 (circumsolar) and F2 (horizon). */
export interface PerezSky {
  /** 2: Perez's sky; 1: beyond 87.5°, an isotropic sky; 0: no diffuse (and no ground reflection). */
  mode: 0 | 1 | 2;
  f1: number;
  f2: number;
  /** 1 / max(cos Z, cos 85°). */
  invZh: number;
}

/**
 * The terms of each hour's sky that depend on the sun alone, the same in every weather year: made
 * once per geometry. Hours with the sun down, below 0 or beyond 87.5° keep zeros (`perezSky`
 * gives them an isotropic sky without reading them).
 */
export interface PerezSun {
  /** 1: beyond 87.5° or below 0 (an isotropic sky). */
  isotropic: Uint8Array;
  /** The apparent zenith, rad. */
  zenithRad: Float64Array;
  airMass: Float64Array;
  /** zenith³ (in degrees) × B2. */
  zenithCubedB2: Float64Array;
  /** 1 / max(cos Z, cos 85°). */
  invZh: Float64Array;
}

/** The sun's terms of each step of a geometry: `zenithDeg` the apparent zenith (read where `up`). */
export function perezSun(zenithDeg: Float64Array, up: Uint8Array): PerezSun {
  const n = zenithDeg.length;
  const out: PerezSun = {
    isotropic: new Uint8Array(n),
    zenithRad: new Float64Array(n),
    airMass: new Float64Array(n),
    zenithCubedB2: new Float64Array(n),
    invZh: new Float64Array(n),
  };
  for (let h = 0; h < n; h++) {
    if (!up[h]) continue;
    const z = zenithDeg[h];
    const zen = z * DEG;
    if (zen < 0 || zen > MAX_ZENITH_RAD) {
      out.isotropic[h] = 1;
      continue;
    }
    const cz = Math.cos(zen);
    out.zenithRad[h] = zen;
    out.airMass[h] = 1 / (cz + 0.15 * (93.9 - z) ** -1.253);
    out.zenithCubedB2[h] = z ** 3 * B2;
    out.invZh[h] = 1 / (cz > 0.0871557 ? cz : 0.0871557);
  }
  return out;
}

/** The coefficients of step `h` of `sun`: `dn` and `df` beam normal and diffuse horizontal. */
export function perezSky(sun: PerezSun, h: number, dn: number, df: number, out: PerezSky): PerezSky {
  out.mode = 0;
  out.f1 = 0;
  out.f2 = 0;
  out.invZh = 0;
  if (sun.isotropic[h]) {
    out.mode = 1;
    return out;
  }
  if (df <= 0) return out;
  const beam = dn < 0 ? 0 : dn;
  const zen = sun.zenithRad[h];
  const delta = (df * sun.airMass[h]) / 1367;
  const tB2 = sun.zenithCubedB2[h];
  const eps = ((beam + df) / df + tB2) / (1 + tB2);
  let i = 0;
  while (i < 7 && eps > EPS_BINS[i]) i++;
  out.mode = 2;
  out.f1 = Math.max(0, F11[i] + F12[i] * delta + F13[i] * zen);
  out.f2 = F21[i] + F22[i] * delta + F23[i] * zen;
  out.invZh = sun.invZh[h];
  return out;
}

/** The sky diffuse on a plane of tilt β (cos and sin given) with cos(incidence) `cosInc`, split in three. */
export interface SkyParts {
  isotropic: number;
  circumsolar: number;
  horizon: number;
}

export function skyParts(
  sky: PerezSky,
  df: number,
  cosInc: number,
  cosTilt: number,
  sinTilt: number,
  out: SkyParts,
): SkyParts {
  const d = df < 0 ? 0 : df;
  if (sky.mode !== 2) {
    out.isotropic = sky.mode === 1 ? (d * (1 + cosTilt)) / 2 : 0;
    out.circumsolar = 0;
    out.horizon = 0;
    return out;
  }
  out.isotropic = (d * (1 - sky.f1) * (1 + cosTilt)) / 2;
  out.circumsolar = d * sky.f1 * (cosInc > 0 ? cosInc : 0) * sky.invZh;
  out.horizon = d * sky.f2 * sinTilt;
  return out;
}
