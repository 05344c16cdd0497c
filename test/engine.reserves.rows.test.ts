// The reserve certificate's row pass in WebAssembly (worker/engine/storage/storage.reserves.rows.ts)
// against the rule written here in JavaScript: each row's activity A x within its bounds to
// PRIMAL_TOL × max(1, |bound|), a side at or beyond ±INFINITE not looked at. Random sparse matrices
// (seeded), rows just inside and just outside the tolerance, infinite sides, two matrices in turn
// (the pass holds one and copies the other in), and a matrix too large for it.
import t from 'tap';
import { INFINITE, PRIMAL_TOL } from '../worker/engine/storage/storage.reserves.basis.ts';
import { type RowMatrix, RowPass } from '../worker/engine/storage/storage.reserves.rows.ts';

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

function matrix(rnd: () => number, rows: number, cols: number): RowMatrix {
  const starts = new Int32Array(rows + 1);
  const c: number[] = [];
  const v: number[] = [];
  for (let i = 0; i < rows; i++) {
    const n = Math.floor(rnd() * 7);
    for (let k = 0; k < n; k++) {
      c.push(Math.floor(rnd() * cols));
      v.push((rnd() - 0.5) * 4);
    }
    starts[i + 1] = c.length;
  }
  return { starts, cols: Int32Array.from(c), values: Float64Array.from(v) };
}

function activity(a: RowMatrix, i: number, x: Float64Array): number {
  let s = 0;
  for (let e = a.starts[i]; e < a.starts[i + 1]; e++) s += a.values[e] * x[a.cols[e]];
  return s;
}

/** The rule, in JavaScript. */
function holds(a: RowMatrix, rows: number, x: Float64Array, lower: Float64Array, upper: Float64Array): boolean {
  for (let i = 0; i < rows; i++) {
    const s = activity(a, i, x);
    const lo = lower[i];
    const hi = upper[i];
    if (lo > -INFINITE && s < lo - PRIMAL_TOL * Math.max(1, Math.abs(lo))) return false;
    if (hi < INFINITE && s > hi + PRIMAL_TOL * Math.max(1, Math.abs(hi))) return false;
  }
  return true;
}

/** Bounds that every row meets with room, some sides infinite (HiGHS's 1e20 or Infinity). */
function roomyBounds(rnd: () => number, a: RowMatrix, rows: number, x: Float64Array) {
  const lower = new Float64Array(rows);
  const upper = new Float64Array(rows);
  for (let i = 0; i < rows; i++) {
    const s = activity(a, i, x);
    const k = rnd();
    lower[i] = k < 0.2 ? -INFINITE : k < 0.3 ? Number.NEGATIVE_INFINITY : s - rnd() * 10;
    upper[i] = k > 0.8 ? INFINITE : k > 0.7 ? Number.POSITIVE_INFINITY : s + rnd() * 10;
  }
  return { lower, upper };
}

t.test('random matrices: the pass says what the rule says, and a row moved out of its bounds fails', async (t) => {
  const pass = new RowPass();
  const rnd = random(42);
  let failedAsTheRule = 0;
  for (let round = 0; round < 60; round++) {
    const rows = 1 + Math.floor(rnd() * 400);
    const cols = 1 + Math.floor(rnd() * 500);
    const a = matrix(rnd, rows, cols);
    const x = Float64Array.from({ length: cols }, () => (rnd() - 0.5) * 200);
    const { lower, upper } = roomyBounds(rnd, a, rows, x);
    t.equal(pass.holds(a, rows, x, lower, upper), true, `round ${round}: every row inside`);
    // One row with entries pushed out of a finite side, far beyond the tolerance.
    const i = Math.floor(rnd() * rows);
    if (a.starts[i + 1] === a.starts[i]) continue;
    const s = activity(a, i, x);
    const hi = Float64Array.from(upper);
    hi[i] = s - 1e-3 * Math.max(1, Math.abs(s));
    const expected = holds(a, rows, x, lower, hi);
    t.equal(expected, false, `round ${round}: the rule fails row ${i}`);
    t.equal(pass.holds(a, rows, x, lower, hi), expected, `round ${round}: so does the pass`);
    failedAsTheRule++;
  }
  t.ok(failedAsTheRule > 30, `${failedAsTheRule} rounds with a row out of its bounds`);
});

