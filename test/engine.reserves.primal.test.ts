// The reserve certificate's primal part in WebAssembly (worker/engine/storage/storage.reserves.primal.ts)
// against the same steps written here in JavaScript (as certifyOn had them): the nonbasic columns at
// their bounds, the kernel's right-hand side, the LU solve (basis.ts's `ftran`), the look at the basic
// columns' bounds, every row's activity within its bounds to PRIMAL_TOL × max(1, |bound|). Random
// sparse LPs (seeded) with bases factorised by `factorBasis`: plans that hold and plans pushed just
// inside and just outside the tolerance, several bases and two LPs in turn, an LP large enough that
// the module's memory grows. The verdicts must agree, and the plans to the bit.
import t, { type Test } from 'tap';
import {
  BASIC,
  type BasisFactor,
  type BasisPath,
  basisPath,
  factorBasis,
  ftran,
  INFINITE,
  LOWER,
  type LpBounds,
  type LpData,
  PRIMAL_TOL,
  UPPER,
} from '../worker/engine/storage/storage.reserves.basis.ts';
import { PrimalPass } from '../worker/engine/storage/storage.reserves.primal.ts';

/** A small seeded generator (mulberry32), so that a failure repeats. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let z = a;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
}

const below = (v: number, lo: number) => v < lo - PRIMAL_TOL * Math.max(1, Math.abs(lo));
const above = (v: number, hi: number) => v > hi + PRIMAL_TOL * Math.max(1, Math.abs(hi));

function activity(path: BasisPath, i: number, x: Float64Array): number {
  const { starts, cols, values } = path.csr;
  let a = 0;
  for (let e = starts[i]; e < starts[i + 1]; e++) a += values[e] * x[cols[e]];
  return a;
}

/** The steps in JavaScript: the plan, or null where the JavaScript stops. */
function reference(path: BasisPath, f: BasisFactor, lp: LpBounds): Float64Array | null {
  const x = new Float64Array(path.cols);
  const r = f.stepCol.length;
  const kernel = new Float64Array(r);
  for (let k = 0; k < f.nbCols.length; k++) {
    const j = f.nbCols[k];
    const value = f.nbColUp[k] === 1 ? lp.colUpper[j] : lp.colLower[j];
    if (Math.abs(value) >= INFINITE) return null;
    x[j] = value;
  }
  for (let k = 0; k < r; k++) {
    const i = f.stepRow[k];
    const value = f.stepUp[k] === 1 ? lp.rowUpper[i] : lp.rowLower[i];
    if (Math.abs(value) >= INFINITE) return null;
    let nonbasic = 0;
    for (let e = f.nbStart[k]; e < f.nbStart[k + 1]; e++) {
      const xj = x[f.nbCol[e]];
      if (xj !== 0) nonbasic += f.nbValue[e] * xj;
    }
    kernel[k] = value - nonbasic;
  }
  ftran(f, kernel);
  for (let k = 0; k < r; k++) {
    const j = f.stepCol[k];
    const lo = lp.colLower[j];
    const hi = lp.colUpper[j];
    if (below(kernel[k], lo) || above(kernel[k], hi)) return null;
    x[j] = Math.min(hi, Math.max(lo, kernel[k]));
  }
  for (let i = 0; i < path.rows; i++) {
    const a = activity(path, i, x);
    const lo = lp.rowLower[i];
    const hi = lp.rowUpper[i];
    if ((lo > -INFINITE && below(a, lo)) || (hi < INFINITE && above(a, hi))) return null;
  }
  return x;
}

/** A random sparse LP of m rows and n columns (every column bounded), as the reserve LP's arrays are. */
function randomLp(rnd: () => number, m: number, n: number): LpData {
  const starts = new Int32Array(m + 1);
  const index: number[] = [];
  const value: number[] = [];
  for (let i = 0; i < m; i++) {
    const used = new Set<number>();
    const count = 1 + Math.floor(rnd() * 5);
    for (let k = 0; k < count; k++) used.add(Math.floor(rnd() * n));
    for (const j of [...used].sort((a, b) => a - b)) {
      index.push(j);
      value.push(rnd() < 0.3 ? 1 : (rnd() - 0.5) * 4);
    }
    starts[i + 1] = index.length;
  }
  const colLower = Float64Array.from({ length: n }, () => -rnd() * 50);
  const colUpper = Float64Array.from(colLower, (lo) => lo + rnd() * 100);
  return {
    cols: n,
    rows: m,
    cost: new Float64Array(n),
    colLower,
    colUpper,
    rowLower: new Float64Array(m).fill(-INFINITE),
    rowUpper: new Float64Array(m).fill(INFINITE),
    starts,
    index,
    value,
  };
}

