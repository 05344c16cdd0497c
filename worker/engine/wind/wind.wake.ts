// Wakes of a laid-out wind farm, as SSC computes them (lib_windwatts.cpp windPowerUsingResource,
// lib_windwakemodel.cpp): the layout turned into downwind and crosswind distances for the step's
// direction, turbines taken from the most upwind one, each turbine's speed reduced by the wakes of
// the turbines upwind of it, and its power read from the curve at that speed.
// - simple: SAM's Pennsylvania (Pat Quinlan) model: a Gaussian velocity deficit whose width grows
//   with the turbulence intensity, which each upwind turbine raises; deficits multiply.
// - park: Jensen (WAsP): a top-hat wake widening by k = 0.07 per metre downwind; the deficit
//   weighted by the rotor area in the wake; the lowest speed of all upwind wakes wins.
// Thrust coefficients come from the power coefficient by SSC's polynomial.
//
// Everything is computed on the sea-level-equivalent speed u = v·(ρ/ρ₀)^(1/3): SSC's power
// coefficient 1000·P/(½·ρ·v³·A) equals 1000·P/(½·ρ₀·u³·A), and a deficit scales v and u alike,
// so a direction's geometry is all a step needs besides u. The geometry of each direction met
// is cached for the calculation (up to a budget of turbine pairs).
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';

/** SAM's Park wake decay constant. */
export const PARK_K = 0.07;
/** SSC's Park thrust coefficient bounds. */
const PARK_MIN_CT = 0.02;
const PARK_MAX_CT = 0.999;
/** The simple model ignores turbines more than 20 rotor radii aside (SSC). */
const SIMPLE_MAX_CROSS_RADII = 20;
/** Pairs of turbines kept in the per-direction cache: ~28 bytes each. */
const CACHE_PAIRS = 1_000_000;
/** The cache's storage grows by blocks of at least this many pairs (and of this many turbines' ranks). */
const BLOCK_PAIRS = 1 << 15;
/** The simple model's Gaussian is cut at exp(−99), as SSC cuts it. */
const MAX_EXPONENT = 99;
/** e^(−i/64) for i = 0 … 64·99 + 1: expNegative's table (51 kB, once per process). */
const EXP_STEPS = 64;
const EXP_TABLE = Float64Array.from({ length: EXP_STEPS * MAX_EXPONENT + 2 }, (_, i) => Math.exp(-i / EXP_STEPS));
/** 1.5·2⁵²: x + ROUNDER − ROUNDER is x rounded to an integer (to even on a tie) for |x| < 2⁵¹. */
const ROUNDER = 6755399441055744;

/**
 * e^(−q) for 0 ≤ q ≤ 99, within 1.6·10⁻¹⁰ of Math.exp relatively and several times faster: the
 * table's nearest point e^(−i/64) times e^r for the rest r = i/64 − q (|r| ≤ 1/128, exact), by its
 * Taylor series to r³ (the next term is below 1.6·10⁻¹⁰ of the value). The simple wake model takes
 * one per turbine pair and step: this is much of its time. The error is an approximation, kept
 * on purpose: it moves a turbine's wake deficit by 1.6·10⁻¹⁰ of itself at most, the farm's hourly
 * output by about 10⁻¹¹ (docs/resource.md), a million times inside the 0.01 % held against SSC.
 * i/64 is rounded in floating point (no integer conversion on r's path) and the series is summed
 * as 1 + r + r²·(1/2 + r/6), not by Horner's rule: a shorter chain of dependent operations.
 */
export function expNegative(q: number): number {
  const point = q * EXP_STEPS + ROUNDER - ROUNDER;
  const r = point * (1 / EXP_STEPS) - q;
  return EXP_TABLE[point | 0] * (1 + r + r * r * (1 / 2 + r * (1 / 6)));
}

/** lnPositive's table: for the cell [1 + i/128, 1 + (i+1)/128) of the mantissa, ≈ 1/its centre and −ln of that. */
const LN_CELLS = 128;
const LN_INVERSE = Float64Array.from({ length: LN_CELLS }, (_, i) => 1 / (1 + (i + 0.5) / LN_CELLS));
const LN_OF_CELL = LN_INVERSE.map((inv) => -Math.log(inv));
const LN_BITS = new Float64Array(1);
const LN_WORDS = new Uint32Array(LN_BITS.buffer);
/** The high word's index in LN_WORDS: 1 on a little-endian machine. */
const LN_HIGH = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f ? 1 : 0;
/** 2^(−e) for e = −1022 … 1023 at e + 1022: scales x to its mantissa exactly. */
const LN_SCALE = Float64Array.from({ length: 2046 }, (_, i) => 2 ** (1022 - i));

