// The engine's only source of randomness: a seeded sfc32 generator and the few
// normal-distribution helpers the weather synthesis needs. Same seed, same bytes,
// on every platform (32-bit integer arithmetic only, no Math.random).

/** Murmur3's finaliser: a cheap bijective 32-bit mix, so nearby inputs land far apart. */
function fmix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * A seed for one (year, stream) pair. Streams keep e.g. the wind sequence unchanged
 * when the solar synthesis draws a different number of values, and years are
 * independent, so year 7 can be generated without generating years 0–6.
 */
export function deriveSeed(seed: number, yearIndex: number, stream: number): number {
  let h = fmix32((seed >>> 0) ^ 0x9e3779b9);
  h = fmix32((h + Math.imul(yearIndex + 1, 0x85ebca6b)) >>> 0);
  return fmix32((h ^ Math.imul(stream + 1, 0xc2b2ae35)) >>> 0);
}

const TWO_POW_32 = 4294967296;

/** sfc32 (Chris Doty-Humphrey's small fast counting generator), seeded through splitmix32. */
export class Rng {
  // State in a typed array: 32-bit words outside V8's small-integer range would otherwise be
  // boxed as heap numbers on every step.
  private readonly s = new Int32Array(4);
  private spare = 0;
  private hasSpare = false;

  constructor(seed: number) {
    let x = seed >>> 0;
    for (let i = 0; i < 4; i++) {
      x = (x + 0x9e3779b9) >>> 0;
      this.s[i] = fmix32(x);
    }
    // sfc32's first outputs are correlated with the seed words; skip them.
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  nextUint32(): number {
    const s = this.s;
    const a = s[0];
    const b = s[1];
    const c = s[2];
    const d = s[3];
    const t = (((a + b) | 0) + d) | 0;
    s[3] = (d + 1) | 0;
    s[0] = b ^ (b >>> 9);
    s[1] = (c + (c << 3)) | 0;
    s[2] = (((c << 21) | (c >>> 11)) + t) | 0;
    return t >>> 0;
  }

  /** Uniform on the open interval (0, 1): never 0, so log(u) is always finite. */
  uniform(): number {
    return (this.nextUint32() + 0.5) / TWO_POW_32;
  }

  /** Standard normal by Marsaglia's polar method: no trigonometry, two values per accepted pair. */
  normal(): number {
    if (this.hasSpare) {
      this.hasSpare = false;
      return this.spare;
    }
    let u: number;
    let v: number;
    let s: number;
    do {
      u = 2 * this.uniform() - 1;
      v = 2 * this.uniform() - 1;
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    const f = Math.sqrt((-2 * Math.log(s)) / s);
    this.spare = v * f;
    this.hasSpare = true;
    return u * f;
  }
}

/** Standard normal CDF; Abramowitz & Stegun 7.1.26 on erf (|error| < 1.5e-7), ample for synthesis. */
export function normalCdf(x: number): number {
  const z = Math.abs(x) * Math.SQRT1_2;
  const t = 1 / (1 + 0.3275911 * z);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const tail = 0.5 * poly * Math.exp(-z * z);
  return x >= 0 ? 1 - tail : tail;
}

/** Standard normal density. */
export function normalPdf(x: number): number {
  return 0.3989422804014327 * Math.exp(-0.5 * x * x);
}

/** Inverse standard normal CDF, Acklam's rational approximation (relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (p <= 0) return Number.NEGATIVE_INFINITY;
  if (p >= 1) return Number.POSITIVE_INFINITY;
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
  ];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tailP = 0.02425;
  if (p < tailP || p > 1 - tailP) {
    const q = Math.sqrt(-2 * Math.log(p < tailP ? p : 1 - p));
    const x =
      (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
      ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    return p < tailP ? x : -x;
  }
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) /
    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
  );
}

/** ln Γ(x) for x > 0 by the Lanczos approximation (g = 7, 9 terms; ~1e-15 relative). */
export function lnGamma(x: number): number {
  const g = [
    0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531, -176.6150291621406,
    12.507343278686905, -0.13857109526572012, 9.984369578019572e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lnGamma(1 - x);
  const xm = x - 1;
  let sum = g[0];
  for (let i = 1; i < 9; i++) sum += g[i] / (xm + i);
  const t = xm + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (xm + 0.5) * Math.log(t) - t + Math.log(sum);
}
