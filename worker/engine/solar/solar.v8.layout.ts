// The physical layout PVWatts v8 assumes for a system of a given size (NREL SSC
// `cmod_pvwattsv8`): 300 W modules of the type's efficiency, 1.7 long for 1 wide, in portrait;
// rows one module high on single-axis trackers and two high otherwise, as many rows as modules
// along a row; strings of 7. Only self-shading and the rear side's geometry read it. And the
// fixed array's shade on the row behind (Appelbaum & Bany 1979, as SSC's self-shading applies it
// to the beam of a fixed open rack).

import { DEG } from '../angles.ts';
import type { ArrayType } from './solar.tracking.ts';

const MODULE_W = 300;
const ASPECT = 1.7;
const MODULES_PER_STRING = 7;

export interface V8Layout {
  /** Module length and width, m. */
  lengthM: number;
  widthM: number;
  /** Modules up a row's slope, along a row, and rows. */
  modulesUp: number;
  modulesAlong: number;
  rows: number;
  /** Strings along a row: with more than one, the shadow's edge along the row is ignored. */
  stringsAlong: number;
  /** Row pitch, m. */
  pitchM: number;
}

export function v8Layout(dcNameplateW: number, efficiency: number, arrayType: ArrayType, gcr: number): V8Layout {
  const area = MODULE_W / efficiency / 1000;
  const widthM = Math.sqrt(area / ASPECT);
  const lengthM = widthM * ASPECT;
  const modules = Math.max(1, Math.ceil(dcNameplateW / MODULE_W));
  const singleAxis = arrayType === 'single_axis' || arrayType === 'single_axis_backtracking';
  const modulesUp = singleAxis ? 1 : 2;
  const rows = arrayType === 'fixed_roof_mount' ? 1 : Math.ceil(Math.sqrt(modules / modulesUp));
  const modulesAlong = Math.max(1, Math.ceil(modules / (rows * modulesUp)));
  return {
    lengthM,
    widthM,
    modulesUp,
    modulesAlong,
    rows,
    stringsAlong: Math.trunc(modulesAlong / MODULES_PER_STRING),
    pitchM: (lengthM * modulesUp) / gcr,
  };
}

/**
 * The shaded share of a fixed row's area when the sun is at (zenith, azimuth): Appelbaum's shadow
 * height up the row times the shadow's length along it (ignored with several strings per row).
 */
export function fixedRowShade(
  layout: V8Layout,
  tiltDeg: number,
  azimuthDeg: number,
  zenithDeg: number,
  sunAzimuthDeg: number,
): number {
  const side = layout.lengthM * layout.modulesUp;
  const rowLength = layout.modulesAlong * layout.widthM;
  const azEff = sunAzimuthDeg - azimuthDeg;
  let px = 0;
  let py = 0;
  if (zenithDeg < 90 && tiltDeg !== 0 && Math.abs(azEff) < 90) {
    const tanAlt = Math.tan((90 - zenithDeg) * DEG);
    py = side * (Math.cos(tiltDeg * DEG) + (Math.cos(azEff * DEG) * Math.sin(tiltDeg * DEG)) / tanAlt);
    px = (side * Math.sin(tiltDeg * DEG) * Math.sin(azEff * DEG)) / tanAlt;
  }
  let g = py === 0 ? 0 : (layout.pitchM * px) / py;
  g = Math.min(Math.max(g, 0), rowLength);
  if (layout.stringsAlong > 1) g = 0;
  let hs = py === 0 ? 0 : side * (1 - layout.pitchM / py);
  hs = Math.min(Math.max(hs, 0), side);
  return (hs * (rowLength - g)) / (side * rowLength);
}
