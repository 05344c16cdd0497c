// The reserve LP's certified fast path (docs/markets.md, "Speed"). Consecutive horizons of one
// calculation have the same matrix and, very often, the same optimal basis: only the costs and
// bounds move. So the last basis HiGHS ended with is kept, factorised here once (sparse LU), and
// each new horizon is first tried on it: the basic variables are solved from the nonbasic ones
// (each at the bound its status names), the row prices from the basic costs, and the result is
// accepted only with a proof of optimality checked in full:
//   - primal: every column within its bounds and every row activity (A x, from the matrix, not from
//     the factors) within its row bounds, to 1e-9 of the bound's scale;
//   - dual: for the row prices y, whatever they are, weak duality bounds every feasible plan's
//     objective by  UB(y) = Σ_i max(y_i·rowLower_i, y_i·rowUpper_i) + Σ_j max(d_j·lower_j, d_j·upper_j),
//     d = c − Aᵀy (every column is bounded; a price on a row's infinite side makes UB infinite);
//   - the gap: UB(y) − cᵀx ≤ 1e-9 × max(1, |cᵀx|).
// A plan that passes is optimal to 1e-9 relative by that inequality alone, however the factors were
// computed. When it fails (the basis changed), HiGHS solves the horizon from that same basis and
// the basis it ends with is factorised for the next horizons.

/** The LP's data in the form both paths share: the matrix by rows (CSR), costs and bounds. */
export interface LpData {
  cols: number;
  rows: number;
  cost: Float64Array;
  colLower: Float64Array;
  colUpper: Float64Array;
  rowLower: Float64Array;
  rowUpper: Float64Array;
  starts: Int32Array;
  index: number[];
  value: number[];
}

/** HiGHS's basis status codes (highs.constants.basisStatus). */
const LOWER = 0;
const BASIC = 1;
const UPPER = 2;

/** A bound this large is HiGHS's infinity. */
const INFINITE = 1e20;
/** Feasibility and gap tolerances of the certificate (relative to max(1, the scale)). */
const PRIMAL_TOL = 1e-9;
const GAP_TOL = 1e-9;
/** The quick look's tolerance on a nonbasic price's sign (the proof decides). */
const DUAL_LOOK = 1e-7;
/**
 * When no kept basis has held for COLD horizons in a row (prices that reshape every day), the path
 * is tried, and a basis factorised, only every PROBE-th horizon: it then costs HiGHS's horizons
 * little (the factorisation is the dearer part).
 */
const COLD = 32;
const PROBE = 16;

/** Whether the next horizon tries the kept bases (and so whether HiGHS's basis is worth factorising). */
export function wanted(path: BasisPath): boolean {
  return path.misses < COLD || path.misses % PROBE === 0;
}

/** A horizon HiGHS solved without the path being tried. */
export function missed(path: BasisPath): void {
  path.misses++;
}

/** Bases kept: the horizons' optimal bases recur (a season's days, weekdays). */
const KEPT = 8;

/** The matrix by columns, built once per matrix. */
interface Csc {
  starts: Int32Array;
  rows: Int32Array;
  values: Float64Array;
}

function toCsc(lp: LpData): Csc {
  const count = new Int32Array(lp.cols + 1);
  for (const j of lp.index) count[j + 1]++;
  for (let j = 0; j < lp.cols; j++) count[j + 1] += count[j];
  const starts = Int32Array.from(count);
  const rows = new Int32Array(lp.index.length);
  const values = new Float64Array(lp.index.length);
  const at = Int32Array.from(count);
  for (let i = 0; i < lp.rows; i++) {
    for (let e = lp.starts[i]; e < lp.starts[i + 1]; e++) {
      const j = lp.index[e];
      rows[at[j]] = i;
      values[at[j]] = lp.value[e];
      at[j]++;
    }
  }
  return { starts, rows, values };
}

/**
 * A basis and its LU factors: Gaussian elimination of B (pivots k = 0…m−1 at row pivotRow[k],
 * basis position pivotPos[k]); L as the multipliers of each step, U as the pivot rows' remaining
 * entries (by basis position).
 */
