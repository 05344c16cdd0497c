// The battery's horizon problem with ancillary reserves (docs/markets.md, "Ancillary services"):
// beside charge and discharge, each hour the battery reserves MW for each product, co-optimised with
// energy arbitrage as one linear program per horizon, solved exactly: on one of the last optimal
// bases, kept, when a proof of optimality holds (storage.reserves.basis.ts), else by HiGHS (npm
// `highs`, its structured API: the matrix passed as arrays, no text parsed). For hour t, with η = √RTE and k the standing
// loss's hourly keep:
//   free charge f ≤ min(P, what the limit would curtail), priced charge q ≤ the plant's sale (+ the
//   grid when allowed), discharge y ≤ min(P, room under the limit), reserves r_j ≥ 0;
//   power:   f + q + Σ_down r ≤ P;  y + Σ_up r ≤ min(P, room);  Σ_down r ≤ min(P, export limit)
//   energy:  s_t = k·s_{t−1} + η(f + q) − y/η − Σ_up σ_j r_j/η + Σ_down σ_j r_j η   (σ: deployed share)
//   bands:   at the hour's start and end, s ≥ min + Σ_up r_j d_j/η and s ≤ max − Σ_down r_j d_j η
//   a daily cycle limit: Σ_day y ≤ cycles × nameplate.
// Maximise Σ (p − c_out) y − (p + c_in) q − c_in f + Σ_j r_j (a_j ± σ_j e), a_j the capacity price,
// e the hour's merchant price (deployed up energy sold at it, deployed down energy bought at it).
import highsModule from 'highs';
import type { HorizonBattery, HorizonHours, HorizonPlan } from './storage.dispatch.ts';
import {
  type BasisPath,
  basisPath,
  certify,
  factorBasis,
  type LpData,
  missed,
  wanted,
} from './storage.reserves.basis.ts';
import { dualFromKept } from './storage.reserves.dual.ts';

// A CommonJS module: its default import is the loader function itself.
const highsLoader = highsModule as unknown as typeof import('highs')['default'];
type Highs = Awaited<ReturnType<typeof highsLoader>>;

/** HiGHS once loaded: a thread that never meets an ancillary product never pays its ~25 MB and ~25 ms. */
let loaded: Highs | null = null;

/** Loads HiGHS (once); the engine is synchronous, so whoever calculates with ancillary products awaits this first. */
export async function loadReserveSolver(): Promise<void> {
  loaded ??= await highsLoader();
}

function solver(): Highs {
  if (!loaded) throw new Error('the reserve LP needs HiGHS: await loadReserveSolver() before calculating');
  return loaded;
}

/** One product as the horizon problem sees it. */
export interface ReserveProduct {
  up: boolean;
  durationHours: number;
  deployedShare: number;
}

/** A horizon's market for reserves: the merchant price and each product's capacity price, hour by hour. */
export interface ReserveHours {
  energyPrice: Float64Array;
  capacityPrice: Float64Array[];
  /** Most MW the interconnection takes in for a down deployment. */
  importMw: number;
  /** Standing loss: the share of the stored energy an hour keeps. */
  keep: number;
}

/** A plan with reserves: MW reserved for each product each hour. */
export interface ReservePlan extends HorizonPlan {
  reserve: Float64Array[];
}

/** Columns per hour before the reserves: free charge, priced charge, discharge, SOC. */
const F = 0;
const Q = 1;
const Y = 2;
const S = 3;
/**
 * Rows per hour, in order from t·ROWS_PER_HOUR: power (in, out, import), the energy balance, and
 * the bands at the hour's end and at its start, each low then high.
 */
const POWER_IN = 0;
const POWER_OUT = 1;
const IMPORT = 2;
const BALANCE = 3;
const END_LOW = 4;
const END_HIGH = 5;
const START_LOW = 6;
const START_HIGH = 7;
const ROWS_PER_HOUR = 8;

/** The horizon's LP as arrays (costs, bounds and the matrix row by row, CSR), as it is written. */
interface Lp extends LpData {
  /** The row being written. */
  row: number;
  /** False when the cached model has this matrix already: only costs and bounds are written. */
  matrix: boolean;
}

function entry(lp: Lp, col: number, v: number): void {
  if (!lp.matrix) return;
  lp.index.push(col);
  lp.value.push(v);
}

/** Ends row `row` of the matrix: its entries are those written since the row before it ended. */
function rowEnd(lp: Lp, row: number): void {
  lp.row = row + 1;
  lp.starts[lp.row] = lp.index.length;
}

