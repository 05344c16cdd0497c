// The optimization's search: a pure, deterministic function of the request and the evaluations so
// far. It keeps no state: every call replays the search from the evaluated points, so a step that
// is run twice (a retry, a crash) proposes the same next round.
//
// The method: every variable lives on its grid (min + k·step). Round 0 is a coarse grid over the
// box; then a pattern search starts from each of the best few coarse points: it polls ±h along each
// variable and along each pair of variables (up to 4 variables), moves to the best poll point when
// it is better than the centre, and halves h when none is, until h is one grid step and no
// neighbour is better (at that step it also polls knight's moves, each extended along its long leg
// while that keeps improving). As many searches as the budget pays a descent for run side by side, so a
// round holds every such search's poll points (several workers help); the other starts' searches
// run after them while the budget lasts.
//
// Ordering (feasibility first): an evaluation that failed is worst; otherwise the one with the
// smaller total constraint violation is better; among equal violations (0 = feasible) the better
// objective wins; ties go to the point first in grid order.

export interface SearchVariable {
  min: number;
  max: number;
  /** The grid step; (max − min) / 100 when not given (0 for a fixed variable). */
  step?: number;
}

export type Objective = { maximize: string } | { minimize: string };

export interface Constraint {
  kpi: string;
  min?: number;
  max?: number;
}

export interface SearchProblem {
  variables: readonly SearchVariable[];
  objective: Objective;
  constraints: readonly Constraint[];
  maxEvaluations: number;
}

/** The KPIs (and derived measures) of one evaluation; null when it failed. */
export type Metrics = Readonly<Record<string, number | null | undefined>>;

export interface Evaluated {
  values: readonly number[];
  metrics: Metrics | null;
}

/** How many grid values each variable has, and its step. */
export function gridOf(problem: SearchProblem): { steps: number[]; counts: number[] } {
  const steps = problem.variables.map((v) => (v.max === v.min ? 0 : (v.step ?? (v.max - v.min) / 100)));
  const counts = problem.variables.map((v, i) =>
    steps[i] === 0 ? 1 : Math.floor((v.max - v.min) / steps[i] + 1e-9) + 1,
  );
  return { steps, counts };
}

/** The exhaustive grid's size (what a sweep over every grid value would evaluate). */
export const gridSize = (problem: SearchProblem) => gridOf(problem).counts.reduce((a, b) => a * b, 1);

const valueAt = (v: SearchVariable, step: number, k: number) => Number((v.min + k * step).toPrecision(12));

/** The values of a grid point. */
export function pointValues(problem: SearchProblem, units: readonly number[]): number[] {
  const { steps } = gridOf(problem);
  return units.map((k, i) => valueAt(problem.variables[i], steps[i], k));
}

function unitsOf(problem: SearchProblem, steps: number[], values: readonly number[]): number[] {
  return values.map((x, i) => (steps[i] === 0 ? 0 : Math.round((x - problem.variables[i].min) / steps[i])));
}

const keyOf = (units: readonly number[]) => units.join(',');

/** The total relative violation of the constraints (0 = feasible); Infinity when a KPI is missing. */
export function violation(problem: SearchProblem, metrics: Metrics): number {
  let total = 0;
  for (const c of problem.constraints) {
    const x = metrics[c.kpi];
    if (x === null || x === undefined || !Number.isFinite(x)) return Number.POSITIVE_INFINITY;
    if (c.min !== undefined && x < c.min) total += (c.min - x) / Math.max(Math.abs(c.min), 1);
    if (c.max !== undefined && x > c.max) total += (x - c.max) / Math.max(Math.abs(c.max), 1);
  }
  return total;
}

/** The objective's value, signed so that larger is better; null when it is missing. */
export function score(problem: SearchProblem, metrics: Metrics | null): number | null {
  if (!metrics) return null;
  const name = 'maximize' in problem.objective ? problem.objective.maximize : problem.objective.minimize;
  const x = metrics[name];
  if (x === null || x === undefined || !Number.isFinite(x)) return null;
  return 'maximize' in problem.objective ? x : -x;
}

/** Negative when a is better than b, positive when b is better, 0 when they are as good. */
export function compare(problem: SearchProblem, a: Metrics | null, b: Metrics | null): number {
  const sa = score(problem, a);
  const sb = score(problem, b);
  if (sa === null || sb === null) return (sa === null ? 1 : 0) - (sb === null ? 1 : 0);
  const va = violation(problem, a as Metrics);
  const vb = violation(problem, b as Metrics);
  if (va !== vb) return va < vb ? -1 : 1;
  return sb - sa;
}