export interface BasisFactor {
  /** The nonbasic columns (< cols) and row activities (cols + i), and whether each is at its upper bound. */
  nonbasic: Int32Array;
  atUpper: Uint8Array;
  /** Basis position p holds column basic[p] (< cols: a structural column; cols + i: row i's activity). */
  basic: Int32Array;
  pivotRow: Int32Array;
  pivotPos: Int32Array;
  pivot: Float64Array;
  lStart: Int32Array;
  lRow: Int32Array;
  lValue: Float64Array;
  uStart: Int32Array;
  uPos: Int32Array;
  uValue: Float64Array;
}

/** The factorisation's scratch space, kept clear between factorisations. */
interface Scratch {
  dense: Float64Array;
  present: Uint8Array;
  /** Row i's listed columns at rowCols[i·m …], rowLen[i] of them; columns' rows likewise. */
  rowCols: Int32Array;
  colRows: Int32Array;
  rowLen: Int32Array;
  colLen: Int32Array;
  rowCount: Int32Array;
  colCount: Int32Array;
  rowDone: Uint8Array;
  colDone: Uint8Array;
}

function scratch(path: BasisPath, m: number): Scratch {
  path.scratch ??= {
    dense: new Float64Array(m * m),
    present: new Uint8Array(m * m),
    rowCols: new Int32Array(m * m),
    colRows: new Int32Array(m * m),
    rowLen: new Int32Array(m),
    colLen: new Int32Array(m),
    rowCount: new Int32Array(m),
    colCount: new Int32Array(m),
    rowDone: new Uint8Array(m),
    colDone: new Uint8Array(m),
  };
  return path.scratch;
}

/** The certified path's state for one matrix: its columns, the kept basis, and scratch space. */
export interface BasisPath {
  scratch?: Scratch;
  csc: Csc;
  /** The bases kept, the last used first (at most KEPT). */
  factors: BasisFactor[];
  /** Horizons in a row that HiGHS solved (no kept basis certified). */
  misses: number;
  x: Float64Array;
  work: Float64Array;
  y: Float64Array;
}

export function basisPath(lp: LpData): BasisPath {
  const m = lp.rows;
  return {
    csc: toCsc(lp),
    factors: [],
    misses: 0,
    x: new Float64Array(lp.cols),
    work: new Float64Array(m),
    y: new Float64Array(m),
  };
}

/** The basis's variables by status: basic ones (in basis order) and nonbasic ones with their side. */
function split(
  colStatus: Int32Array,
  rowStatus: Int32Array,
  n: number,
  m: number,
): { basic: number[]; nonbasic: number[]; atUpper: number[] } | null {
  const basic: number[] = [];
  const nonbasic: number[] = [];
  const atUpper: number[] = [];
  for (let v = 0; v < n + m; v++) {
    const s = v < n ? colStatus[v] : rowStatus[v - n];
    if (s === BASIC) basic.push(v);
    else if (s === LOWER || s === UPPER) {
      nonbasic.push(v);
      atUpper.push(s === UPPER ? 1 : 0);
    } else return null;
  }
  return basic.length === m ? { basic, nonbasic, atUpper } : null;
}

/** Lists a new entry of the active submatrix. */
function add(sc: Scratch, m: number, i: number, p: number): void {
  sc.present[i * m + p] = 1;
  sc.rowCols[i * m + sc.rowLen[i]++] = p;
  sc.colRows[p * m + sc.colLen[p]++] = i;
  sc.rowCount[i]++;
  sc.colCount[p]++;
}

/**
 * The active submatrix B: dense values (B[i][p] at i·m + p, only listed entries nonzero), with each
 * row's and each column's entries listed (a listed entry stays listed when eliminated or pivoted:
 * the done flags tell).
 */
function load(sc: Scratch, csc: Csc, basic: number[], n: number, m: number): void {
  for (let p = 0; p < m; p++) {
    const v = basic[p];
    if (v >= n) {
      sc.dense[(v - n) * m + p] = -1;
      add(sc, m, v - n, p);
      continue;
    }
    for (let e = csc.starts[v]; e < csc.starts[v + 1]; e++) {
      if (csc.values[e] === 0) continue;
      sc.dense[csc.rows[e] * m + p] = csc.values[e];
      add(sc, m, csc.rows[e], p);
    }
  }
}