/**
 * A basis factorised for lp, or null after some tries: r rows at a bound, each matched to a column of
 * its own among its entries (so that the kernel has a full diagonal under that matching), those
 * columns basic, the other rows basic and the other columns at a bound.
 */
function randomBasis(rnd: () => number, path: BasisPath, lp: LpData): BasisFactor | null {
  const { rows: m, cols: n } = lp;
  for (let tries = 0; tries < 50; tries++) {
    const r = Math.max(1, Math.floor(Math.min(m, n) * (0.2 + 0.3 * rnd())));
    const colStatus = Int32Array.from({ length: n }, () => (rnd() < 0.5 ? LOWER : UPPER));
    const rowStatus = new Int32Array(m).fill(BASIC);
    let chosen = 0;
    for (const i of [...Array(m).keys()].sort(() => rnd() - 0.5)) {
      if (chosen === r) break;
      const free: number[] = [];
      for (let e = lp.starts[i]; e < lp.starts[i + 1]; e++)
        if (colStatus[lp.index[e]] !== BASIC) free.push(lp.index[e]);
      if (free.length === 0) continue;
      colStatus[free[Math.floor(rnd() * free.length)]] = BASIC;
      rowStatus[i] = rnd() < 0.5 ? LOWER : UPPER;
      chosen++;
    }
    if (chosen > 0 && factorBasis(path, lp, colStatus, rowStatus)) return path.factors[0];
  }
  return null;
}

/**
 * Bounds at which basis f's plan holds: the kernel rows' sides it names set, the plan computed, then
 * the basic columns' and the other rows' bounds put around it (some of their sides infinite).
 */
function holdingBounds(rnd: () => number, path: BasisPath, f: BasisFactor, lp: LpData): LpBounds | null {
  const b: LpBounds = {
    cost: lp.cost,
    colLower: Float64Array.from(lp.colLower),
    colUpper: Float64Array.from(lp.colUpper),
    rowLower: new Float64Array(lp.rows).fill(-INFINITE),
    rowUpper: new Float64Array(lp.rows).fill(INFINITE),
  };
  for (let k = 0; k < f.stepRow.length; k++) {
    const v = (rnd() - 0.5) * 40;
    b.rowLower[f.stepRow[k]] = f.stepUp[k] === 1 ? v - rnd() * 10 : v;
    b.rowUpper[f.stepRow[k]] = f.stepUp[k] === 1 ? v : v + rnd() * 10;
  }
  for (const j of f.stepCol) {
    b.colLower[j] = -1e15;
    b.colUpper[j] = 1e15;
  }
  const x = reference(path, f, b);
  // A random kernel can be near singular: its plan then lies beyond even these bounds (not used).
  if (!x) return null;
  for (const j of f.stepCol) {
    b.colLower[j] = x[j] - rnd() * 5;
    b.colUpper[j] = x[j] + rnd() * 5;
  }
  const kernelRows = new Set(f.stepRow);
  for (let i = 0; i < lp.rows; i++) {
    if (kernelRows.has(i)) continue;
    const a = activity(path, i, x);
    const k = rnd();
    b.rowLower[i] = k < 0.25 ? -INFINITE : k < 0.35 ? Number.NEGATIVE_INFINITY : a - rnd() * 10;
    b.rowUpper[i] = k > 0.75 ? INFINITE : k > 0.65 ? Number.POSITIVE_INFINITY : a + rnd() * 10;
  }
  return b;
}

/** The pass and the reference on the same bounds: the same verdict, and the same plan to the bit. */
function agree(t: Test, pass: PrimalPass, path: BasisPath, f: BasisFactor, b: LpBounds, what: string): boolean {
  const expected = reference(path, f, b);
  path.x.fill(Number.NaN);
  const held = pass.holds(path, f, b);
  t.equal(held, expected !== null, `${what}: the same verdict`);
  if (held && expected) {
    const same = expected.every((v, j) => Object.is(v, path.x[j]));
    t.ok(same, `${what}: the same plan to the bit`);
  }
  return held;
}

