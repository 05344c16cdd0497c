// The reserve LP's certified fast path (docs/markets.md, "Speed"). Consecutive horizons of one
// calculation have the same matrix and, very often, the same optimal basis: only the costs and
// bounds move. So the last bases HiGHS ended with are kept, each factorised here once (sparse LU of
// its kernel: the rows whose activity is at a bound × the basic columns), and each new horizon is
// first tried on them: the basic columns' values are solved from the nonbasic ones (each at the
// bound its status names), the row prices from the basic costs, and the result is accepted only
// with a proof of optimality checked in full:
//   - primal: every column within its bounds and every row activity (A x, from the matrix, not from
//     the factors) within its row bounds, to 1e-9 of the bound's scale;
//   - dual: for the row prices y, whatever they are, weak duality bounds every feasible plan's
//     objective by  UB(y) = Σ_i max(y_i·rowLower_i, y_i·rowUpper_i) + Σ_j max(d_j·lower_j, d_j·upper_j),
//     d = c − Aᵀy (every column is bounded; a price on a row's infinite side makes UB infinite);
//   - the gap: UB(y) − cᵀx ≤ 1e-9 × max(1, |cᵀx|).
// A plan that passes is optimal to 1e-9 relative by that inequality alone, however the factors were
// computed. When it fails on every kept basis (the basis changed), a dual simplex from the first
// kept basis solves the horizon (storage.reserves.dual.ts; its end basis factorised and certified
// the same way), else HiGHS from its own last basis; either's end basis is kept for the next horizons.

import { primalPass } from './storage.reserves.primal.ts';

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
export const LOWER = 0;
export const BASIC = 1;
export const UPPER = 2;

/** A bound this large is HiGHS's infinity. */
export const INFINITE = 1e20;
/** Feasibility and gap tolerances of the certificate (relative to max(1, the scale)). */
export const PRIMAL_TOL = 1e-9;
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
 * A basis and the LU factors of its kernel (factorBasis), numbered by elimination step: step k
 * pivoted on the kernel row of row stepRow[k] and the basic column stepCol[k]; L as the multipliers
 * of each step (by the step of the row they update), U as the pivot rows' remaining entries (by the
 * step of the column they multiply). The solves run in place on arrays indexed by step.
 */
export interface BasisFactor {
  /** Every variable's status (columns, then rows' activities): LOWER, BASIC or UPPER. */
  state: Uint8Array;
  /** The nonbasic columns and whether each is at its upper bound. */
  nbCols: Int32Array;
  nbColUp: Uint8Array;
  /** Step k's row (its activity nonbasic), whether that is at its upper bound, and its column. */
  stepRow: Int32Array;
  stepUp: Uint8Array;
  stepCol: Int32Array;
  pivot: Float64Array;
  lStart: Int32Array;
  lStep: Int32Array;
  lValue: Float64Array;
  uStart: Int32Array;
  uStep: Int32Array;
  uValue: Float64Array;
  /** By step, the row prices; whether each row's price is on a finite side (so in d). */
  y: Float64Array;
  priced: Uint8Array;
  /** The reduced costs c − Aᵀy. */
  d: Float64Array;
  /** The path's costVersion that y, priced and d were computed for (−1: none). */
  dualVersion: number;
  /** By step, its row's entries in nonbasic columns (in the row's order): columns and values. */
  nbStart: Int32Array;
  nbCol: Int32Array;
  nbValue: Float64Array;
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
  /** The matrix by rows. */
  csr: { starts: Int32Array; cols: Int32Array; values: Float64Array };
  /** The bases kept, in the order they are tried (at most KEPT; a new one comes first, the last goes). */
  factors: BasisFactor[];
  /** Horizons in a row that HiGHS solved (no kept basis certified). */
  misses: number;
  /** The basis certified for the last horizon certified. */
  lastHeld: BasisFactor | null;
  cols: number;
  rows: number;
  /** The plan of the last basis that held (storage.reserves.primal.ts puts it here). */
  x: Float64Array;
  /** The costs the bases' prices are computed for, and their version (bumped when one changes). */
  cost: Float64Array;
  costVersion: number;
}