/** The next pivot's column: a singleton if any is left, else the sparsest active one. */
function pivotColumn(sc: Scratch, singles: number[], m: number): number {
  while (singles.length > 0) {
    const p = singles.pop() as number;
    if (!sc.colDone[p] && sc.colCount[p] === 1) return p;
  }
  let pc = -1;
  let best = m + 1;
  for (let p = 0; p < m; p++) {
    if (!sc.colDone[p] && sc.colCount[p] < best) {
      best = sc.colCount[p];
      pc = p;
    }
  }
  return pc;
}

/** The pivot's row in column pc: among entries within a tenth of its largest, the sparsest row; −1 when none. */
function pivotRowOf(sc: Scratch, pc: number, m: number): number {
  let largest = 0;
  const rows0 = pc * m;
  const rows1 = rows0 + sc.colLen[pc];
  for (let e = rows0; e < rows1; e++) {
    const i = sc.colRows[e];
    if (!sc.rowDone[i]) largest = Math.max(largest, Math.abs(sc.dense[i * m + pc]));
  }
  if (largest < 1e-11) return -1;
  let pr = -1;
  let prSize = m + 1;
  for (let e = rows0; e < rows1; e++) {
    const i = sc.colRows[e];
    if (!sc.rowDone[i] && Math.abs(sc.dense[i * m + pc]) >= 0.1 * largest && sc.rowCount[i] < prSize) {
      prSize = sc.rowCount[i];
      pr = i;
    }
  }
  return pr;
}

/** The factors as they are written: L's multipliers and U's entries, step by step. */
interface Writing {
  lRow: number[];
  lValue: number[];
  uPos: number[];
  uValue: number[];
}

/** Pivots on (pr, pc): U gets the pivot row's other active entries, L the multipliers that clear pc. */
function eliminate(sc: Scratch, w: Writing, singles: number[], pr: number, pc: number, m: number): void {
  const { dense } = sc;
  const d = dense[pr * m + pc];
  sc.rowDone[pr] = 1;
  sc.colDone[pc] = 1;
  const u0 = w.uPos.length;
  for (let e = pr * m, end = pr * m + sc.rowLen[pr]; e < end; e++) {
    const p = sc.rowCols[e];
    if (sc.colDone[p]) continue;
    w.uPos.push(p);
    w.uValue.push(dense[pr * m + p]);
    if (--sc.colCount[p] === 1) singles.push(p);
  }
  const u1 = w.uPos.length;
  for (let e = pc * m, end = pc * m + sc.colLen[pc]; e < end; e++) {
    const i = sc.colRows[e];
    if (sc.rowDone[i]) continue;
    const a = dense[i * m + pc];
    sc.rowCount[i]--;
    if (a === 0) continue;
    const l = a / d;
    dense[i * m + pc] = 0;
    w.lRow.push(i);
    w.lValue.push(l);
    for (let u = u0; u < u1; u++) {
      const p = w.uPos[u];
      if (!sc.present[i * m + p]) add(sc, m, i, p);
      dense[i * m + p] -= l * w.uValue[u];
    }
  }
}

/** Leaves the scratch space clear for the next factorisation. */
function clear(sc: Scratch, m: number): void {
  for (let i = 0; i < m; i++) {
    for (let e = i * m, end = i * m + sc.rowLen[i]; e < end; e++) {
      sc.dense[i * m + sc.rowCols[e]] = 0;
      sc.present[i * m + sc.rowCols[e]] = 0;
    }
    sc.rowLen[i] = 0;
    sc.colLen[i] = 0;
    sc.rowCount[i] = 0;
    sc.colCount[i] = 0;
    sc.rowDone[i] = 0;
    sc.colDone[i] = 0;
  }
}

/**
 * Factorises the basis HiGHS reported (sparse Gaussian elimination, column singletons first, then the
 * sparsest column with a threshold-partial pivot) and keeps it; false when the statuses are not a
 * basis this path handles or B is numerically singular.
 */