t.test('random LPs and bases: the same verdicts and plans; moved bounds fail alike', async (t) => {
  const pass = new PrimalPass();
  const rnd = random(20261130);
  let held = 0;
  let failed = 0;
  for (let round = 0; round < 40; round++) {
    const m = 20 + Math.floor(rnd() * 200);
    const n = 20 + Math.floor(rnd() * 250);
    const lp = randomLp(rnd, m, n);
    const path = basisPath(lp);
    const bases = [randomBasis(rnd, path, lp), randomBasis(rnd, path, lp)].filter((f) => f !== null);
    for (const [k, f] of bases.entries()) {
      const b = holdingBounds(rnd, path, f, lp);
      const x = b && reference(path, f, b);
      if (!b || !x) continue;
      if (agree(t, pass, path, f, b, `round ${round} basis ${k}`)) held++;
      // A basic column's upper bound moved below its value.
      const j = f.stepCol[Math.floor(rnd() * f.stepCol.length)];
      const moved = { ...b, colLower: Float64Array.from(b.colLower), colUpper: Float64Array.from(b.colUpper) };
      moved.colUpper[j] = x[j] - 1;
      moved.colLower[j] = Math.min(b.colLower[j], x[j] - 2);
      if (!agree(t, pass, path, f, moved, `round ${round} basis ${k}, column ${j} moved`)) failed++;
    }
    // The bases in turn again: each is judged on its own factors.
    for (const [k, f] of bases.entries()) {
      const b = holdingBounds(rnd, path, f, lp);
      if (b) agree(t, pass, path, f, b, `round ${round} basis ${k} again`);
    }
  }
  t.ok(held > 40, `${held} plans held`);
  t.ok(failed > 40, `${failed} moved plans failed`);
});

t.test('the tolerance on a row: just inside holds, just outside fails, on each side', async (t) => {
  const pass = new PrimalPass();
  const rnd = random(7);
  let tried = 0;
  for (let round = 0; round < 30 && tried < 10; round++) {
    const lp = randomLp(rnd, 60, 80);
    const path = basisPath(lp);
    const f = randomBasis(rnd, path, lp);
    if (!f) continue;
    const b = holdingBounds(rnd, path, f, lp);
    if (!b || !pass.holds(path, f, b)) continue;
    const x = Float64Array.from(path.x);
    const kernelRows = new Set(f.stepRow);
    const i = [...Array(lp.rows).keys()].find((row) => !kernelRows.has(row) && activity(path, row, x) !== 0);
    if (i === undefined) continue;
    const a = activity(path, i, x);
    const scale = PRIMAL_TOL * Math.max(1, Math.abs(a));
    for (const [side, k, ok] of [
      ['upper', 0.4, true],
      ['upper', 1.6, false],
      ['lower', 0.4, true],
      ['lower', 1.6, false],
    ] as const) {
      const moved = { ...b, rowLower: Float64Array.from(b.rowLower), rowUpper: Float64Array.from(b.rowUpper) };
      if (side === 'upper') {
        moved.rowUpper[i] = a - k * scale;
        moved.rowLower[i] = -INFINITE;
      } else {
        moved.rowLower[i] = a + k * scale;
        moved.rowUpper[i] = INFINITE;
      }
      t.equal(
        reference(path, f, moved) !== null,
        ok,
        `round ${round}, row ${i}, ${side} ${k} × tolerance: the reference`,
      );
      agree(t, pass, path, f, moved, `round ${round}, row ${i}, ${side} ${k} × tolerance`);
    }
    tried++;
  }
  t.ok(tried >= 5, `${tried} rows moved to each side of the tolerance`);
});

t.test('an LP larger than the module starts with: its memory grows and the verdicts still agree', async (t) => {
  const pass = new PrimalPass();
  const rnd = random(99);
  const lp = randomLp(rnd, 1500, 2000);
  const path = basisPath(lp);
  let f: BasisFactor | null = null;
  let b: LpBounds | null = null;
  for (let tries = 0; tries < 10 && !b; tries++) {
    f = randomBasis(rnd, path, lp);
    b = f && holdingBounds(rnd, path, f, lp);
  }
  if (!f || !b) {
    t.fail('no basis of the large LP with a plan');
    return;
  }
  t.ok(agree(t, pass, path, f, b, 'large LP'), 'its plan held');
  // A small LP after it, then the large one again (each path copied in anew).
  const small = randomLp(rnd, 30, 40);
  const smallPath = basisPath(small);
  const g = randomBasis(rnd, smallPath, small);
  const bs = g && holdingBounds(rnd, smallPath, g, small);
  if (g && bs) agree(t, pass, smallPath, g, bs, 'small LP after it');
  t.ok(agree(t, pass, path, f, b, 'large LP again'), 'its plan held again');
});
