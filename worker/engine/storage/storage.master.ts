// The daily cycle limits as a Dantzig–Wolfe master problem. Without the limits the horizon's LP is
// solved exactly by the dynamic program (storage.dispatch.ts), and a vertex of its polytope is what
// the program returns; with them, the LP optimum is a convex combination of such vertices:
//   max Σ λ_k obj_k   subject to   Σ λ_k D_dk ≤ L (each day d),   Σ λ_k ≤ 1,   λ ≥ 0,
// where column k is a plan of the program (objective obj_k, day discharges D_dk) and the slack of
// the last row is the idle plan (worth 0, when the SOC at the start is within its bounds). The
// master's duals μ_d (≥ 0) and σ price the next column: the program with discharge penalised by μ_d
// in day d returns the plan of greatest reduced cost obj − μ·D − σ; when that is ≤ 0 (to a relative
// 1e-9) the master's value is the LP optimum, because obj − μ·D ≤ σ for every plan bounds the LP by
// σ + μ·L, the master's value (LP duality). The master has at most three rows: a dense tableau.

/** The largest number of columns (plans) the master holds. */
export const MAX_COLUMNS = 48;
/** Rows: up to two days of a 48-hour horizon, and the convexity row. */
const MAX_ROWS = 3;
const WIDTH = MAX_COLUMNS + MAX_ROWS;
const TOL = 1e-11;

export class CycleMaster {
  rows = 0;
  columns = 0;
  /** Tableau rows × (columns, then slacks), the basis' right-hand side and the basic variables. */
  private readonly tab = new Float64Array(MAX_ROWS * WIDTH);
  readonly rhs = new Float64Array(MAX_ROWS);
  readonly basis = new Int32Array(MAX_ROWS);
  private readonly cost = new Float64Array(WIDTH);
  /** Duals after `solve`: the days' multipliers, then the convexity row's σ. */
  readonly dual = new Float64Array(MAX_ROWS);
  private readonly a = new Float64Array(MAX_ROWS);

  /** A new master of `days` limited days (each at `limit`); the idle plan is worth `idleValue`. */
  reset(days: number, limit: number, idleValue: number): void {
    const m = days + 1;
    this.rows = m;
    this.columns = 0;
    this.tab.fill(0);
    this.cost.fill(0);
    for (let i = 0; i < m; i++) {
      this.tab[i * WIDTH + MAX_COLUMNS + i] = 1;
      this.basis[i] = MAX_COLUMNS + i;
      this.rhs[i] = i < days ? limit : 1;
    }
    this.cost[MAX_COLUMNS + days] = idleValue;
  }

  /** Adds a plan's column (its objective and day discharges); its tableau entries are B⁻¹ a. */
  add(objective: number, dayDischarge: ArrayLike<number>): number {
    const { rows: m, a, tab } = this;
    const j = this.columns++;
    for (let i = 0; i < m - 1; i++) a[i] = dayDischarge[i];
    a[m - 1] = 1;
    this.cost[j] = objective;
    for (let i = 0; i < m; i++) {
      let v = 0;
      for (let r = 0; r < m; r++) v += tab[i * WIDTH + MAX_COLUMNS + r] * a[r];
      tab[i * WIDTH + j] = v;
    }
    return j;
  }

  /** Primal simplex (Bland's rule) from the current basis; then the duals. Returns the master's value. */
  solve(): number {
    const m = this.rows;
    for (let iteration = 0; iteration < 200; iteration++) {
      const enter = this.entering();
      if (enter < 0) break;
      const leave = this.leaving(enter);
      if (leave < 0) break; // unbounded cannot happen (Σ λ ≤ 1); guard only
      this.pivot(leave, enter);
    }
    let value = 0;
    for (let i = 0; i < m; i++) value += this.cost[this.basis[i]] * this.rhs[i];
    for (let r = 0; r < m; r++) this.dual[r] = this.reduced(MAX_COLUMNS + r) + this.cost[MAX_COLUMNS + r];
    return value;
  }

  /** The weight of column j in the master's solution (0 when not basic). */
  weight(j: number): number {
    for (let i = 0; i < this.rows; i++) if (this.basis[i] === j) return Math.max(0, this.rhs[i]);
    return 0;
  }

  /** z_j − c_j: negative when column j improves the objective. */
  private reduced(j: number): number {
    let z = 0;
    for (let i = 0; i < this.rows; i++) z += this.cost[this.basis[i]] * this.tab[i * WIDTH + j];
    return z - this.cost[j];
  }

  private entering(): number {
    const scale = 1 + Math.abs(this.cost.reduce((s, c) => Math.max(s, Math.abs(c)), 0));
    for (let j = 0; j < this.columns; j++) if (this.reduced(j) < -TOL * scale) return j;
    for (let r = 0; r < this.rows; r++) if (this.reduced(MAX_COLUMNS + r) < -TOL * scale) return MAX_COLUMNS + r;
    return -1;
  }

  private leaving(enter: number): number {
    let best = -1;
    let ratio = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.rows; i++) {
      const v = this.tab[i * WIDTH + enter];
      if (v <= TOL) continue;
      const r = this.rhs[i] / v;
      if (r < ratio - TOL || (r <= ratio + TOL && best >= 0 && this.basis[i] < this.basis[best])) {
        ratio = r;
        best = i;
      }
    }
    return best;
  }

  private pivot(row: number, enter: number): void {
    const { tab, rows: m } = this;
    const p = tab[row * WIDTH + enter];
    for (let j = 0; j < WIDTH; j++) tab[row * WIDTH + j] /= p;
    this.rhs[row] /= p;
    for (let i = 0; i < m; i++) {
      if (i === row) continue;
      const f = tab[i * WIDTH + enter];
      if (f === 0) continue;
      for (let j = 0; j < WIDTH; j++) tab[i * WIDTH + j] -= f * tab[row * WIDTH + j];
      this.rhs[i] -= f * this.rhs[row];
      if (this.rhs[i] < 0 && this.rhs[i] > -1e-12) this.rhs[i] = 0;
    }
    this.basis[row] = enter;
  }
}