/**
 * ln x for a finite x ≥ 2⁻¹⁰²², within 2 units in the last place of Math.log and several times
 * faster: x = 2^e·m with e from the bits and m = x·2^(−e) (exact), and ln m = −ln(inv) + ln(1 + z)
 * with inv ≈ 1/(m's cell centre) from a table and z = m·inv − 1 (|z| < 1/250), whose series is
 * taken to z⁶. (m is scaled, not written into the bits: reading a double just after writing half
 * of it stalls the processor.) The simple wake model's geometry takes one per pair and direction.
 */
export function lnPositive(x: number): number {
  if (!(x >= 2.2250738585072014e-308 && x < Infinity)) return Math.log(x);
  LN_BITS[0] = x;
  const high = LN_WORDS[LN_HIGH];
  const e = (high >>> 20) - 1023;
  const i = (high >>> 13) & (LN_CELLS - 1);
  const z = x * LN_SCALE[e + 1022] * LN_INVERSE[i] - 1;
  const series = z * (1 - z * (1 / 2 - z * (1 / 3 - z * (1 / 4 - z * (1 / 5 - z * (1 / 6))))));
  return e * Math.LN2 + (LN_OF_CELL[i] + series);
}

type WakeKind = 'simple' | 'park';

/** One direction's geometry: turbines from upwind, and for each the upwind turbines whose wake can reach it. */
interface Geometry {
  /** order[k] = the layout index of the k-th turbine from upwind. */
  order: Int32Array;
  /** Pairs of turbine k are start[k] … start[k+1]−1; `upwind` holds the upwind turbine's rank. */
  start: Int32Array;
  upwind: Int32Array;
  /** simple: crosswind² ÷ (2·axial²), distances in radii; park: the deficit's geometric factor (R/Rw)²·overlap/(πR²). */
  a: Float64Array;
  /** simple: 1 ÷ (4·axial²). */
  b: Float64Array;
  /** simple: (1 − 0.4·ln(2·axial))/7, the added turbulence per unit thrust. */
  c: Float64Array;
}

/**
 * Where geometries are written: a direction's pairs at `used` onward, its ranks (order, start) at
 * `usedRanks` onward, each geometry a set of views. The cache's geometries share blocks (one
 * allocation per block, not six per direction); a geometry past the cache's budget goes to the
 * scratch block, overwritten by the next one.
 */
interface GeometryBlock {
  upwind: Int32Array;
  a: Float64Array;
  b: Float64Array;
  c: Float64Array;
  ranks: Int32Array;
  used: number;
  usedRanks: number;
}

function geometryBlock(pairs: number, ranks: number): GeometryBlock {
  return {
    upwind: new Int32Array(pairs),
    a: new Float64Array(pairs),
    b: new Float64Array(pairs),
    c: new Float64Array(pairs),
    ranks: new Int32Array(ranks),
    used: 0,
    usedRanks: 0,
  };
}

export interface FarmWake {
  kind: WakeKind;
  x: Float64Array;
  y: Float64Array;
  rotorDiameterM: number;
  turbulenceIntensity: number;
  byDirection: Map<number, Geometry>;
  cachedPairs: number;
  /** An upper bound on any turbine's thrust coefficient (thrustBound), Infinity when not known. */
  ctMax: number;
  /** The rotor's swept area, m² (SSC's thrust coefficient's). */
  areaM2: number;
  /** Scratch per rank: speed, thrust coefficient. */
  u: Float64Array;
  ct: Float64Array;
  /** Scratch of rankTurbines: per turbine, downwind and crosswind distances. */
  down: Float64Array;
  cross: Float64Array;
  /** Scratch of buildGeometry: per pair, the most turbulence its turbine can have there. */
  turbulenceMax: Float64Array;
  /** Scratch of turbinePairs: the upwind turbines (ranks) whose wake can reach a turbine. */
  candidates: Int32Array;
  /** The block the cache is filling (null before the first direction), and the scratch block. */
  block: GeometryBlock | null;
  scratch: GeometryBlock;
}