t.test('the tolerance: a row just inside PRIMAL_TOL × scale holds, just outside fails, on each side', async (t) => {
  const pass = new RowPass();
  const a: RowMatrix = {
    starts: Int32Array.from([0, 2]),
    cols: Int32Array.from([0, 1]),
    values: Float64Array.from([1, 2]),
  };
  const x = Float64Array.from([100, 25]); // activity 150
  const near = (bound: number, k: number) => bound + k * PRIMAL_TOL * Math.max(1, Math.abs(bound));
  for (const [lo, hi, ok, what] of [
    [-INFINITE, 150 - 0.4 * PRIMAL_TOL * 150, true, 'above its upper bound within the tolerance'],
    [-INFINITE, 150 - 1.6 * PRIMAL_TOL * 150, false, 'above its upper bound beyond the tolerance'],
    [150 + 0.4 * PRIMAL_TOL * 150, INFINITE, true, 'below its lower bound within the tolerance'],
    [150 + 1.6 * PRIMAL_TOL * 150, INFINITE, false, 'below its lower bound beyond the tolerance'],
    [-INFINITE, INFINITE, true, 'both sides infinite'],
  ] as const) {
    const lower = Float64Array.from([lo]);
    const upper = Float64Array.from([hi]);
    t.equal(holds(a, 1, x, lower, upper), ok, `the rule: ${what}`);
    t.equal(pass.holds(a, 1, x, lower, upper), ok, `the pass: ${what}`);
  }
  // At a small bound the scale is 1, not |bound|.
  const small = Float64Array.from([near(0.5, -2)]);
  const b: RowMatrix = { starts: Int32Array.from([0, 1]), cols: Int32Array.from([0]), values: Float64Array.from([1]) };
  t.equal(
    pass.holds(b, 1, Float64Array.from([0.5]), Float64Array.from([-INFINITE]), small),
    false,
    'scale 1 below |bound| 1',
  );
  t.equal(holds(b, 1, Float64Array.from([0.5]), Float64Array.from([-INFINITE]), small), false, 'the rule agrees');
});

t.test('two matrices in turn: each call is judged on its own matrix', async (t) => {
  const pass = new RowPass();
  const rnd = random(7);
  const a = matrix(rnd, 50, 40);
  const b = matrix(rnd, 80, 60);
  const xa = Float64Array.from({ length: 40 }, () => rnd() * 10);
  const xb = Float64Array.from({ length: 60 }, () => rnd() * 10);
  const ba = roomyBounds(rnd, a, 50, xa);
  const bb = roomyBounds(rnd, b, 80, xb);
  for (let k = 0; k < 6; k++) {
    t.equal(pass.holds(a, 50, xa, ba.lower, ba.upper), true, `call ${k}: a`);
    t.equal(pass.holds(b, 80, xb, bb.lower, bb.upper), true, `call ${k}: b`);
  }
  const tight = Float64Array.from(bb.upper);
  const row = Array.from({ length: 80 }, (_, i) => i).find((i) => b.starts[i + 1] > b.starts[i]) as number;
  tight[row] = activity(b, row, xb) - 1;
  t.equal(pass.holds(b, 80, xb, bb.lower, tight), false, 'b with a row out');
  t.equal(pass.holds(a, 50, xa, ba.lower, ba.upper), true, 'then a again');
});

t.test('a matrix larger than the pass holds is refused', async (t) => {
  const pass = new RowPass();
  const rows = 3000;
  const a: RowMatrix = { starts: new Int32Array(rows + 1), cols: new Int32Array(0), values: new Float64Array(0) };
  t.throws(
    () => pass.holds(a, rows, new Float64Array(10), new Float64Array(rows), new Float64Array(rows)),
    /larger than the row pass holds/,
  );
});