/** Ends the row being written, with its bounds. */
function close(lp: Lp, lower: number, upper: number): void {
  lp.rowLower[lp.row] = lower;
  lp.rowUpper[lp.row] = upper;
  lp.row++;
  lp.starts[lp.row] = lp.index.length;
}

function emptyLp(cols: number, rows: number, matrix: boolean): Lp {
  return {
    cols,
    rows,
    cost: new Float64Array(cols),
    colLower: new Float64Array(cols),
    colUpper: new Float64Array(cols),
    rowLower: new Float64Array(rows),
    rowUpper: new Float64Array(rows),
    starts: new Int32Array(rows + 1),
    index: [],
    value: [],
    row: 0,
    matrix,
  };
}

/** The arrays of the last horizon's LP written without its matrix, reused by the next. */
let spare: Lp | null = null;

/** One horizon's problem as its hours are written into the LP. */
interface HorizonProblem {
  lp: Lp;
  b: HorizonBattery;
  h: HorizonHours;
  m: ReserveHours;
  products: readonly ReserveProduct[];
  soc0: number;
  /** The SOC's range at the end of hour t (socRanges), at index t + 1. */
  socLo: Float64Array;
  socHi: Float64Array;
  inf: number;
}

/**
 * The SOC's range at the end of hour t (t = −1: the start), at t + 1, once a horizon: the bounds,
 * widened to where the battery would be by idling from soc0 (standing loss only) when that lies
 * outside them, so that idling is always feasible (a faded capacity below the energy held, a
 * battery at its minimum losing energy).
 */
let socLo = new Float64Array(49);
let socHi = new Float64Array(49);
/** keep ** (t + 1) at t + 1, for the `keep` they were raised from: the same powers every horizon, computed once. */
let keepPowers = new Float64Array(0);
let keptKeep = Number.NaN;

function socRanges(b: HorizonBattery, soc0: number, keep: number, hours: number): void {
  if (socLo.length < hours + 1) {
    socLo = new Float64Array(hours + 1);
    socHi = new Float64Array(hours + 1);
  }
  if (keepPowers.length < hours + 1 || !Object.is(keep, keptKeep)) {
    keepPowers = Float64Array.from({ length: Math.max(49, hours + 1) }, (_, i) => keep ** i);
    keptKeep = keep;
  }
  for (let t = -1; t < hours; t++) {
    const idle = soc0 * keepPowers[t + 1];
    socLo[t + 1] = Math.min(b.socMinMwh, idle);
    socHi[t + 1] = Math.max(b.socMaxMwh, idle);
  }
}

/** Hour t's columns: objective and bounds. */
function hourColumns({ lp, b, h, m, products, socLo, socHi }: HorizonProblem, t: number): void {
  const c = t * (4 + products.length);
  const p = h.price[t];
  const room = Math.min(b.powerMw, h.room[t]);
  lp.cost[c + F] = -b.chargeCost;
  lp.cost[c + Q] = -(p + b.chargeCost);
  lp.cost[c + Y] = p - b.dischargeCost;
  lp.colUpper[c + F] = Math.min(b.powerMw, h.free[t]);
  lp.colUpper[c + Q] = h.priced[t];
  lp.colUpper[c + Y] = room;
  lp.colLower[c + S] = socLo[t + 1];
  lp.colUpper[c + S] = socHi[t + 1];
  for (let j = 0; j < products.length; j++) {
    const pr = products[j];
    lp.cost[c + 4 + j] = m.capacityPrice[j][t] + (pr.up ? 1 : -1) * pr.deployedShare * m.energyPrice[t];
    lp.colUpper[c + 4 + j] = pr.up ? room : Math.min(b.powerMw, m.importMw);
  }
}