export function prepareWake(
  layout: NonNullable<ResolvedInputs['wind']['layout']>,
  rotorDiameterM: number,
  wind: ResolvedInputs['wind'],
  ctMax = Number.POSITIVE_INFINITY,
): FarmWake {
  const n = layout.x_m.length;
  const pairs = (n * (n - 1)) / 2;
  return {
    kind: wind.wake_model === 'park' ? 'park' : 'simple',
    x: Float64Array.from(layout.x_m),
    y: Float64Array.from(layout.y_m),
    rotorDiameterM,
    turbulenceIntensity: wind.turbulence_intensity,
    byDirection: new Map(),
    cachedPairs: 0,
    ctMax,
    areaM2: (Math.PI / 4) * rotorDiameterM * rotorDiameterM,
    u: new Float64Array(n),
    ct: new Float64Array(n),
    down: new Float64Array(n),
    cross: new Float64Array(n),
    turbulenceMax: new Float64Array(pairs),
    candidates: new Int32Array(n),
    block: null,
    scratch: geometryBlock(pairs, 2 * n + 1),
  };
}

/** Area of the overlap of two circles (SSC's circle_overlap). */
export function circleOverlap(d: number, r1: number, r2: number): number {
  if (d < 0 || r1 < 0 || r2 < 0 || d >= r1 + r2) return 0;
  if (r1 >= d + r2) return Math.PI * r2 * r2;
  if (r2 >= d + r1) return Math.PI * r1 * r1;
  const t1 = r1 * r1 * Math.acos((d * d + r1 * r1 - r2 * r2) / (2 * d * r1));
  const t2 = r2 * r2 * Math.acos((d * d + r2 * r2 - r1 * r1) / (2 * d * r2));
  const t3 = 0.5 * Math.sqrt((-d + r1 + r2) * (d + r1 - r2) * (d - r1 + r2) * (d + r1 + r2));
  return t1 + t2 - t3;
}

/**
 * The turbines from upwind for a direction (SSC's order: by downwind distance, ties by index, as
 * its insertion sort leaves them), and into the scratch their downwind and crosswind distances in
 * rotor radii from the most upwind point, by rank.
 */
function rankTurbines(wake: FarmWake, directionDeg: number, order: Int32Array): void {
  const n = wake.x.length;
  const { down: d, cross: c } = wake;
  const rad = ((directionDeg + 90) * Math.PI) / 180;
  const cos = Math.cos(rad);
  const sin = Math.sin(rad);
  let dMin = Infinity;
  let cMin = Infinity;
  for (let i = 0; i < n; i++) {
    const di = wake.x[i] * cos - wake.y[i] * sin;
    const ci = wake.x[i] * sin + wake.y[i] * cos;
    if (di < dMin) dMin = di;
    if (ci < cMin) cMin = ci;
  }
  // Insertion sort by downwind distance (stable), the distances moved with their turbines.
  for (let i = 0; i < n; i++) {
    const di = (2 * (wake.x[i] * cos - wake.y[i] * sin - dMin)) / wake.rotorDiameterM;
    const ci = (2 * (wake.x[i] * sin + wake.y[i] * cos - cMin)) / wake.rotorDiameterM;
    let k = i;
    for (; k > 0 && d[k - 1] > di; k--) {
      d[k] = d[k - 1];
      c[k] = c[k - 1];
      order[k] = order[k - 1];
    }
    d[k] = di;
    c[k] = ci;
    order[k] = i;
  }
}

/** A pair is tested by nilDeficit only if its Gaussian's exponent is at least this at the most turbulence. */
const NIL_TESTED_Q = 30;
/** Below this (a quarter of what 1 − x = 1 needs: 2⁻⁵⁴), a deficit rounds away. */
const NIL_DEFICIT = 2 ** -56;

/**
 * Whether a simple-model pair's deficit ct·b/t·e^(−min(a/t, 99)) is below NIL_DEFICIT for every
 * thrust coefficient ct ≤ ctMax and turbulence t in [ti0, tMax] (a ≥ tMax here): then 1 − deficit
 * is exactly 1 and the pair only adds its turbulence. Over t, e^(−a/t)/t rises up to t = a, so its
 * largest is at tMax, or at ti0 where the exponent is cut at 99 (e^(−99)/t falls).
 */
function nilDeficit(a: number, b: number, ctMax: number, ti0: number, tMax: number): boolean {
  const q = a / tMax;
  const most = ctMax * b;
  if (!(most * expNegative(q > MAX_EXPONENT ? MAX_EXPONENT : q) < NIL_DEFICIT * tMax)) return false;
  return !(a > MAX_EXPONENT * ti0) || most * expNegative(MAX_EXPONENT) < NIL_DEFICIT * ti0;
}

