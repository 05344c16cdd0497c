// Snow on the modules: Marion et al. 2013 (Solar Energy 97, 112–121), hour by hour as SSC's
// `pvsnowmodel` runs it for PVWatts v8 (NREL SSC shared/lib_snowmodel.cpp, commit e97a19f8e),
// in single precision as SSC computes it. A snowfall of 1 cm in an hour (with at least 1 cm on the
// ground) covers the rows; the snow slides off at 0.1 × 1.97 × sin(tilt) of the row per hour
// while the air is warm enough for the sun on the modules to melt its base; no snow on the ground
// means none on the modules. The DC loss is the covered share of the modules up a row, rounded
// up to whole modules (a row of two modules is 0, ½ or fully lost).
const f = Math.fround;
const M_SLOPE = -80;
const SLIDE = f(1.97);
const DEPTH_THRESHOLD_CM = 1;
const DELTA_THRESHOLD_CM = 1;
/** Depths outside 0–610 cm (20 ft) are read as no snow. */
const MAX_DEPTH_CM = 610;

export class SnowCover {
  #previousDepth = 0;
  #previousCover = 0;
  readonly #modulesUp: number;
  readonly #depth: Float64Array | null;

  /** `depthCm`: the weather year's snow depth (null reads as none: the validator requires it). */
  constructor(modulesUp: number, depthCm: Float64Array | null) {
    this.#modulesUp = modulesUp;
    this.#depth = depthCm;
  }

  /**
   * The DC loss (0–1) of hour h, a daylight hour: `poa` the plane-of-array irradiance (front and
   * the whole rear), `tiltDeg` the modules' tilt, `tAirC` the air temperature. Hours are stepped
   * in order; night hours are not stepped (the depth of the last daylight hour carries over).
   */
  step(h: number, poa: number, tiltDeg: number, tAirC: number): number {
    let depth = this.#depth ? f(this.#depth[h]) : 0;
    if (!(depth >= 0 && depth <= MAX_DEPTH_CM)) depth = 0;
    let cover =
      depth - this.#previousDepth >= DELTA_THRESHOLD_CM && depth >= DEPTH_THRESHOLD_CM ? 1 : this.#previousCover;
    if (depth < DEPTH_THRESHOLD_CM) cover = 0;
    const tilt = f(tiltDeg);
    if (f(f(tAirC) - f(f(poa) / M_SLOPE)) > 0) {
      cover = f(cover - f(0.1 * SLIDE * Math.sin((tilt * Math.PI) / 180) * 1));
    }
    if (cover < 0) cover = 0;
    this.#previousDepth = depth;
    this.#previousCover = cover;
    return Math.ceil(cover * this.#modulesUp) / this.#modulesUp;
  }
}