export const isFeasible = (problem: SearchProblem, metrics: Metrics | null) =>
  score(problem, metrics) !== null && violation(problem, metrics as Metrics) === 0;

/** The best evaluation's index in `history` (feasibility first), or null when there is none. */
export function bestIndex(problem: SearchProblem, history: readonly Evaluated[]): number | null {
  let best: number | null = null;
  for (let i = 0; i < history.length; i++) {
    if (score(problem, history[i].metrics) === null) continue;
    if (best === null || compare(problem, history[i].metrics, history[best].metrics) < 0) best = i;
  }
  return best;
}

/** Grid values per variable in round 0: as many as a quarter of the budget allows, at least 2. */
function coarseLevels(problem: SearchProblem, counts: number[]): number[] {
  const free = counts.filter((n) => n > 1).length || 1;
  const per = Math.max(2, Math.floor((problem.maxEvaluations / 4) ** (1 / free) + 1e-9));
  return counts.map((n) => Math.min(n, per));
}

/** Round 0: the coarse grid, each variable at `levels` evenly spread grid values (ends included). */
function coarseGrid(counts: number[], levels: number[]): number[][] {
  const axes = counts.map((n, i) =>
    levels[i] <= 1 ? [0] : Array.from({ length: levels[i] }, (_, j) => Math.round((j * (n - 1)) / (levels[i] - 1))),
  );
  let points: number[][] = [[]];
  for (const axis of axes) points = points.flatMap((p) => [...new Set(axis)].map((k) => [...p, k]));
  return points;
}

interface Compass {
  centre: number[];
  h: number[];
}

/** How many pattern searches start from the coarse grid's best points, at most. */
const STARTS = 3;

/** The search as a replay: the next round's points (values, not yet evaluated), or null when it has converged. */
export function nextRound(problem: SearchProblem, history: readonly Evaluated[]): number[][] | null {
  const { steps, counts } = gridOf(problem);
  const known = new Map<string, Metrics | null>();
  for (const e of history) known.set(keyOf(unitsOf(problem, steps, e.values)), e.metrics);
  // Every evaluation counts, even one whose point another already stood for: a hard limit.
  const budget = problem.maxEvaluations - history.length;
  if (budget <= 0) return null;
  const levels = coarseLevels(problem, counts);
  const coarse = coarseGrid(counts, levels);
  const missing = coarse.filter((u) => !known.has(keyOf(u)));
  const values = (points: number[][]) => points.map((u) => u.map((k, i) => valueAt(problem.variables[i], steps[i], k)));
  if (missing.length > 0) return values(missing.slice(0, budget));
  const better = (a: number[], b: number[]) => {
    const c = compare(problem, known.get(keyOf(a)) ?? null, known.get(keyOf(b)) ?? null);
    return c !== 0 ? c < 0 : keyOf(a) < keyOf(b);
  };
  const h0 = counts.map((n, i) => Math.max(1, Math.round((n - 1) / Math.max(1, levels[i] - 1) / 2)));
  const affordable = Math.floor((problem.maxEvaluations - coarse.length) / descentCost(counts, h0));
  const ranked = [...coarse].sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0)).slice(0, STARTS);
  // As many searches side by side as the budget affords; when they have all stopped and budget is
  // left, the next start's search runs (so every start gets its search while the budget lasts).
  let wanted: number[][] = [];
  for (let active = Math.min(ranked.length, Math.max(1, affordable)); active <= ranked.length; active++) {
    wanted = pollsOf(ranked.slice(0, active), h0, counts, known, better);
    if (wanted.length > 0) break;
  }
  return wanted.length === 0 ? null : values(wanted.slice(0, budget));
}

/** The unknown poll points of the searches from these starts, each moved as far as the evaluations allow (no repeats). */
function pollsOf(
  starts: number[][],
  h0: number[],
  counts: number[],
  known: Map<string, Metrics | null>,
  better: (a: number[], b: number[]) => boolean,
): number[][] {
  const wanted: number[][] = [];
  const seen = new Set<string>();
  for (const start of starts) {
    for (const u of advance({ centre: start, h: [...h0] }, counts, known, better) ?? []) {
      if (!seen.has(keyOf(u))) wanted.push(u);
      seen.add(keyOf(u));
    }
  }
  return wanted;
}

/**
 * What one pattern search costs at least, from h0 to the end: a full poll at each h (h halves from
 * h0 to 1), one more for a move, and the knight's moves at the finest step. Only as many searches
 * start as the budget left after the coarse grid pays for (1 to STARTS): with a small budget, three
 * searches side by side would each stop half way down.
 */