/** A direction's geometry, written into `block` after what it holds. */
function buildGeometry(wake: FarmWake, directionDeg: number, block: GeometryBlock): Geometry {
  const n = wake.x.length;
  const { upwind, a, b, c, ranks } = block;
  const order = ranks.subarray(block.usedRanks, block.usedRanks + n);
  const start = ranks.subarray(block.usedRanks + n, block.usedRanks + 2 * n + 1);
  rankTurbines(wake, directionDeg, order);
  const base = block.used;
  let m = base;
  // Each turbine's pairs by a function of its own (short calls V8 optimizes as they come, not a
  // long loop compiled on the fly, whose code after the loop had no type feedback and was undone).
  for (let k = 0; k < n; k++) {
    start[k] = m;
    m = turbinePairs(wake, block, k, m, base);
  }
  start[n] = m;
  // Pair indices relative to the geometry's own views.
  for (let k = 0; k <= n; k++) start[k] -= base;
  block.used = m;
  block.usedRanks += 2 * n + 1;
  return {
    order,
    start,
    upwind: upwind.subarray(base, m),
    a: a.subarray(base, m),
    b: b.subarray(base, m),
    c: c.subarray(base, m),
  };
}

/** Turbine k's pairs (k a rank), written into `block` from pair `from` on (`base`: the geometry's first); returns the end. */
function turbinePairs(wake: FarmWake, block: GeometryBlock, k: number, from: number, base: number): number {
  const { down, cross, ctMax, turbulenceMax, candidates } = wake;
  const { upwind, a, b, c } = block;
  const radius = wake.rotorDiameterM / 2;
  const simple = wake.kind === 'simple';
  const ti0 = wake.turbulenceIntensity * wake.turbulenceIntensity;
  let m = from;
  if (simple) {
    // The upwind turbines a wake can reach, first without a branch (whether one lies within 20
    // radii aside is ~3 to 1 and not predictable: a branch on it mispredicted a quarter of the
    // time), then their pairs. The test is SSC's velDeltaPQ's, which returns before touching the
    // turbulence for the others.
    const dk = down[k];
    const ck = cross[k];
    let count = 0;
    for (let j = 0; j < k; j++) {
      candidates[count] = j;
      count += +!(Math.abs(cross[j] - ck) > SIMPLE_MAX_CROSS_RADII) & +!(Math.abs(down[j] - dk) <= 0);
    }
    // The most turbulence turbine k can have accumulated by each of its pairs: every upwind
    // turbine at the largest thrust coefficient, summed in the model's order.
    let tMax = ti0;
    for (let q = 0; q < count; q++) {
      const j = candidates[q];
      const axial = Math.abs(down[j] - dk);
      const aside = Math.abs(cross[j] - ck);
      const perAxial2 = 1 / (axial * axial);
      a[m] = 0.5 * aside * aside * perAxial2;
      b[m] = 0.25 * perAxial2;
      c[m] = (1 - 0.4 * lnPositive(2 * axial)) / 7;
      const added = ctMax * c[m];
      tMax = added * added + tMax;
      turbulenceMax[m - base] = tMax;
      upwind[m++] = j;
    }
  } else {
    for (let j = 0; j < k; j++) {
      const axial = Math.abs(down[j] - down[k]);
      const aside = Math.abs(cross[j] - cross[k]);
      const wakeRadius = radius + PARK_K * radius * axial;
      const overlap = circleOverlap(radius * aside, radius, wakeRadius);
      if (overlap <= 0) continue;
      a[m] = (radius / wakeRadius) ** 2 * (overlap / (Math.PI * radius * radius));
      upwind[m++] = j;
    }
  }
  // A pair whose deficit is nil (1 − deficit is exactly 1) only adds turbulence, which is turbine
  // k's own: after its last pair with a deficit, no pair changes its speed. (Nil pairs before
  // that one stay: their turbulence counts. In the AZ farm ~10 % of the pairs are nil, nearly
  // all of them last: the nearest turbines upwind, far aside.)
  if (simple) {
    while (m > from) {
      const p = m - 1;
      const t = turbulenceMax[p - base];
      if (!(a[p] >= NIL_TESTED_Q * t && nilDeficit(a[p], b[p], ctMax, ti0, t))) break;
      m = p;
    }
  }
  return m;
}

