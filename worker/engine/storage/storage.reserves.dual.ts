// The reserve LP's horizons that no kept basis certifies (storage.reserves.basis.ts), solved by a
// bounded dual simplex started from the most recently used kept basis, before HiGHS is asked
// (docs/markets.md, "Speed"). On the bench's flat prices the optimal basis moves by a few pivots
// when it moves at all; HiGHS's run costs ~300 µs whatever it does. The method:
//   - the LP as  max cᵀx,  A x − s = 0,  colLower ≤ x ≤ colUpper,  rowLower ≤ s ≤ rowUpper  (s: the
//     rows' activities, their basis columns −e_i); minimised here as −cᵀx;
//   - the start basis B0 is the kept basis, whose kernel (storage.reserves.basis.ts) is factorised:
//     B0 = [[K, 0], [A_RB, −I]] (kernel rows, then the rows whose activity is basic), so B0's solves
//     are the kernel's solves and a pass over the basic rows; each pivot adds a product-form eta;
//   - the kept basis was optimal for costs that are nearly always this horizon's (only bounds move),
//     so it is dual feasible; a nonbasic variable whose reduced cost has the wrong sign is moved to
//     its other bound when it has one (else HiGHS);
//   - each iteration: the most infeasible basic variable leaves toward its violated bound, its row of
//     the tableau (ρ = B⁻ᵀ e_p), a two-pass (Harris) ratio test choosing the largest pivot among the
//     near-minimal ratios, the entering column (B⁻¹ a_q, kept as the eta); the basic values and the
//     reduced costs (both computed from scratch at the start) updated by the pivot;
//   - at a primal feasible basis, that basis is factorised and kept like HiGHS's, and the plan is
//     taken only if the certificate (certifyOn: primal feasibility from the matrix, weak-duality gap
//     ≤ 1e-9 relative) holds on it. Anything else (too many iterations, a small pivot, no entering
//     column, a failed certificate) leaves the horizon to HiGHS: the path is exact either way.
import {
  BASIC,
  type BasisFactor,
  type BasisPath,
  btran,
  certifyOn,
  factorBasis,
  ftran,
  INFINITE,
  LOWER,
  type LpBounds,
  PRIMAL_TOL,
  UPPER,
} from './storage.reserves.basis.ts';

/** A reduced cost this close to 0 counts as 0 (the ratio test's slack). */
const DUAL_TOL = 1e-9;
/** The smallest pivot taken. */
const PIVOT_TOL = 1e-7;
/**
 * More iterations than this: HiGHS (its own from its last basis). The bench's flat prices need a
 * median of 3 (the largest 22); prices that reshape every day a median of 18 from the kept basis,
 * where HiGHS does as well.
 */
const MAX_ITERATIONS = 20;

/** The dual simplex's work space for one path (one matrix). */
interface DualWork {
  /** By variable (columns, then rows' activities): status and value. */
  status: Uint8Array;
  value: Float64Array;
  /** Basis position → variable. */
  head: Int32Array;
  /** B0: each basic column's kernel step (−1: not basic in B0); the rows whose activity is basic in B0. */
  colStep: Int32Array;
  basicRows: Int32Array;
  /** The etas: pivot positions and columns (dense, by position). */
  etaPos: number[];
  etaCol: Float64Array[];
  /** Row space and position space vectors. */
  rows: Float64Array;
  rows2: Float64Array;
  positions: Float64Array;
  kernel: Float64Array;
  xB: Float64Array;
  /** By variable: reduced costs and the pivot row's entries. */
  d: Float64Array;
  alpha: Float64Array;
  colStatus: Int32Array;
  rowStatus: Int32Array;
  /** The ratio test's candidates: variable, ratio |d|/|alpha|, pivot |alpha|. */
  candidate: Int32Array;
  candidateRatio: Float64Array;
  candidatePivot: Float64Array;
}

const works = new WeakMap<BasisPath, DualWork>();

