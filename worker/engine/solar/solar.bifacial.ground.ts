// The ground under bifacial rows as SSC's bifacialvf port sees it (solar.bifacial.ts): in the plane
// across the rows, the ground from one row's front to the next in 100 strips, each strip's view of
// the sky past the rows, and which strips a row's shadow covers (letting 1.3 % of the beam through).
/** The share of the beam a module lets through to the ground below it (SSC: 0.013). */
const TRANSMISSION = 0.013;
export const STRIPS = 100;

const atanPositive = (y: number, x: number) => {
  const a = Math.atan(y / x);
  return a < 0 ? a + Math.PI : a;
};

/** The rows' geometry across the rows, m. */
export interface Section {
  rowToRow: number;
  verticalHeight: number;
  horizontalLength: number;
  clearance: number;
  between: number;
}

/** Each strip's view factor to the sky between the rows. */
export function skyFactors(s: Section): Float64Array {
  const out = new Float64Array(STRIPS);
  const delta = s.rowToRow / STRIPS;
  const top = s.verticalHeight + s.clearance;
  let x = -delta / 2;
  for (let i = 0; i < STRIPS; i++) {
    x += delta;
    const beta1 = Math.max(
      atanPositive(top, 2 * s.rowToRow + s.horizontalLength - x),
      atanPositive(s.clearance, 2 * s.rowToRow - x),
    );
    const angleC = atanPositive(top, s.rowToRow + s.horizontalLength - x);
    const angleD = atanPositive(s.clearance, s.rowToRow - x);
    const beta2 = Math.min(angleC, angleD);
    const beta3 = Math.max(angleC, angleD);
    const beta4 = atanPositive(top, s.horizontalLength - x);
    const beta5 = atanPositive(s.clearance, -x);
    const beta6 = atanPositive(top, -s.between - x);
    let sky = 0;
    if (beta2 > beta1) sky += 0.5 * (Math.cos(beta1) - Math.cos(beta2));
    if (beta4 > beta3) sky += 0.5 * (Math.cos(beta3) - Math.cos(beta4));
    if (beta6 > beta5) sky += 0.5 * (Math.cos(beta5) - Math.cos(beta6));
    out[i] = sky;
  }
  return out;
}

/** Which strips lie in a row's shadow, and how much of each face of a module is shaded. */
export function groundShade(s: Section, surfaceAzimuthRad: number, sunAzimuthRad: number, sunElevationRad: number) {
  const { rowToRow, verticalHeight, clearance, between, horizontalLength } = s;
  const along = Math.cos(surfaceAzimuthRad - sunAzimuthRad) / Math.tan(sunElevationRad);
  const lh = verticalHeight * along;
  const lhc = (clearance + verticalHeight) * along;
  const lc = clearance * along;
  let front = 0;
  let back = 0;
  let start1 = 0;
  let end1 = 0;
  let start2 = 0;
  let end2 = 0;
  const wrap = (shadowStart: number, shadowEnd: number) => {
    start1 = shadowStart;
    end1 = shadowEnd;
    if (end1 > rowToRow) {
      end1 = rowToRow;
      start2 = 0;
      end2 = shadowEnd - rowToRow;
      if (end2 > start1) {
        start1 = 0;
        end1 = rowToRow;
      }
    }
  };
  if (lh > between) {
    front = (lh - between) / (lh + horizontalLength);
    back = 1;
    start1 = 0;
    end1 = rowToRow;
  } else if (lh < -(rowToRow + horizontalLength)) {
    front = 1;
    back = (lh + rowToRow + horizontalLength) / (lh + horizontalLength);
    start1 = 0;
    end1 = rowToRow;
  } else if (lhc >= 0) {
    back = 1;
    let shadowStart = lc;
    let shadowEnd = lhc + horizontalLength;
    while (shadowStart > rowToRow) {
      shadowStart -= rowToRow;
      shadowEnd -= rowToRow;
    }
    wrap(shadowStart, shadowEnd);
  } else {
    let shadowStart: number;
    let shadowEnd: number;
    if (lc < lhc + horizontalLength) {
      back = 1;
      shadowStart = lc;
      shadowEnd = lhc + horizontalLength;
    } else {
      front = 1;
      shadowStart = lhc + horizontalLength;
      shadowEnd = lc;
    }
    while (shadowStart < 0) {
      shadowStart += rowToRow;
      shadowEnd += rowToRow;
    }
    wrap(shadowStart, shadowEnd);
  }
  const shaded = new Uint8Array(STRIPS);
  const delta = rowToRow / STRIPS;
  let x = -delta / 2;
  for (let i = 0; i < STRIPS; i++) {
    x += delta;
    shaded[i] = (x >= start1 && x < end1) || (x >= start2 && x < end2) ? 1 : 0;
  }
  return { shaded, front, back };
}

/** The ground's strips from −100 to 199 (the intervals before and after repeat it) as (isotropic, beam) coefficients. */
export class GroundStrips {
  readonly iso = new Float64Array(3 * STRIPS);
  readonly beam = new Float64Array(3 * STRIPS);
  readonly isoSum = new Float64Array(3 * STRIPS + 1);
  readonly beamSum = new Float64Array(3 * STRIPS + 1);
  readonly isoMean: number;
  readonly beamMean: number;
  /** The latest `see`. */
  seenIso = 0;
  seenBeam = 0;

  constructor(cf: Float64Array, shaded: Uint8Array) {
    for (let k = 0; k < 3 * STRIPS; k++) {
      const strip = k % STRIPS;
      this.iso[k] = cf[strip];
      this.beam[k] = shaded[strip] ? TRANSMISSION : 1;
      this.isoSum[k + 1] = this.isoSum[k] + this.iso[k];
      this.beamSum[k + 1] = this.beamSum[k] + this.beam[k];
    }
    this.isoMean = this.isoSum[STRIPS] / STRIPS;
    this.beamMean = this.beamSum[STRIPS] / STRIPS;
  }

  /** The ground seen through an arc from x1 to x2 (in strips, −100 ≤ i1 ≤ i2 < 200 their strips). */
  see(x1: number, x2: number, i1: number, i2: number): void {
    const a = i1 + STRIPS;
    const b = i2 + STRIPS;
    if (a === b) {
      this.seenIso = this.iso[a];
      this.seenBeam = this.beam[a];
      return;
    }
    const first = i1 + 1 - x1;
    const last = x2 - i2;
    this.seenIso = (first * this.iso[a] + (this.isoSum[b] - this.isoSum[a + 1]) + last * this.iso[b]) / (x2 - x1);
    this.seenBeam = (first * this.beam[a] + (this.beamSum[b] - this.beamSum[a + 1]) + last * this.beam[b]) / (x2 - x1);
  }

  seeAll(): void {
    this.seenIso = this.isoMean;
    this.seenBeam = this.beamMean;
  }
}