/** A direction's geometry: cached, or built and kept (`keep`, within the budget), or built in the scratch block. */
function geometryOf(wake: FarmWake, directionDeg: number, keep = true): Geometry {
  const cached = wake.byDirection.get(directionDeg);
  if (cached) return cached;
  const n = wake.x.length;
  const most = wake.scratch.a.length;
  if (!keep || wake.cachedPairs + most > CACHE_PAIRS) {
    // Not wanted again, or past the budget (a direction may need all pairs): not kept.
    wake.scratch.used = 0;
    wake.scratch.usedRanks = 0;
    return buildGeometry(wake, directionDeg, wake.scratch);
  }
  let block = wake.block;
  if (!block || block.used + most > block.a.length || block.usedRanks + 2 * n + 1 > block.ranks.length) {
    const pairs = Math.max(most, BLOCK_PAIRS);
    block = wake.block = geometryBlock(pairs, Math.max(2 * n + 1, BLOCK_PAIRS));
  }
  const g = buildGeometry(wake, directionDeg, block);
  wake.byDirection.set(directionDeg, g);
  wake.cachedPairs += g.upwind.length;
  return g;
}

/** SSC's thrust coefficient from the power coefficient (turbinePower), 0 when the turbine makes nothing. */
export function thrustCoefficient(kw: number, u: number, rotorDiameterM: number, rhoSeaLevel: number): number {
  return thrustOf(kw, u, 0.5 * rhoSeaLevel, (Math.PI / 4) * rotorDiameterM * rotorDiameterM);
}

/** thrustCoefficient with ½·ρ₀ and the rotor's area given (the same operations in the same order). */
function thrustOf(kw: number, u: number, halfRho: number, area: number): number {
  if (!(kw > 0)) return 0;
  const cp = Math.max(0, (1000 * kw) / (halfRho * u * u * u * area));
  return Math.max(0, -1.453989e-2 + 1.473506 * cp - 2.330823 * cp * cp + 3.885123 * cp * cp * cp);
}

/**
 * An upper bound on thrustCoefficient(curveKw(table, u), u) over every speed u: the power
 * coefficient's largest (kW/u³ on a segment kW = α + βu is largest at an end or where it turns,
 * u = −3α/2β; and at the last point), through SSC's polynomial, which rises with the power
 * coefficient (its derivative has no real root); with a margin for rounding. Infinity when the
 * curve makes power down to 0 m/s (the coefficient is unbounded there).
 */
export function thrustBound(table: PowerTable, rotorDiameterM: number, rhoSeaLevel: number): number {
  const { speeds, intercept, slope, powersKw } = table;
  const lastAt = speeds.length - 1;
  if (lastAt < 0) return 0;
  const last = speeds[lastAt];
  let most = 0;
  if (powersKw[lastAt] > 0) {
    if (!(last > 0)) return Number.POSITIVE_INFINITY;
    most = powersKw[lastAt] / (last * last * last);
  }
  for (let j = 0; j < lastAt; j++) {
    const from = speeds[j];
    const to = speeds[j + 1];
    const alpha = intercept[j];
    const beta = slope[j];
    if (!(to > from)) continue;
    if (!(from > 0)) {
      if (alpha + beta * to > 0 || alpha + beta * Math.max(from, 0) > 0) return Number.POSITIVE_INFINITY;
      continue;
    }
    const turn = beta !== 0 ? (-3 * alpha) / (2 * beta) : from;
    for (const u of [from, to, turn > from && turn < to ? turn : from]) {
      const per = (alpha + beta * u) / (u * u * u);
      if (per > most) most = per;
    }
  }
  const cp = ((1000 * most) / (0.5 * rhoSeaLevel * ((Math.PI / 4) * rotorDiameterM * rotorDiameterM))) * (1 + 1e-9);
  const ct = -1.453989e-2 + 1.473506 * cp - 2.330823 * cp * cp + 3.885123 * cp * cp * cp;
  return Number.isFinite(ct) ? Math.max(0, ct) * (1 + 1e-9) + 1e-12 : Number.POSITIVE_INFINITY;
}

export interface TurbineCurve {
  /** One turbine's kW at the sea-level-equivalent speed: curveKw(table, u). */
  table: PowerTable;
  rhoSeaLevel: number;
}

/** A power curve as the wind model keeps it: linear between breakpoints, 0 outside. */
export interface PowerTable {
  /** Breakpoints sorted by speed: effective (sea-level-equivalent) speed, m/s, and kW. */
  readonly speeds: Float64Array;
  readonly powersKw: Float64Array;
  /** Segment j, on effective speed u: one turbine's kW = intercept[j] + slope[j]·u. */
  readonly intercept: Float64Array;
  readonly slope: Float64Array;
  /** For each lookup cell [c·step, (c+1)·step): the last segment that starts at or below the cell's start. */
  readonly cellSegment: Int32Array;
  readonly cellsPerMs: number;
}