function descentCost(counts: number[], h0: number[]): number {
  const free = counts.filter((n) => n > 1).length;
  const pairs = free <= PAIRS_UP_TO ? (free * (free - 1)) / 2 : 0;
  let levels = 1;
  for (let h = Math.max(...h0); h > 1; h = Math.floor(h / 2)) levels++;
  return (2 * free + DIAGONALS.length * pairs) * (levels + 1) + KNIGHTS.length * pairs;
}

/** Moves one compass search as far as the known evaluations allow; its unknown poll points, or null when converged. */
function advance(
  search: Compass,
  counts: number[],
  known: Map<string, Metrics | null>,
  better: (a: number[], b: number[]) => boolean,
): number[][] | null {
  for (;;) {
    const poll = pollPoints(search, counts);
    if (search.h.every((h) => h <= 1)) poll.push(...ridgeExtensions(search.centre, counts, known, better, poll));
    const unknown = poll.filter((u) => !known.has(keyOf(u)));
    if (unknown.length > 0) return unknown;
    const best = poll.reduce<number[] | null>((b, u) => (b === null || better(u, b) ? u : b), null);
    if (best && better(best, search.centre)) {
      search.centre = best;
      continue;
    }
    if (search.h.every((h) => h <= 1)) return null;
    search.h = search.h.map((h) => Math.max(1, Math.floor(h / 2)));
  }
}

/**
 * At the finest step, each knight's move is extended along its long leg while that keeps improving:
 * (1, k) for k = 3, 4, … (and (k, 1)) as long as the point at k − 1 is known and better than the
 * point at k − 2, so a ridge steeper than the knight's is still followed, whatever its slope in grid
 * steps.
 */
function ridgeExtensions(
  centre: number[],
  counts: number[],
  known: Map<string, Metrics | null>,
  better: (a: number[], b: number[]) => boolean,
  poll: number[][],
): number[][] {
  const free = counts.flatMap((n, i) => (n > 1 ? [i] : []));
  if (free.length > PAIRS_UP_TO) return [];
  const seen = new Set(poll.map(keyOf));
  const out: number[][] = [];
  const at = (i: number, a: number, j: number, b: number) => {
    const u = [...centre];
    u[i] += a;
    u[j] += b;
    return u[i] >= 0 && u[i] < counts[i] && u[j] >= 0 && u[j] < counts[j] ? u : null;
  };
  for (const i of free) {
    for (const j of free) {
      if (i === j) continue;
      for (const [a, b] of DIAGONALS) {
        for (let k = 2; ; k++) {
          const prev = at(i, a, j, (k - 1) * b);
          const here = at(i, a, j, k * b);
          const next = at(i, a, j, (k + 1) * b);
          if (!prev || !here || !next || !known.has(keyOf(prev)) || !known.has(keyOf(here))) break;
          if (!better(here, prev)) break;
          if (!seen.has(keyOf(next))) out.push(next);
          seen.add(keyOf(next));
        }
      }
    }
  }
  return out;
}

/** Pair directions (±e_i ± e_j) are polled up to this many free variables: a ridge across two variables is common (capacities behind one limit). */
const PAIRS_UP_TO = 4;

const DIAGONALS = [
  [1, 1],
  [1, -1],
  [-1, 1],
  [-1, -1],
];
/** A knight's moves: on the finest grid, a ridge between two grid diagonals is still followed. */
const KNIGHTS = DIAGONALS.flatMap(([a, b]) => [
  [2 * a, b],
  [a, 2 * b],
]);
const pairSteps = (h: number[]) => (h.every((x) => x <= 1) ? [...DIAGONALS, ...KNIGHTS] : DIAGONALS);

/** The poll set: ±h along each variable, and along each pair of variables (both signs) for a few variables. */
function pollPoints(search: Compass, counts: number[]): number[][] {
  const free = counts.flatMap((n, i) => (n > 1 ? [i] : []));
  const directions: Array<Map<number, number>> = [];
  for (const i of free) for (const s of [-1, 1]) directions.push(new Map([[i, s]]));
  if (free.length <= PAIRS_UP_TO) {
    for (const [a, i] of free.entries()) {
      for (const j of free.slice(a + 1)) {
        for (const [si, sj] of pairSteps(search.h))
          directions.push(
            new Map([
              [i, si],
              [j, sj],
            ]),
          );
      }
    }
  }
  const points: number[][] = [];
  const seen = new Set<string>([keyOf(search.centre)]);
  for (const d of directions) {
    const moved = search.centre.map((k, i) => Math.min(counts[i] - 1, Math.max(0, k + (d.get(i) ?? 0) * search.h[i])));
    if (seen.has(keyOf(moved))) continue;
    seen.add(keyOf(moved));
    points.push(moved);
  }
  return points;
}
