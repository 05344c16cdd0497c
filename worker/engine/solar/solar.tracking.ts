// Orientation of the modules in each hour: fixed, single-axis (true tracking or
// backtracking) and two-axis, as PVWatts v5 models them. Everything here depends only on
// the sun's geometry, so it is computed once per scenario and reused every year.
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import { DEG } from '../angles.ts';
import type { HourlySunGeometry } from './solar.position.ts';

export type ArrayType = ResolvedInputs['solar']['array_type'];

export interface ArrayOrientation {
  arrayType: ArrayType;
  /** Module tilt (fixed) or axis tilt (single-axis), degrees. */
  tiltDeg: number;
  /** Module azimuth (fixed) or the azimuth the axis descends toward (single-axis), degrees clockwise from north. */
  azimuthDeg: number;
  /** Ground coverage ratio, for backtracking. */
  gcr: number;
  /** PVWatts' single-axis rotation limit. */
  rotationLimitDeg?: number;
}

export interface SurfaceGeometry {
  /** cos(angle of incidence), negative when the sun is behind the modules. */
  cosAoi: Float64Array;
  aoiDeg: Float64Array;
  /** (1 + cos β)/2: the share of the sky dome the modules see. */
  skyView: Float64Array;
  /** (1 − cos β)/2: the share of the ground. */
  groundView: Float64Array;
  sinTilt: Float64Array;
  /** Single-axis rotation from rest, degrees; positive turns a south-pointing axis's modules west. 0 otherwise. */
  rotationDeg: Float64Array;
  /** Single-axis: the rotation true tracking would take (before the limit and backtracking), degrees. */
  trueTrackingDeg: Float64Array;
  /** The modules' tilt from horizontal, degrees. */
  tiltDeg: Float64Array;
  /** The azimuth the modules face, degrees clockwise from north (the array's when they lie flat). */
  azimuthDeg: Float64Array;
}

export const PVWATTS_ROTATION_LIMIT_DEG = 45;

/**
 * Single-axis rotation: the ideal angle puts the sun in the plane that holds the axis and the
 * module normal (Marion & Dobos 2013); backtracking turns back until the neighbouring row's
 * shadow just misses (Lorenzo et al. 2011): cos(ideal − rotation) = cos(ideal)/gcr.
 */
export function trackerRotation(idealDeg: number, gcr: number, backtrack: boolean, limitDeg: number): number {
  let r = idealDeg;
  if (backtrack) {
    const c = Math.cos(idealDeg * DEG);
    // Below the plane of the axes no rotation escapes shade; flat is where the correction tends.
    if (c <= 0) r = 0;
    else if (c < gcr) r = idealDeg - Math.sign(idealDeg) * (Math.acos(c / gcr) / DEG);
  }
  return Math.max(-limitDeg, Math.min(limitDeg, r));
}

export function surfaceGeometry(sun: HourlySunGeometry, array: ArrayOrientation): SurfaceGeometry {
  const n = sun.zenith.length;
  const out: SurfaceGeometry = {
    cosAoi: new Float64Array(n),
    aoiDeg: new Float64Array(n).fill(90),
    skyView: new Float64Array(n),
    groundView: new Float64Array(n),
    sinTilt: new Float64Array(n),
    rotationDeg: new Float64Array(n),
    trueTrackingDeg: new Float64Array(n),
    tiltDeg: new Float64Array(n),
    azimuthDeg: new Float64Array(n),
  };
  const beta = array.tiltDeg * DEG;
  const gamma = array.azimuthDeg * DEG;
  // Module normal at rest (tilted toward the azimuth) and the horizontal direction a positive
  // rotation moves it to (west for an axis that descends toward the south).
  const n0x = Math.sin(beta) * Math.sin(gamma);
  const n0y = Math.sin(beta) * Math.cos(gamma);
  const n0z = Math.cos(beta);
  const ex = Math.cos(gamma);
  const ey = -Math.sin(gamma);
  const limit = array.rotationLimitDeg ?? PVWATTS_ROTATION_LIMIT_DEG;
  const type = array.arrayType;
  const singleAxis = type === 'single_axis' || type === 'single_axis_backtracking';

  for (let h = 0; h < n; h++) {
    let nx = n0x;
    let ny = n0y;
    let nz = n0z;
    let cosAoi = -1;
    if (sun.up[h]) {
      const z = sun.zenith[h] * DEG;
      const az = sun.azimuth[h] * DEG;
      const sz = Math.cos(z);
      const sx = Math.sin(z) * Math.sin(az);
      const sy = Math.sin(z) * Math.cos(az);
      if (type === 'two_axis') {
        nx = sx;
        ny = sy;
        nz = sz;
      } else if (singleAxis) {
        const ideal = Math.atan2(sx * ex + sy * ey, sx * n0x + sy * n0y + sz * n0z) / DEG;
        const rot = trackerRotation(ideal, array.gcr, type === 'single_axis_backtracking', limit);
        out.rotationDeg[h] = rot;
        out.trueTrackingDeg[h] = ideal;
        const c = Math.cos(rot * DEG);
        const s = Math.sin(rot * DEG);
        nx = c * n0x + s * ex;
        ny = c * n0y + s * ey;
        nz = c * n0z;
      }
      cosAoi = Math.max(-1, Math.min(1, nx * sx + ny * sy + nz * sz));
      out.aoiDeg[h] = Math.acos(cosAoi) / DEG;
    }
    out.cosAoi[h] = cosAoi;
    out.skyView[h] = (1 + nz) / 2;
    out.groundView[h] = (1 - nz) / 2;
    out.sinTilt[h] = Math.sqrt(Math.max(0, 1 - nz * nz));
    out.tiltDeg[h] = Math.acos(Math.max(-1, Math.min(1, nz))) / DEG;
    const az = nx * nx + ny * ny > 1e-18 ? Math.atan2(nx, ny) / DEG : array.azimuthDeg;
    out.azimuthDeg[h] = az < 0 ? az + 360 : az;
  }
  return out;
}