export function basisPath(lp: LpData): BasisPath {
  const m = lp.rows;
  return {
    csc: toCsc(lp),
    csr: { starts: Int32Array.from(lp.starts), cols: Int32Array.from(lp.index), values: Float64Array.from(lp.value) },
    factors: [],
    misses: 0,
    lastHeld: null,
    cols: lp.cols,
    rows: m,
    x: new Float64Array(lp.cols),
    cost: Float64Array.from(lp.cost),
    costVersion: 0,
  };
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
 * The active submatrix: the kernel K (below, factorBasis) as dense values (K[l][p] at l·r + p, only
 * listed entries nonzero), with each row's and each column's entries listed (a listed entry stays
 * listed when eliminated or pivoted: the done flags tell).
 */
function load(sc: Scratch, csc: Csc, basicCols: number[], localRow: Int32Array, r: number): void {
  for (let p = 0; p < r; p++) {
    const j = basicCols[p];
    for (let e = csc.starts[j]; e < csc.starts[j + 1]; e++) {
      const l = localRow[csc.rows[e]];
      if (l < 0 || csc.values[e] === 0) continue;
      sc.dense[l * r + p] = csc.values[e];
      add(sc, r, l, p);
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
 * Factorises the basis HiGHS reported and keeps it; false when the statuses are not a basis this
 * path handles or its kernel is numerically singular. A row whose activity is basic only has its
 * activity computed from the others (B's column for it is −e_i): the basic columns' values are fixed
 * by the rows whose activity is nonbasic, at a bound. So only the kernel K (those rows × the basic
 * columns, square) is factorised (sparse Gaussian elimination, column singletons first, then the
 * sparsest column with a threshold-partial pivot), and a basic row's price is 0.
 */
export function factorBasis(
  path: BasisPath,
  lp: Pick<LpData, 'rows' | 'cols'>,
  colStatus: Int32Array,
  rowStatus: Int32Array,
): boolean {
  const m = lp.rows;
  const n = lp.cols;
  const basicCols: number[] = [];
  const nbCols: number[] = [];
  const nbColUp: number[] = [];
  const kernelRows: number[] = [];
  const nbRowUp: number[] = [];
  const localRow = new Int32Array(m).fill(-1);
  for (let j = 0; j < n; j++) {
    const s = colStatus[j];
    if (s === BASIC) basicCols.push(j);
    else if (s === LOWER || s === UPPER) {
      nbCols.push(j);
      nbColUp.push(s === UPPER ? 1 : 0);
    } else return false;
  }
  for (let i = 0; i < m; i++) {
    const s = rowStatus[i];
    if (s === BASIC) continue;
    if (s !== LOWER && s !== UPPER) return false;
    localRow[i] = kernelRows.length;
    kernelRows.push(i);
    nbRowUp.push(s === UPPER ? 1 : 0);
  }
  const r = basicCols.length;
  if (kernelRows.length !== r) return false;
  const sc = scratch(path, m);
  load(sc, path.csc, basicCols, localRow, r);
  const pivotRow = new Int32Array(r);
  const pivotPos = new Int32Array(r);
  const pivot = new Float64Array(r);
  const lStart = new Int32Array(r + 1);
  const uStart = new Int32Array(r + 1);
  const w: Writing = { lRow: [], lValue: [], uPos: [], uValue: [] };
  const singles: number[] = [];
  for (let p = 0; p < r; p++) if (sc.colCount[p] === 1) singles.push(p);
  let ok = true;
  for (let k = 0; k < r; k++) {
    const pc = pivotColumn(sc, singles, r);
    const pr = pc < 0 ? -1 : pivotRowOf(sc, pc, r);
    if (pr < 0) {
      ok = false;
      break;
    }
    pivotRow[k] = pr;
    pivotPos[k] = pc;
    pivot[k] = sc.dense[pr * r + pc];
    eliminate(sc, w, singles, pr, pc, r);
    uStart[k + 1] = w.uPos.length;
    lStart[k + 1] = w.lRow.length;
  }
  clear(sc, r);
  if (!ok) return false;
  const state = new Uint8Array(n + m);
  for (let v = 0; v < n + m; v++) state[v] = v < n ? colStatus[v] : rowStatus[v - n];
  // Renumbered by step: kernel row pivotRow[k] and basis position pivotPos[k] are step k's.
  const rowStep = new Int32Array(r);
  const posStep = new Int32Array(r);
  const stepRow = new Int32Array(r);
  const stepUp = new Uint8Array(r);
  const stepCol = new Int32Array(r);
  for (let k = 0; k < r; k++) {
    rowStep[pivotRow[k]] = k;
    posStep[pivotPos[k]] = k;
    stepRow[k] = kernelRows[pivotRow[k]];
    stepUp[k] = nbRowUp[pivotRow[k]];
    stepCol[k] = basicCols[pivotPos[k]];
  }
  const { nbStart, nbCol, nbValue } = entriesOutsideBasis(path, state, stepRow);
  path.factors.unshift({
    state,
    nbCols: Int32Array.from(nbCols),
    nbColUp: Uint8Array.from(nbColUp),
    stepRow,
    stepUp,
    stepCol,
    pivot,
    lStart,
    lStep: renumbered(w.lRow, rowStep),
    lValue: Float64Array.from(w.lValue),
    uStart,
    uStep: renumbered(w.uPos, posStep),
    uValue: Float64Array.from(w.uValue),
    y: new Float64Array(r),
    priced: new Uint8Array(r),
    d: new Float64Array(n),
    dualVersion: -1,
    nbStart,
    nbCol,
    nbValue,
  });
  if (path.factors.length > KEPT) path.factors.pop();
  return true;
}

/** Each step's row's entries in nonbasic columns, in the row's order (the kernel's right-hand side). */
function entriesOutsideBasis(
  path: BasisPath,
  state: Uint8Array,
  stepRow: Int32Array,
): { nbStart: Int32Array; nbCol: Int32Array; nbValue: Float64Array } {
  const { starts: rowStarts, cols: rowCols, values: rowValues } = path.csr;
  const r = stepRow.length;
  const nbStart = new Int32Array(r + 1);
  const nbCol: number[] = [];
  const nbValue: number[] = [];
  for (let k = 0; k < r; k++) {
    const i = stepRow[k];
    for (let e = rowStarts[i], e1 = rowStarts[i + 1]; e < e1; e++) {
      if (state[rowCols[e]] === BASIC) continue;
      nbCol.push(rowCols[e]);
      nbValue.push(rowValues[e]);
    }
    nbStart[k + 1] = nbCol.length;
  }
  return { nbStart, nbCol: Int32Array.from(nbCol), nbValue: Float64Array.from(nbValue) };
}

/** Each entry of `list` through `step`. */
function renumbered(list: number[], step: Int32Array): Int32Array {
  const out = new Int32Array(list.length);
  for (let e = 0; e < list.length; e++) out[e] = step[list[e]];
  return out;
}

/** Solves K z = b in place, b and z indexed by step (b: step k's row's right-hand side; z: step k's column's value). */
export function ftran(f: BasisFactor, b: Float64Array): void {
  const { pivot, lStart, lStep, lValue, uStart, uStep, uValue } = f;
  const r = pivot.length;
  for (let k = 0; k < r; k++) {
    const e1 = lStart[k + 1];
    let e = lStart[k];
    if (e === e1) continue;
    const v = b[k];
    if (v === 0) continue;
    for (; e < e1; e++) b[lStep[e]] -= lValue[e] * v;
  }
  for (let k = r - 1; k >= 0; k--) {
    let v = b[k];
    for (let e = uStart[k], e1 = uStart[k + 1]; e < e1; e++) v -= uValue[e] * b[uStep[e]];
    b[k] = v / pivot[k];
  }
}

/** Solves Kᵀ y = c in place, c and y indexed by step (c: step k's column's cost; y: step k's row's price). */
export function btran(f: BasisFactor, c: Float64Array): void {
  const { pivot, lStart, lStep, lValue, uStart, uStep, uValue } = f;
  const r = pivot.length;
  for (let k = 0; k < r; k++) {
    const z = c[k] / pivot[k];
    c[k] = z;
    if (z === 0) continue;
    for (let e = uStart[k], e1 = uStart[k + 1]; e < e1; e++) c[uStep[e]] -= uValue[e] * z;
  }
  for (let k = r - 1; k >= 0; k--) {
    const e1 = lStart[k + 1];
    let e = lStart[k];
    if (e === e1) continue;
    let v = c[k];
    for (; e < e1; e++) v -= lValue[e] * c[lStep[e]];
    c[k] = v;
  }
}

/**
 * The horizon on the kept basis: true, with the plan's columns in path.x, when the certificate above
 * holds; false (and nothing to use) otherwise. Only lp's costs and bounds are read (the matrix is
 * the path's own).
 */
export function certify(path: BasisPath, lp: LpBounds): boolean {
  const { factors } = path;
  path.misses++;
  const { cost } = lp;
  for (let j = 0; j < path.cols; j++) {
    if (cost[j] !== path.cost[j]) {
      path.cost.set(cost);
      path.costVersion++;
      break;
    }
  }
  for (let k = 0; k < factors.length; k++) {
    const f = factors[k];
    if (certifyOn(path, f, lp)) {
      // The first basis tried is the one that held for the last two horizons: a basis that holds for
      // one day between days of another (a weekend, a cloudy day) comes second, not first.
      const to = path.lastHeld === f ? 0 : 1;
      if (k > to) {
        factors.splice(k, 1);
        factors.splice(to, 0, f);
      }
      path.lastHeld = f;
      path.misses = 0;
      return true;
    }
  }
  return false;
}

/** A horizon's costs and bounds (the matrix is fixed for a path). */
export interface LpBounds {
  cost: Float64Array;
  colLower: Float64Array;
  colUpper: Float64Array;
  rowLower: Float64Array;
  rowUpper: Float64Array;
}

/**
 * The certificate on one kept basis, in as few passes as it takes (the primal part, up to every row's
 * activity, in WebAssembly: storage.reserves.primal.ts): the nonbasic columns at their
 * bounds; the kernel's right-hand side from its rows alone (by the matrix's rows), one solve for the
 * basic columns' values and a quick look at their bounds (where a basis that no longer fits nearly
 * always fails, before any pass over the whole matrix); then every row's activity A x (a dot product
 * by the matrix's rows) within its bounds; the row prices and reduced costs (kept with the basis
 * while the costs do not change: the same arithmetic on the same numbers) and the rows' part of the
 * bound; then each column's reduced cost's sign looked at, and its part of the bound.
 */
export function certifyOn(path: BasisPath, f: BasisFactor, lp: LpBounds): boolean {
  const n = path.cols;
  const { cost, colLower, colUpper, rowLower, rowUpper } = lp;
  const { state } = f;
  const r = f.stepCol.length;
  // The primal part, in WebAssembly (storage.reserves.primal.ts): the plan into path.x when it holds.
  if (!primalPass().holds(path, f, lp)) return false;
  const { x } = path;
  if (f.dualVersion !== path.costVersion && !duals(path, f, cost, rowLower, rowUpper)) return false;
  // The rows' part of the bound: Σ max(y_i·lower_i, y_i·upper_i). Maximising, a nonbasic price's
  // sign is looked at (at a lower bound d ≤ 0, at an upper d ≥ 0; a row's d is its y). A price on a
  // row's infinite side was left out of d (it would make the bound infinite: y is any vector, the
  // bound stays valid); should a row's side have changed from infinite to finite or back since d was
  // computed, the horizon is not certified here.
  const { y, d, priced } = f;
  let bound = 0;
  for (let k = 0; k < r; k++) {
    const yi = y[k];
    if (yi === 0) continue;
    const side = pricedSide(f, k, yi, rowLower, rowUpper);
    if (Number.isNaN(side)) return false;
    const finite = Math.abs(side) < INFINITE;
    if (finite !== (priced[k] === 1)) return false;
    if (finite) bound += yi * side;
  }
  // The columns: each nonbasic price's sign looked at, their part of the bound, and the objective.
  let objective = 0;
  for (let j = 0; j < n; j++) {
    const xj = x[j];
    const lo = colLower[j];
    const hi = colUpper[j];
    if (xj < lo || xj > hi) return false;
    const dj = d[j];
    const s = state[j];
    // A fixed column takes a price of either sign.
    if (s !== BASIC && lo !== hi && (s === UPPER ? dj < -DUAL_LOOK : dj > DUAL_LOOK)) return false;
    bound += dj > 0 ? dj * hi : dj * lo;
    objective += cost[j] * xj;
  }
  return bound - objective <= GAP_TOL * Math.max(1, Math.abs(objective));
}

/**
 * The basis's row prices (Kᵀ y_K = c_B; a row whose activity is basic has the price 0) and reduced
 * costs d = c − Aᵀy, from the rows that have a price on a finite side (by the matrix's rows), kept
 * with the basis for the path's current costs. False (nothing kept) when a price's sign already
 * rules the basis out.
 */
function duals(
  path: BasisPath,
  f: BasisFactor,
  cost: Float64Array,
  rowLower: Float64Array,
  rowUpper: Float64Array,
): boolean {
  const { starts: rowStarts, cols: rowCols, values: rowValues } = path.csr;
  const { stepRow, stepCol, y, d, priced } = f;
  const r = stepCol.length;
  for (let k = 0; k < r; k++) y[k] = cost[stepCol[k]];
  btran(f, y);
  d.set(cost);
  for (let k = 0; k < r; k++) {
    const yi = y[k];
    priced[k] = 0;
    if (yi === 0) continue;
    const side = pricedSide(f, k, yi, rowLower, rowUpper);
    if (Number.isNaN(side)) return false;
    if (Math.abs(side) >= INFINITE) continue;
    priced[k] = 1;
    const i = stepRow[k];
    for (let e = rowStarts[i], e1 = rowStarts[i + 1]; e < e1; e++) d[rowCols[e]] -= rowValues[e] * yi;
  }
  f.dualVersion = path.costVersion;
  return true;
}

/**
 * Step k's row's side its price yi multiplies in the bound (its upper bound for a positive price,
 * its lower for a negative); NaN when the price's sign rules the basis out (maximising, a row at its
 * lower bound takes a price ≤ 0, at its upper ≥ 0; an equality row either).
 */
function pricedSide(f: BasisFactor, k: number, yi: number, rowLower: Float64Array, rowUpper: Float64Array): number {
  const i = f.stepRow[k];
  const lo = rowLower[i];
  const hi = rowUpper[i];
  if (lo !== hi && (f.stepUp[k] === 1 ? yi < -DUAL_LOOK : yi > DUAL_LOOK)) return Number.NaN;
  return yi > 0 ? hi : lo;
}