/** Hour t's rows' entries, when the LP's matrix is written; their bounds are hourRowBounds's. */
function hourRows({ lp, b, m, products }: HorizonProblem, t: number): void {
  const K = products.length;
  const n = 4 + K;
  const c = t * n;
  const r = t * ROWS_PER_HOUR;
  const eta = b.etaIn;
  entry(lp, c + F, 1);
  entry(lp, c + Q, 1);
  for (let j = 0; j < K; j++) if (!products[j].up) entry(lp, c + 4 + j, 1);
  rowEnd(lp, r + POWER_IN);
  entry(lp, c + Y, 1);
  for (let j = 0; j < K; j++) if (products[j].up) entry(lp, c + 4 + j, 1);
  rowEnd(lp, r + POWER_OUT);
  for (let j = 0; j < K; j++) if (!products[j].up) entry(lp, c + 4 + j, 1);
  rowEnd(lp, r + IMPORT);
  if (t > 0) entry(lp, c - n + S, -m.keep);
  entry(lp, c + F, -eta);
  entry(lp, c + Q, -eta);
  entry(lp, c + Y, 1 / b.etaOut);
  entry(lp, c + S, 1);
  for (let j = 0; j < K; j++) {
    const pr = products[j];
    entry(lp, c + 4 + j, pr.up ? pr.deployedShare / b.etaOut : -pr.deployedShare * eta);
  }
  rowEnd(lp, r + BALANCE);
  // The bands at the hour's end, then at its start (the SOC at the start is soc0 for hour 0: no column).
  for (const atStart of [false, true]) {
    const sCol = atStart ? (t > 0 ? c - n + S : -1) : c + S;
    if (sCol >= 0) entry(lp, sCol, 1);
    for (let j = 0; j < K; j++) if (products[j].up) entry(lp, c + 4 + j, -products[j].durationHours / b.etaOut);
    rowEnd(lp, r + (atStart ? START_LOW : END_LOW));
    if (sCol >= 0) entry(lp, sCol, 1);
    for (let j = 0; j < K; j++) if (!products[j].up) entry(lp, c + 4 + j, products[j].durationHours * eta);
    rowEnd(lp, r + (atStart ? START_HIGH : END_HIGH));
  }
}

/**
 * Hour t's row bounds, every horizon (the optimality test checks the LP either way against one
 * written from the statement). At hour 0 the SOC at the start is soc0, not a column: the balance's
 * right-hand side and the start's bands take it.
 */
function hourRowBounds({ lp, b, h, m, soc0, socLo, socHi, inf }: HorizonProblem, t: number): void {
  const { rowLower, rowUpper } = lp;
  const r = t * ROWS_PER_HOUR;
  const start = t === 0 ? m.keep * soc0 : 0;
  const offset = t === 0 ? soc0 : 0;
  rowLower[r + POWER_IN] = -inf;
  rowUpper[r + POWER_IN] = b.powerMw;
  rowLower[r + POWER_OUT] = -inf;
  rowUpper[r + POWER_OUT] = Math.min(b.powerMw, h.room[t]);
  rowLower[r + IMPORT] = -inf;
  rowUpper[r + IMPORT] = Math.min(b.powerMw, m.importMw);
  rowLower[r + BALANCE] = start;
  rowUpper[r + BALANCE] = start;
  rowLower[r + END_LOW] = socLo[t + 1];
  rowUpper[r + END_LOW] = inf;
  rowLower[r + END_HIGH] = -inf;
  rowUpper[r + END_HIGH] = socHi[t + 1];
  rowLower[r + START_LOW] = socLo[t] - offset;
  rowUpper[r + START_LOW] = inf;
  rowLower[r + START_HIGH] = -inf;
  rowUpper[r + START_HIGH] = socHi[t] - offset;
  lp.row = r + ROWS_PER_HOUR;
}

/** The horizon's LP, built from the statement above. */
function buildLp(
  b: HorizonBattery,
  h: HorizonHours,
  m: ReserveHours,
  products: readonly ReserveProduct[],
  soc0: number,
  matrix: boolean,
): Lp {
  const T = h.hours;
  const days = Number.isFinite(b.dailyDischargeMwh) ? Math.ceil(T / 24) : 0;
  const cols = T * (4 + products.length);
  const rows = T * ROWS_PER_HOUR + days;
  // Without the matrix, the last horizon's arrays are written over (every entry is rewritten).
  let lp: Lp;
  if (!matrix && spare && spare.cols === cols && spare.rows === rows) {
    lp = spare;
    lp.row = 0;
  } else lp = emptyLp(cols, rows, matrix);
  if (!matrix) spare = lp;
  socRanges(b, soc0, m.keep, T);
  const problem: HorizonProblem = { lp, b, h, m, products, soc0, socLo, socHi, inf: solver().infinity };
  for (let t = 0; t < T; t++) {
    hourColumns(problem, t);
    if (matrix) hourRows(problem, t);
    hourRowBounds(problem, t);
  }
  for (let d = 0; d < days; d++) {
    for (let t = d * 24; t < Math.min(T, d * 24 + 24); t++) entry(lp, t * (4 + products.length) + Y, 1);
    close(lp, -solver().infinity, b.dailyDischargeMwh);
  }
  if (lp.row !== lp.rows) throw new Error(`reserve LP: ${lp.row} rows built, ${lp.rows} expected`);
  return lp;
}