/** One turbine's kW at the sea-level-equivalent speed u: the curve, linear between points, 0 outside. */
export function curveKw(table: PowerTable, u: number): number {
  const { speeds, powersKw, intercept, slope, cellSegment, cellsPerMs } = table;
  const lastAt = speeds.length - 1;
  return segmentKw(speeds, intercept, slope, cellSegment, cellsPerMs, speeds[0], speeds[lastAt], powersKw[lastAt], u);
}

/** curveKw on the table's fields, which a caller in a loop reads once; first and last: the end speeds, lastKw: the last point's kW. */
function segmentKw(
  speeds: Float64Array,
  intercept: Float64Array,
  slope: Float64Array,
  cellSegment: Int32Array,
  cellsPerMs: number,
  first: number,
  last: number,
  lastKw: number,
  u: number,
): number {
  if (u > first && u < last) {
    let j = cellSegment[(u * cellsPerMs) | 0];
    while (speeds[j + 1] <= u) j++;
    return intercept[j] + slope[j] * u;
  }
  return u === last ? lastKw : 0;
}

/** The farm's kW at free-stream (sea-level-equivalent) speed u from a direction, wakes included. */
export function farmWakeKw(curve: TurbineCurve, wake: FarmWake, u: number, directionDeg: number): number {
  const n = wake.x.length;
  const kw0 = curveKw(curve.table, u);
  if (n < 2) return kw0;
  if (!(kw0 > 0)) return 0;
  const g = geometryOf(wake, directionDeg);
  const { u: speed, ct, areaM2 } = wake;
  const halfRho = 0.5 * curve.rhoSeaLevel;
  speed[0] = u;
  ct[0] = thrustOf(kw0, u, halfRho, areaM2);
  let total = kw0;
  const ti0 = wake.turbulenceIntensity * wake.turbulenceIntensity;
  const { start, upwind, a, b, c } = g;
  const simple = wake.kind === 'simple';
  for (let k = 1; k < n; k++) {
    let uk = u;
    if (simple) {
      let deficit = 1;
      let t2 = ti0;
      for (let p = start[k], end = start[k + 1]; p < end; p++) {
        // A turbine that makes nothing (ct 0) adds nothing and takes nothing: no branch for it.
        const ctj = ct[upwind[p]];
        const added = ctj * c[p];
        t2 = added * added + t2;
        // SSC's deficit ct/(4·t2·axial²)·exp(−crosswind²/(2·t2·axial²)), with one division.
        const perTi2 = 1 / t2;
        const q = a[p] * perTi2;
        const peak = ctj * b[p] * perTi2;
        // Far outside the Gaussian (q > 40 with peak < 1) vdef < 2⁻⁵⁶ and 1 − vdef rounds to 1
        // exactly: taking exp anyway is cheaper than a branch the processor cannot predict.
        const vdef = peak * expNegative(q > MAX_EXPONENT ? MAX_EXPONENT : q);
        deficit *= 1 - (vdef > 1 ? 1 : vdef < 0 ? 0 : vdef);
      }
      uk = u * deficit;
    } else {
      for (let p = start[k], end = start[k + 1]; p < end; p++) {
        const j = upwind[p];
        const ctj = Math.max(Math.min(PARK_MAX_CT, ct[j]), PARK_MIN_CT);
        const candidate = speed[j] * (1 - (1 - Math.sqrt(1 - ctj)) * a[p]);
        if (candidate < uk) uk = candidate;
      }
    }
    speed[k] = uk;
    const kw = curveKw(curve.table, uk);
    ct[k] = thrustOf(kw, uk, halfRho, areaM2);
    total += kw;
  }
  return total;
}

/** Steps of one direction computed together (farmWakeKwSteps): scratch of n × BATCH values. */
const BATCH = 32;

/**
 * farmWakeKw of every step: out[s] = farmWakeKw(curve, wake, u[s], directionDeg[s]), the same
 * numbers to the bit. The simple model takes the steps of each direction together, up to BATCH at a
 * time, each turbine pair once for all of them: a step's turbines depend on each other in turn
 * (a turbine's thrust feeds the next one's deficit), so one step at a time waits on that chain,
 * while steps of a batch are independent and overlap. Each step's operations are farmWakeKw's,
 * in its order. Each direction's geometry is used once here: `keepGeometries` false (the last or
 * only year of a resource) builds them in the scratch block instead of keeping them for later calls.
 */