function workOf(path: BasisPath): DualWork {
  let w = works.get(path);
  if (!w) {
    const { rows: m, cols: n } = path;
    w = {
      status: new Uint8Array(n + m),
      value: new Float64Array(n + m),
      head: new Int32Array(m),
      colStep: new Int32Array(n),
      basicRows: new Int32Array(m),
      etaPos: [],
      etaCol: [],
      rows: new Float64Array(m),
      rows2: new Float64Array(m),
      positions: new Float64Array(m),
      kernel: new Float64Array(m),
      xB: new Float64Array(m),
      d: new Float64Array(n + m),
      alpha: new Float64Array(n + m),
      colStatus: new Int32Array(n),
      rowStatus: new Int32Array(m),
      candidate: new Int32Array(n + m),
      candidateRatio: new Float64Array(n + m),
      candidatePivot: new Float64Array(n + m),
    };
    works.set(path, w);
  }
  return w;
}

/** A solve's context: the path, the start basis's factor, its basic rows' count, and the etas in use. */
interface Solve {
  path: BasisPath;
  f: BasisFactor;
  w: DualWork;
  basicRowCount: number;
  etas: number;
}

/** z = B⁻¹ b: b by row (read only), z by basis position. */
function ftranB(s: Solve, b: Float64Array, z: Float64Array): void {
  const { f, w, path } = s;
  const { starts, cols, values } = path.csr;
  const { stepRow } = f;
  const r = stepRow.length;
  const { kernel, colStep, basicRows } = w;
  for (let k = 0; k < r; k++) kernel[k] = b[stepRow[k]];
  ftran(f, kernel);
  for (let k = 0; k < r; k++) z[k] = kernel[k];
  for (let q = 0; q < s.basicRowCount; q++) {
    const i = basicRows[q];
    let v = -b[i];
    for (let e = starts[i], e1 = starts[i + 1]; e < e1; e++) {
      const k = colStep[cols[e]];
      if (k >= 0) v += values[e] * kernel[k];
    }
    z[r + q] = v;
  }
  const m = path.rows;
  for (let t = 0; t < s.etas; t++) {
    const p = w.etaPos[t];
    const a = w.etaCol[t];
    const zp = z[p] / a[p];
    z[p] = zp;
    if (zp === 0) continue;
    for (let i = 0; i < m; i++) if (i !== p) z[i] -= a[i] * zp;
  }
}

/** y = B⁻ᵀ c: c by basis position (overwritten), y by row. */
function btranB(s: Solve, c: Float64Array, y: Float64Array): void {
  const { f, w, path } = s;
  const { starts, cols, values } = path.csr;
  const { stepRow } = f;
  const r = stepRow.length;
  const m = path.rows;
  const { kernel, colStep, basicRows } = w;
  for (let t = s.etas - 1; t >= 0; t--) {
    const p = w.etaPos[t];
    const a = w.etaCol[t];
    let v = c[p];
    for (let i = 0; i < m; i++) if (i !== p) v -= a[i] * c[i];
    c[p] = v / a[p];
  }
  y.fill(0);
  for (let k = 0; k < r; k++) kernel[k] = c[k];
  for (let q = 0; q < s.basicRowCount; q++) {
    const i = basicRows[q];
    const yi = -c[r + q];
    y[i] = yi;
    if (yi === 0) continue;
    for (let e = starts[i], e1 = starts[i + 1]; e < e1; e++) {
      const k = colStep[cols[e]];
      if (k >= 0) kernel[k] -= values[e] * yi;
    }
  }
  btran(f, kernel);
  for (let k = 0; k < r; k++) y[stepRow[k]] = kernel[k];
}

/** out_v = Σ_i y_i (A, −I)_{i,v} for every variable v (columns by the matrix's rows, rows' activities −y_i). */
function rowTimes(path: BasisPath, y: Float64Array, out: Float64Array): void {
  const { starts, cols, values } = path.csr;
  const n = path.cols;
  out.fill(0, 0, n);
  for (let i = 0; i < path.rows; i++) {
    const yi = y[i];
    out[n + i] = -yi;
    if (yi === 0) continue;
    for (let e = starts[i], e1 = starts[i + 1]; e < e1; e++) out[cols[e]] += values[e] * yi;
  }
}

function lowerOf(v: number, n: number, lp: LpBounds): number {
  return v < n ? lp.colLower[v] : lp.rowLower[v - n];
}

function upperOf(v: number, n: number, lp: LpBounds): number {
  return v < n ? lp.colUpper[v] : lp.rowUpper[v - n];
}