/**
 * The last horizon's model (an engine thread runs one calculation at a time), with the costs and
 * bounds it was last given.
 */
let cached: { key: string; model: ReturnType<Highs['createModel']>; lp: Lp; path: BasisPath } | null = null;

/**
 * Horizons solved on a kept basis with a certificate, by the dual simplex from a kept basis (then
 * certified), and by HiGHS, since the thread started.
 */
const counts = { certified: 0, dual: 0, solved: 0 };

/** How many horizons each path took (tests, bench). */
export function reservePathCounts(): { certified: number; dual: number; solved: number } {
  return { ...counts };
}

/**
 * Passes `now` where it differs from `before` (one contiguous range, the first to the last index
 * that changed; nothing when none did) and keeps it as `before`. Many of a horizon's bounds are the
 * same as the last horizon's: HiGHS is given only what moved.
 */
function changed(
  before: Float64Array[],
  now: Float64Array[],
  pass: (range: { kind: 'range'; from: number; to: number }, ...values: Float64Array[]) => void,
): void {
  const n = now[0].length;
  let from = n;
  let to = -1;
  for (let k = 0; k < now.length; k++) {
    const a = before[k];
    const b = now[k];
    for (let i = 0; i < from; i++) {
      if (a[i] !== b[i]) {
        from = i;
        break;
      }
    }
    for (let i = n - 1; i > to; i--) {
      if (a[i] !== b[i]) {
        to = i;
        break;
      }
    }
  }
  if (to < from) return;
  pass({ kind: 'range', from, to }, ...now.map((v) => v.subarray(from, to + 1)));
  for (let k = 0; k < now.length; k++) before[k].set(now[k]);
}

/**
 * The model of the LP. Its matrix depends only on the battery, the products and the horizon's
 * length: a model of the same matrix is kept and given the horizon's costs and bounds (those that
 * changed), and HiGHS starts from its last basis.
 */
function modelOf(lp: Lp, key: string): ReturnType<Highs['createModel']> {
  const highs = solver();
  if (!lp.matrix && cached && cached.key === key) {
    const { model, lp: last } = cached;
    changed([last.cost], [lp.cost], (range, cost) => model.changeColsCost(range, cost));
    changed([last.colLower, last.colUpper], [lp.colLower, lp.colUpper], (range, lower, upper) =>
      model.changeColsBounds(range, lower, upper),
    );
    changed([last.rowLower, last.rowUpper], [lp.rowLower, lp.rowUpper], (range, lower, upper) =>
      model.changeRowsBounds(range, lower, upper),
    );
    return model;
  }
  cached?.model.dispose();
  const model = highs.createModel({
    numCols: lp.cols,
    numRows: lp.rows,
    sense: highs.constants.objectiveSense.maximize,
    colCost: lp.cost,
    colLower: lp.colLower,
    colUpper: lp.colUpper,
    rowLower: lp.rowLower,
    rowUpper: lp.rowUpper,
    matrix: {
      format: 'csr',
      numRows: lp.rows,
      numCols: lp.cols,
      starts: lp.starts,
      indices: Int32Array.from(lp.index),
      values: Float64Array.from(lp.value),
    },
  });
  // Each horizon is small and starts from the last basis: presolve costs more than it saves. HiGHS's
  // log is off: writing it cost about a tenth of each run.
  model.options.set({
    presolve: 'off',
    solver: 'simplex',
    output_flag: false,
    dual_simplex_cost_perturbation_multiplier: 0,
  });
  const copy = (v: Float64Array) => Float64Array.from(v);
  cached = {
    key,
    model,
    path: basisPath(lp),
    lp: {
      ...lp,
      cost: copy(lp.cost),
      colLower: copy(lp.colLower),
      colUpper: copy(lp.colUpper),
      rowLower: copy(lp.rowLower),
      rowUpper: copy(lp.rowUpper),
    },
  };
  return model;
}

/** The last matrix key, its parts, and the products' shape it was written for. */
const lastKey = {
  key: '',
  parts: new Float64Array(5),
  shape: [] as number[],
};

/**
 * The key of what the matrix depends on: the horizon's length, its days with a cycle limit, the
 * efficiencies, the standing loss and the products. Written as text only when a part changed
 * (numbers to text cost microseconds, a horizon's certificate about ten).
 */