export function farmWakeKwSteps(
  curve: TurbineCurve,
  wake: FarmWake,
  u: Float64Array,
  directionDeg: Float64Array,
  out: Float64Array,
  keepGeometries = true,
): void {
  const n = wake.x.length;
  const steps = u.length;
  if (n < 2 || wake.kind !== 'simple') {
    for (let s = 0; s < steps; s++) out[s] = farmWakeKw(curve, wake, u[s], directionDeg[s]);
    return;
  }
  // The steps that make power, by direction, in order.
  const byDirection = new Map<number, number[]>();
  for (let s = 0; s < steps; s++) {
    const kw0 = curveKw(curve.table, u[s]);
    out[s] = kw0;
    if (!(kw0 > 0)) {
      out[s] = 0;
      continue;
    }
    const d = directionDeg[s];
    const list = byDirection.get(d);
    if (list) list.push(s);
    else byDirection.set(d, [s]);
  }
  const batch = new Int32Array(BATCH);
  const ct = new Float64Array(n * BATCH);
  const t2 = new Float64Array(BATCH);
  const deficit = new Float64Array(BATCH);
  const free = new Float64Array(BATCH);
  const speed = new Float64Array(BATCH);
  const total = new Float64Array(BATCH);
  for (const [d, list] of byDirection) {
    const g = geometryOf(wake, d, keepGeometries);
    for (let from = 0; from < list.length; from += BATCH) {
      const m = Math.min(BATCH, list.length - from);
      for (let i = 0; i < m; i++) batch[i] = list[from + i];
      simpleBatch(curve, wake, g, u, batch, m, ct, t2, deficit, free, speed, total, out);
    }
  }
}

/** farmWakeKw's simple model for the m steps of `batch` (one direction); out[s] holds kw0 and gets the farm's kW. */
function simpleBatch(
  curve: TurbineCurve,
  wake: FarmWake,
  g: Geometry,
  u: Float64Array,
  batch: Int32Array,
  m: number,
  ct: Float64Array,
  t2: Float64Array,
  deficit: Float64Array,
  free: Float64Array,
  speed: Float64Array,
  total: Float64Array,
  out: Float64Array,
): void {
  const n = wake.x.length;
  const { areaM2 } = wake;
  const halfRho = 0.5 * curve.rhoSeaLevel;
  const ti0 = wake.turbulenceIntensity * wake.turbulenceIntensity;
  const { start } = g;
  const { table } = curve;
  // ct of rank k, step i at k·m + i; free[i]: step i's kW of a turbine in the free stream;
  // speed[i]: its speed; total[i]: the farm's kW so far, added in farmWakeKw's order.
  for (let i = 0; i < m; i++) {
    const s = batch[i];
    free[i] = out[s];
    speed[i] = u[s];
    total[i] = out[s];
    ct[i] = thrustOf(out[s], u[s], halfRho, areaM2);
  }
  // Each turbine's work in functions of their own: short calls that V8 optimizes as they come,
  // where one long function's loops are compiled on the fly (on-stack replacement), which
  // sometimes left it in slower code for the rest of the process.
  for (let k = 1; k < n; k++) {
    if (start[k] === start[k + 1]) {
      // No wake reaches turbine k: its deficit is 1, its speed u·1 = u, its kW and ct the first's.
      const at = k * m;
      for (let i = 0; i < m; i++) {
        ct[at + i] = ct[i];
        total[i] += free[i];
      }
      continue;
    }
    turbineDeficits(g, k, m, ti0, ct, t2, deficit);
    turbineOutputs(table, k, m, speed, deficit, halfRho, areaM2, ct, total);
  }
  for (let i = 0; i < m; i++) out[batch[i]] = total[i];
}

