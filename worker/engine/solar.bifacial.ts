import type { SurfaceGeometry } from './solar.tracking.ts';
import type { HourlySunGeometry } from './solar-position.ts';
export interface BifacialModel {
  x: number;
}
export function prepareBifacial(
  _sun: HourlySunGeometry,
  _surface: SurfaceGeometry,
  _o: { tracking: boolean; gcr: number; slopeLengthM: number; clearanceM: number },
): BifacialModel {
  throw new Error('WIP');
}
export function rearIrradiance(_m: BifacialModel, _h: number, _dn: number, _df: number, _alb: number): number {
  throw new Error('WIP');
}