function matrixKey(
  hours: number,
  days: number,
  etaIn: number,
  etaOut: number,
  keep: number,
  products: readonly ReserveProduct[],
): string {
  const { parts, shape } = lastKey;
  let same =
    lastKey.key !== '' &&
    parts[0] === hours &&
    parts[1] === days &&
    parts[2] === etaIn &&
    parts[3] === etaOut &&
    parts[4] === keep &&
    shape.length === 3 * products.length;
  for (let j = 0; same && j < products.length; j++) {
    const p = products[j];
    same =
      shape[3 * j] === (p.up ? 1 : 0) && shape[3 * j + 1] === p.durationHours && shape[3 * j + 2] === p.deployedShare;
  }
  if (same) return lastKey.key;
  parts.set([hours, days, etaIn, etaOut, keep]);
  lastKey.shape = products.flatMap((p) => [p.up ? 1 : 0, p.durationHours, p.deployedShare]);
  const text = products.map((p) => `${p.up ? 'u' : 'd'}${p.durationHours}/${p.deployedShare}`).join(' ');
  lastKey.key = `${hours} ${days} ${etaIn} ${etaOut} ${keep} ${text}`;
  return lastKey.key;
}

/**
 * Builds and solves the horizon's LP; the plan is written into `out`, its objective returned (NaN
 * with `value` false: the rolling horizon reads the plan alone).
 */
export function solveReserves(
  b: HorizonBattery,
  h: HorizonHours,
  m: ReserveHours,
  products: readonly ReserveProduct[],
  soc0: number,
  out: ReservePlan,
  value = true,
): number {
  // What the matrix depends on: the horizon's length, its days with a cycle limit, the efficiencies,
  // the standing loss and the products.
  const days = Number.isFinite(b.dailyDischargeMwh) ? Math.ceil(h.hours / 24) : 0;
  const key = matrixKey(h.hours, days, b.etaIn, b.etaOut, m.keep, products);
  const lp = buildLp(b, h, m, products, soc0, cached?.key !== key);
  let x: Float64Array;
  // First the kept basis, certified optimal for this horizon's costs and bounds (storage.reserves.basis.ts).
  const kept = !lp.matrix && cached?.key === key ? cached : null;
  const trying = kept !== null && wanted(kept.path);
  if (kept && trying && certify(kept.path, lp)) {
    x = kept.path.x;
    counts.certified++;
  } else if (kept && trying && dualFromKept(kept.path, lp)) {
    x = kept.path.x;
    counts.dual++;
  } else {
    const model = modelOf(lp, key);
    model.run();
    if (model.getModelStatus() !== solver().constants.modelStatus.optimal) {
      throw new Error(`the reserve LP has no optimum (HiGHS model status ${model.getModelStatus()})`);
    }
    x = model.getSolution().colValue;
    counts.solved++;
    const ended = cached as NonNullable<typeof cached>;
    if (!trying) missed(ended.path);
    if (wanted(ended.path)) {
      const basis = model.getBasis();
      factorBasis(ended.path, ended.lp, basis.colStatus, basis.rowStatus);
    }
  }
  const n = 4 + products.length;
  for (let t = 0; t < h.hours; t++) {
    const c = t * n;
    const charge = Math.max(0, x[c + F]) + Math.max(0, x[c + Q]);
    const discharge = Math.max(0, x[c + Y]);
    // Charging and discharging in one hour would only lose energy: keep the net.
    const u = b.etaIn * charge - discharge / b.etaOut;
    const both = charge > 0 && discharge > 0;
    out.charge[t] = both ? Math.max(0, u / b.etaIn) : charge;
    out.discharge[t] = both ? Math.max(0, -u * b.etaOut) : discharge;
    for (let j = 0; j < products.length; j++) out.reserve[j][t] = Math.max(0, x[c + 4 + j]);
  }
  return value ? reserveObjective(b, h, m, products, out) : Number.NaN;
}

/** A plan's objective, as the LP counts it (free energy charged first, unless the price is negative). */
export function reserveObjective(
  b: HorizonBattery,
  h: HorizonHours,
  m: ReserveHours,
  products: readonly ReserveProduct[],
  plan: ReservePlan,
): number {
  let sum = 0;
  for (let t = 0; t < h.hours; t++) {
    const p = h.price[t];
    const x = plan.charge[t];
    const priced = p < 0 ? Math.min(x, h.priced[t]) : Math.max(0, x - Math.min(b.powerMw, h.free[t]));
    sum += (p - b.dischargeCost) * plan.discharge[t] - priced * p - b.chargeCost * x;
    for (let j = 0; j < products.length; j++) {
      const pr = products[j];
      sum += plan.reserve[j][t] * (m.capacityPrice[j][t] + (pr.up ? 1 : -1) * pr.deployedShare * m.energyPrice[t]);
    }
  }
  return sum;
}