/** The deficit of turbine k (rank) in each of the m steps: farmWakeKw's pair loop, step by step. */
function turbineDeficits(
  g: Geometry,
  k: number,
  m: number,
  ti0: number,
  ct: Float64Array,
  t2: Float64Array,
  deficit: Float64Array,
): void {
  const { start, upwind, a, b, c } = g;
  for (let i = 0; i < m; i++) {
    deficit[i] = 1;
    t2[i] = ti0;
  }
  const end = start[k + 1];
  let p = start[k];
  // Two pairs at a time: a step's turbulence and deficit read and written once for both, the
  // loop's own work (bounds, counter, interrupt check) once; each step's operations are the
  // one-pair loop's below, in the same order.
  for (; p + 1 < end; p += 2) {
    const from0 = upwind[p] * m;
    const a0 = a[p] * EXP_STEPS;
    const b0 = b[p];
    const c0 = c[p];
    const from1 = upwind[p + 1] * m;
    const a1 = a[p + 1] * EXP_STEPS;
    const b1 = b[p + 1];
    const c1 = c[p + 1];
    for (let i = 0; i < m; i++) {
      const ct0 = ct[from0 + i];
      const added0 = ct0 * c0;
      const t0 = added0 * added0 + t2[i];
      const per0 = 1 / t0;
      const q0 = a0 * per0;
      const z0 = q0 > MAX_EXPONENT * EXP_STEPS ? MAX_EXPONENT * EXP_STEPS : q0;
      const point0 = z0 + ROUNDER - ROUNDER;
      const r0 = (point0 - z0) * (1 / EXP_STEPS);
      const vdef0 = ct0 * b0 * per0 * (EXP_TABLE[point0 | 0] * (1 + r0 + r0 * r0 * (1 / 2 + r0 * (1 / 6))));
      const ct1 = ct[from1 + i];
      const added1 = ct1 * c1;
      const t1 = added1 * added1 + t0;
      t2[i] = t1;
      const per1 = 1 / t1;
      const q1 = a1 * per1;
      const z1 = q1 > MAX_EXPONENT * EXP_STEPS ? MAX_EXPONENT * EXP_STEPS : q1;
      const point1 = z1 + ROUNDER - ROUNDER;
      const r1 = (point1 - z1) * (1 / EXP_STEPS);
      const vdef1 = ct1 * b1 * per1 * (EXP_TABLE[point1 | 0] * (1 + r1 + r1 * r1 * (1 / 2 + r1 * (1 / 6))));
      deficit[i] = deficit[i] * (1 - (vdef0 > 1 ? 1 : vdef0)) * (1 - (vdef1 > 1 ? 1 : vdef1));
    }
  }
  for (; p < end; p++) {
    const from = upwind[p] * m;
    const ap = a[p];
    const bp = b[p];
    const cp = c[p];
    // expNegative(q) inline, on 64·q = (64·a)/t2 (exact: a power of two's multiple): the same
    // numbers (64·q's rounding, point − 64·q = 64·r exactly), one multiplication less a pair.
    const ap64 = ap * EXP_STEPS;
    for (let i = 0; i < m; i++) {
      // As farmWakeKw, step by step.
      const ctj = ct[from + i];
      const added = ctj * cp;
      const t = added * added + t2[i];
      t2[i] = t;
      const perTi2 = 1 / t;
      const q64 = ap64 * perTi2;
      const z = q64 > MAX_EXPONENT * EXP_STEPS ? MAX_EXPONENT * EXP_STEPS : q64;
      const point = z + ROUNDER - ROUNDER;
      const r = (point - z) * (1 / EXP_STEPS);
      const peak = ctj * bp * perTi2;
      const vdef = peak * (EXP_TABLE[point | 0] * (1 + r + r * r * (1 / 2 + r * (1 / 6))));
      // vdef ≥ 0 (ct, b and 1/t2 are): only the upper clamp can apply.
      deficit[i] *= 1 - (vdef > 1 ? 1 : vdef);
    }
  }
}

/**
 * Turbine k's speed, kW and thrust coefficient in each of the m steps, from its deficits; its kW
 * added to total: curveKw's segmentKw with the table's fields read once a call (read at each
 * step, as curveKw does, they cost ~2 % of the wake year), and thrustOf.
 */
function turbineOutputs(
  table: PowerTable,
  k: number,
  m: number,
  speed: Float64Array,
  deficit: Float64Array,
  halfRho: number,
  areaM2: number,
  ct: Float64Array,
  total: Float64Array,
): void {
  const { speeds, powersKw, intercept, slope, cellSegment, cellsPerMs } = table;
  const lastAt = speeds.length - 1;
  const first = speeds[0];
  const last = speeds[lastAt];
  const lastKw = powersKw[lastAt];
  const at = k * m;
  for (let i = 0; i < m; i++) {
    const uk = speed[i] * deficit[i];
    const kw = segmentKw(speeds, intercept, slope, cellSegment, cellsPerMs, first, last, lastKw, uk);
    ct[at + i] = thrustOf(kw, uk, halfRho, areaM2);
    total[i] += kw;
  }
}