/** Every variable's reduced cost (minimising −cᵀx) for the current basis: d = c̃ − (A, −I)ᵀ y, B ᵀy = c̃_B. */
function reducedCosts(s: Solve, lp: LpBounds): void {
  const { w, path } = s;
  const n = path.cols;
  const m = path.rows;
  const { positions, head, d, rows } = w;
  for (let p = 0; p < m; p++) positions[p] = head[p] < n ? -lp.cost[head[p]] : 0;
  btranB(s, positions, rows);
  rowTimes(path, rows, d);
  for (let v = 0; v < n + m; v++) d[v] = (v < n ? -lp.cost[v] : 0) - d[v];
}

/**
 * The dual simplex's start: the path's most recently used kept basis, its nonbasic variables at
 * their bounds (a reduced cost of the wrong sign moves its variable to the other bound), the basic
 * values solved; null when a bound the start needs is infinite.
 */
function startFromKept(path: BasisPath, lp: LpBounds): Solve | null {
  const f = path.factors[0];
  if (!f) return null;
  const w = workOf(path);
  const n = path.cols;
  const m = path.rows;
  const { status, value, head, colStep, basicRows, xB, d, rows } = w;
  const { csc } = path;
  // The start: the kept basis's statuses, the nonbasic variables at their bounds.
  status.set(f.state);
  colStep.fill(-1);
  const r = f.stepCol.length;
  for (let k = 0; k < r; k++) {
    colStep[f.stepCol[k]] = k;
    head[k] = f.stepCol[k];
  }
  let q = 0;
  for (let i = 0; i < m; i++) {
    if (status[n + i] !== BASIC) continue;
    basicRows[q] = i;
    head[r + q] = n + i;
    q++;
  }
  const s: Solve = { path, f, w, basicRowCount: q, etas: 0 };
  for (let v = 0; v < n + m; v++) {
    if (status[v] === BASIC) continue;
    const bound = status[v] === UPPER ? upperOf(v, n, lp) : lowerOf(v, n, lp);
    if (Math.abs(bound) >= INFINITE) return null;
    value[v] = bound;
  }
  // Dual feasibility: a reduced cost of the wrong sign moves its variable to the other bound.
  reducedCosts(s, lp);
  for (let v = 0; v < n + m; v++) {
    const st = status[v];
    if (st === BASIC) continue;
    const lo = lowerOf(v, n, lp);
    const hi = upperOf(v, n, lp);
    if (lo === hi) continue;
    if (st === LOWER ? d[v] >= -DUAL_TOL : d[v] <= DUAL_TOL) continue;
    const other = st === LOWER ? hi : lo;
    if (Math.abs(other) >= INFINITE) return null;
    status[v] = st === LOWER ? UPPER : LOWER;
    value[v] = other;
  }
  // The basic values: B x_B = −N x_N (a row's activity's column is −e_i); then updated by each pivot.
  rows.fill(0);
  for (let v = 0; v < n + m; v++) {
    if (status[v] === BASIC) continue;
    const x = value[v];
    if (x === 0) continue;
    if (v >= n) rows[v - n] += x;
    else for (let e = csc.starts[v], e1 = csc.starts[v + 1]; e < e1; e++) rows[csc.rows[e]] -= csc.values[e] * x;
  }
  ftranB(s, rows, xB);
  return s;
}

/**
 * Solves the horizon from the path's most recently used kept basis; true when the end basis is
 * factorised, kept (first) and certified, with the plan's columns in path.x.
 */