export function factorBasis(path: BasisPath, lp: LpData, colStatus: Int32Array, rowStatus: Int32Array): boolean {
  const m = lp.rows;
  const n = lp.cols;
  const vars = split(colStatus, rowStatus, n, m);
  if (!vars) return false;
  const sc = scratch(path, m);
  load(sc, path.csc, vars.basic, n, m);
  const pivotRow = new Int32Array(m);
  const pivotPos = new Int32Array(m);
  const pivot = new Float64Array(m);
  const lStart = new Int32Array(m + 1);
  const uStart = new Int32Array(m + 1);
  const w: Writing = { lRow: [], lValue: [], uPos: [], uValue: [] };
  const singles: number[] = [];
  for (let p = 0; p < m; p++) if (sc.colCount[p] === 1) singles.push(p);
  let ok = true;
  for (let k = 0; k < m; k++) {
    const pc = pivotColumn(sc, singles, m);
    const pr = pc < 0 ? -1 : pivotRowOf(sc, pc, m);
    if (pr < 0) {
      ok = false;
      break;
    }
    pivotRow[k] = pr;
    pivotPos[k] = pc;
    pivot[k] = sc.dense[pr * m + pc];
    eliminate(sc, w, singles, pr, pc, m);
    uStart[k + 1] = w.uPos.length;
    lStart[k + 1] = w.lRow.length;
  }
  clear(sc, m);
  if (!ok) return false;
  path.factors.unshift({
    nonbasic: Int32Array.from(vars.nonbasic),
    atUpper: Uint8Array.from(vars.atUpper),
    basic: Int32Array.from(vars.basic),
    pivotRow,
    pivotPos,
    pivot,
    lStart,
    lRow: Int32Array.from(w.lRow),
    lValue: Float64Array.from(w.lValue),
    uStart,
    uPos: Int32Array.from(w.uPos),
    uValue: Float64Array.from(w.uValue),
  });
  if (path.factors.length > KEPT) path.factors.pop();
  return true;
}

/** Solves B z = b in place: b indexed by row on entry, z by basis position on return (in `out`). */
function ftran(f: BasisFactor, b: Float64Array, out: Float64Array): void {
  const m = f.pivot.length;
  for (let k = 0; k < m; k++) {
    const v = b[f.pivotRow[k]];
    if (v === 0) continue;
    for (let e = f.lStart[k]; e < f.lStart[k + 1]; e++) b[f.lRow[e]] -= f.lValue[e] * v;
  }
  for (let k = m - 1; k >= 0; k--) {
    let v = b[f.pivotRow[k]];
    for (let e = f.uStart[k]; e < f.uStart[k + 1]; e++) v -= f.uValue[e] * out[f.uPos[e]];
    out[f.pivotPos[k]] = v / f.pivot[k];
  }
}

/** Solves Bᵀ y = c: c indexed by basis position (consumed), y by row on return. */
function btran(f: BasisFactor, c: Float64Array, y: Float64Array): void {
  const m = f.pivot.length;
  for (let k = 0; k < m; k++) {
    const z = c[f.pivotPos[k]] / f.pivot[k];
    y[f.pivotRow[k]] = z;
    if (z === 0) continue;
    for (let e = f.uStart[k]; e < f.uStart[k + 1]; e++) c[f.uPos[e]] -= f.uValue[e] * z;
  }
  for (let k = m - 1; k >= 0; k--) {
    let v = y[f.pivotRow[k]];
    for (let e = f.lStart[k]; e < f.lStart[k + 1]; e++) v -= f.lValue[e] * y[f.lRow[e]];
    y[f.pivotRow[k]] = v;
  }
}

const scale = (v: number) => Math.max(1, Math.abs(v));

/**
 * The horizon on the kept basis: true, with the plan's columns in path.x, when the certificate above
 * holds; false (and nothing to use) otherwise.
 */
export function certify(path: BasisPath, lp: LpData): boolean {
  const { factors } = path;
  path.misses++;
  for (let k = 0; k < factors.length; k++) {
    const f = factors[k];
    if (certifyOn(path, f, lp)) {
      if (k > 0) {
        factors.splice(k, 1);
        factors.unshift(f);
      }
      path.misses = 0;
      return true;
    }
  }
  return false;
}

/** The certificate on one kept basis. */
function certifyOn(path: BasisPath, f: BasisFactor, lp: LpData): boolean {
  const m = lp.rows;
  const n = lp.cols;
  const { x, work, y, csc } = path;
  // The nonbasic values at their bounds, and the right-hand side B x_B = −N x_N.
  work.fill(0);
  for (let k = 0; k < f.nonbasic.length; k++) {
    const v = f.nonbasic[k];
    const up = f.atUpper[k] === 1;
    if (v < n) {
      const value = up ? lp.colUpper[v] : lp.colLower[v];
      if (Math.abs(value) >= INFINITE) return false;
      x[v] = value;
      if (value === 0) continue;
      for (let e = csc.starts[v]; e < csc.starts[v + 1]; e++) work[csc.rows[e]] -= csc.values[e] * value;
    } else {
      const value = up ? lp.rowUpper[v - n] : lp.rowLower[v - n];
      if (Math.abs(value) >= INFINITE) return false;
      work[v - n] += value;
    }
  }
  ftran(f, work, y);
  // A quick look first: the basic values within their bounds (row activities included).
  for (let p = 0; p < m; p++) {
    const v = f.basic[p];
    const value = y[p];
    const lo = v < n ? lp.colLower[v] : lp.rowLower[v - n];
    const hi = v < n ? lp.colUpper[v] : lp.rowUpper[v - n];
    if (value < lo - PRIMAL_TOL * scale(lo) || value > hi + PRIMAL_TOL * scale(hi)) return false;
    if (v < n) x[v] = Math.min(hi, Math.max(lo, value));
  }
  // The row prices: Bᵀ y = c_B (a row activity's cost is 0); a quick look at the nonbasic prices'
  // signs (maximising: at a lower bound d ≤ 0, at an upper d ≥ 0), then the proof.
  for (let p = 0; p < m; p++) {
    const v = f.basic[p];
    work[p] = v < n ? lp.cost[v] : 0;
  }
  btran(f, work, y);
  for (let k = 0; k < f.nonbasic.length; k++) {
    const v = f.nonbasic[k];
    let d: number;
    if (v < n) {
      if (lp.colLower[v] === lp.colUpper[v]) continue;
      d = lp.cost[v];
      for (let e = csc.starts[v]; e < csc.starts[v + 1]; e++) d -= csc.values[e] * y[csc.rows[e]];
    } else {
      if (lp.rowLower[v - n] === lp.rowUpper[v - n]) continue;
      d = y[v - n];
    }
    // A fixed column or an equality row takes a price of either sign.
    if (f.atUpper[k] === 1 ? d < -DUAL_LOOK : d > DUAL_LOOK) return false;
  }
  return proof(lp, csc, x, y);
}

/**
 * The proof: x (every column within its bounds) keeps every row within its bounds, computed from
 * the matrix, and UB(y) − cᵀx ≤ GAP_TOL × max(1, |cᵀx|). y is any vector: a price on a row's infinite
 * side is set to 0 (it would make the bound infinite), which keeps the bound valid.
 */
function proof(lp: LpData, csc: Csc, x: Float64Array, y: Float64Array): boolean {
  const m = lp.rows;
  const n = lp.cols;
  let objective = 0;
  for (let j = 0; j < n; j++) {
    if (x[j] < lp.colLower[j] || x[j] > lp.colUpper[j]) return false;
    objective += lp.cost[j] * x[j];
  }
  let bound = 0;
  for (let i = 0; i < m; i++) {
    let a = 0;
    for (let e = lp.starts[i]; e < lp.starts[i + 1]; e++) a += lp.value[e] * x[lp.index[e]];
    const lo = lp.rowLower[i];
    const hi = lp.rowUpper[i];
    if ((lo > -INFINITE && a < lo - PRIMAL_TOL * scale(lo)) || (hi < INFINITE && a > hi + PRIMAL_TOL * scale(hi))) {
      return false;
    }
    const yi = y[i];
    if (yi === 0) continue;
    const side = yi > 0 ? hi : lo;
    if (Math.abs(side) >= INFINITE) y[i] = 0;
    else bound += yi * side;
  }
  for (let j = 0; j < n; j++) {
    let d = lp.cost[j];
    for (let e = csc.starts[j]; e < csc.starts[j + 1]; e++) d -= csc.values[e] * y[csc.rows[e]];
    bound += d > 0 ? d * lp.colUpper[j] : d * lp.colLower[j];
  }
  return bound - objective <= GAP_TOL * scale(objective);
}