export function dualFromKept(path: BasisPath, lp: LpBounds): boolean {
  const s = startFromKept(path, lp);
  if (!s) return false;
  const { w } = s;
  const n = path.cols;
  const m = path.rows;
  const { status, value, head, xB, d, alpha, rows, positions } = w;
  const { csc } = path;
  for (let iteration = 0; ; iteration++) {
    // The leaving variable: the largest infeasibility.
    let p = -1;
    let worst = 0;
    let toLower = false;
    for (let k = 0; k < m; k++) {
      const v = head[k];
      const x = xB[k];
      const lo = lowerOf(v, n, lp);
      const hi = upperOf(v, n, lp);
      const under = lo - PRIMAL_TOL * Math.max(1, Math.abs(lo)) - x;
      const over = x - hi - PRIMAL_TOL * Math.max(1, Math.abs(hi));
      if (under > worst) {
        worst = under;
        p = k;
        toLower = true;
      } else if (over > worst) {
        worst = over;
        p = k;
        toLower = false;
      }
    }
    if (p < 0) break;
    if (iteration >= MAX_ITERATIONS) return false;
    // The pivot row: ρ = B⁻ᵀ e_p, alpha_v = ρᵀ (A, −I)_v.
    positions.fill(0);
    positions[p] = 1;
    btranB(s, positions, w.rows2);
    rowTimes(path, w.rows2, alpha);
    const entering = ratioTest(w, lp, n, m, toLower);
    if (entering < 0) return false;
    // The entering column: B⁻¹ a_q, its pivot checked, kept as an eta.
    rows.fill(0);
    if (entering >= n) rows[entering - n] = -1;
    else
      for (let e = csc.starts[entering], e1 = csc.starts[entering + 1]; e < e1; e++) rows[csc.rows[e]] = csc.values[e];
    const column = s.etas < w.etaCol.length ? w.etaCol[s.etas] : new Float64Array(m);
    if (s.etas === w.etaCol.length) w.etaCol.push(column);
    ftranB(s, rows, column);
    if (Math.abs(column[p]) < PIVOT_TOL) return false;
    w.etaPos[s.etas] = p;
    s.etas++;
    // The reduced costs after the pivot: d − (d_q / alpha_q) alpha (the leaving variable's alpha is 1).
    const step = d[entering] / alpha[entering];
    for (let v = 0; v < n + m; v++) d[v] -= step * alpha[v];
    d[entering] = 0;
    // The basic values: the entering variable moves until the leaving one reaches its bound.
    const leaving = head[p];
    const target = toLower ? lowerOf(leaving, n, lp) : upperOf(leaving, n, lp);
    const move = (xB[p] - target) / column[p];
    for (let k = 0; k < m; k++) xB[k] -= move * column[k];
    xB[p] = value[entering] + move;
    status[leaving] = toLower ? LOWER : UPPER;
    value[leaving] = target;
    status[entering] = BASIC;
    head[p] = entering;
  }
  // Primal feasible (and dual feasible by the ratio tests): kept like HiGHS's basis, then the proof.
  for (let j = 0; j < n; j++) w.colStatus[j] = status[j];
  for (let i = 0; i < m; i++) w.rowStatus[i] = status[n + i];
  if (!factorBasis(path, path, w.colStatus, w.rowStatus)) return false;
  if (certifyOn(path, path.factors[0], lp)) return true;
  path.factors.shift();
  return false;
}

/**
 * The entering variable for a leaving one going to its lower bound (toLower) or its upper: among
 * the nonbasic variables (not fixed) whose move pushes it that way, the largest pivot among those
 * whose ratio |d|/|alpha| is within the smallest ratio allowing DUAL_TOL (Harris's two passes, the
 * second over the first's candidates); −1 when none.
 */
function ratioTest(w: DualWork, lp: LpBounds, n: number, m: number, toLower: boolean): number {
  const { status, d, alpha, candidate, candidateRatio, candidatePivot } = w;
  let count = 0;
  let limit = Number.POSITIVE_INFINITY;
  for (let v = 0; v < n + m; v++) {
    const st = status[v];
    if (st === BASIC) continue;
    const a = st === LOWER ? alpha[v] : -alpha[v];
    if (toLower ? a > -PIVOT_TOL : a < PIVOT_TOL) continue;
    if (lowerOf(v, n, lp) === upperOf(v, n, lp)) continue;
    const dv = Math.max(0, st === LOWER ? d[v] : -d[v]);
    const pivot = Math.abs(a);
    limit = Math.min(limit, (dv + DUAL_TOL) / pivot);
    candidate[count] = v;
    candidateRatio[count] = dv / pivot;
    candidatePivot[count] = pivot;
    count++;
  }
  let best = -1;
  let bestPivot = 0;
  for (let c = 0; c < count; c++) {
    if (candidateRatio[c] <= limit && candidatePivot[c] > bestPivot) {
      bestPivot = candidatePivot[c];
      best = candidate[c];
    }
  }
  return best;
}
