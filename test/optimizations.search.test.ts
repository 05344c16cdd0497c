// The search's rules on a synthetic problem (its quality on the engine's problems is
// optimizations.quality.*.test.ts): it is a pure function of the request and the evaluations so far
// (run twice it proposes the same rounds, and a step replayed from any round's end proposes the
// same next round); feasibility first; the budget is a hard limit.
import t from 'tap';
import {
  bestIndex,
  compare,
  type Evaluated,
  isFeasible,
  nextRound,
  type SearchProblem,
} from '../shared/optimizations.search.ts';
import { runSearch } from './helpers/optimizations.problems.ts';

/** A small synthetic problem: a tilted ridge with a constraint, fast enough to replay many times. */
const ridge: SearchProblem = {
  variables: [
    { min: 0, max: 300, step: 10 },
    { min: 0, max: 300, step: 10 },
  ],
  objective: { maximize: 'y' },
  constraints: [{ kpi: 'c', max: 250 }],
  maxEvaluations: 96,
};
const ridgeMetrics = (v: readonly number[]) => ({
  y: -((v[0] + 1.3 * v[1] - 260) ** 2) - 0.2 * (v[0] - 40) ** 2,
  c: v[0] + v[1],
});

t.test(
  'deterministic: the same request and results give the same rounds; a replay from any round end agrees',
  async (t) => {
    const run = () => runSearch(ridge, ridgeMetrics);
    const a = run();
    const b = run();
    t.same(a.history, b.history, 'two runs propose the same points in the same order');
    // Replay: from the history up to the end of each round, the next round is what the run proposed.
    const rounds: Evaluated[][] = [];
    const history: Evaluated[] = [];
    for (let next = nextRound(ridge, history); next; next = nextRound(ridge, history)) {
      rounds.push(next.map((values) => ({ values, metrics: ridgeMetrics(values) })));
      history.push(...rounds[rounds.length - 1]);
    }
    let prefix: Evaluated[] = [];
    for (const round of rounds) {
      t.same(
        nextRound(ridge, [...prefix].reverse()),
        round.map((e) => e.values),
        'the same round from the history in any order',
      );
      prefix = [...prefix, ...round];
    }
    t.equal(nextRound(ridge, prefix), null, 'converged: no next round');
  },
);

t.test(
  'feasibility first: a feasible point beats any infeasible one; less violation beats more; failures are last',
  async (t) => {
    t.ok(compare(ridge, { y: -1e9, c: 100 }, { y: 0, c: 260 }) < 0, 'feasible and poor beats infeasible and good');
    t.ok(compare(ridge, { y: -5, c: 260 }, { y: 0, c: 300 }) < 0, 'less violation first');
    t.ok(compare(ridge, { y: -1e9, c: 400 }, null) < 0, 'a failed evaluation is worst');
    t.ok(compare(ridge, { y: -1e9, c: 100 }, { y: 1, c: 100 }) > 0, 'among feasible, the objective');
    const infeasible = { ...ridge, constraints: [{ kpi: 'c', max: -1 }] };
    const { history } = runSearch(infeasible, ridgeMetrics);
    const best = bestIndex(infeasible, history);
    t.ok(best !== null && !isFeasible(infeasible, history[best].metrics), 'no feasible point: the best is infeasible');
    t.same(best !== null && history[best].values, [0, 0], 'and the least violating');
  },
);

t.test('the budget is a hard limit, and a one-value variable is never varied', async (t) => {
  const small = { ...ridge, maxEvaluations: 10 };
  t.equal(runSearch(small, ridgeMetrics).history.length, 10, 'stops at max_evaluations');
  // Evaluations that stand for one grid point (a history from elsewhere) still use the budget.
  const same = Array.from({ length: 10 }, () => ({ values: [0, 0], metrics: ridgeMetrics([0, 0]) }));
  t.equal(nextRound(small, same), null, 'ten evaluations of one point: the budget of ten is spent');
  const fixed = { ...ridge, variables: [ridge.variables[0], { min: 5, max: 5 }] };
  const { history } = runSearch(fixed, ridgeMetrics);
  t.ok(
    history.every((e) => e.values[1] === 5),
    'the fixed variable stays at its value',
  );
});

t.test('the searches side by side are as many as the budget pays a descent for; the others run after', async (t) => {
  // The ridge's coarse grid at 40 evaluations: 3 × 3 (0, 150, 300), h0 = 8; a descent (h 8, 4, 2, 1)
  // costs at least 8 × 5 + 8 = 48 > 31 left: one search.
  const small = { ...ridge, maxEvaluations: 40 };
  const coarse = nextRound(small, []) ?? [];
  t.equal(coarse.length, 9, 'a 3 × 3 coarse grid');
  const evaluated = coarse.map((values) => ({ values, metrics: ridgeMetrics(values) }));
  const best = evaluated[bestIndex(small, evaluated) as number].values;
  const first = nextRound(small, evaluated) ?? [];
  t.ok(
    first.length > 0 && first.every((v) => Math.max(Math.abs(v[0] - best[0]), Math.abs(v[1] - best[1])) === 80),
    `the first poll (${first.length} points) is around the best coarse point (${best}) only, at h0 = 80`,
  );
  // With the budget for three, the three best coarse points' searches poll together.
  const large = { ...ridge, maxEvaluations: 400 };
  const coarseLarge = (nextRound(large, []) ?? []).map((values) => ({ values, metrics: ridgeMetrics(values) }));
  const bestLarge = coarseLarge[bestIndex(large, coarseLarge) as number].values;
  const together = nextRound(large, coarseLarge) ?? [];
  t.ok(
    together.some((v) => Math.max(Math.abs(v[0] - bestLarge[0]), Math.abs(v[1] - bestLarge[1])) !== 20),
    `at 400, the first poll is around more than the best coarse point (${together.length} points)`,
  );
  // At 96 (16 coarse points, h0 = 5 steps, a descent ≥ 40): two searches side by side, then the
  // third start's: its first poll (± 50 around the third best coarse point) is evaluated too.
  const scored = (nextRound(ridge, []) ?? []).map((values) => ({ values, metrics: ridgeMetrics(values) }));
  const order = [...scored.keys()].sort((a, b) => compare(ridge, scored[a].metrics, scored[b].metrics) || a - b);
  const third = scored[order[2]].values;
  const { history } = runSearch(ridge, ridgeMetrics);
  const tried = new Set(history.map((e) => e.values.join(',')));
  const around = [-1, 0, 1]
    .flatMap((a) => [-1, 0, 1].map((b) => [third[0] + 50 * a, third[1] + 50 * b]))
    .filter((v) => (v[0] !== third[0] || v[1] !== third[1]) && v.every((x) => x >= 0 && x <= 300));
  t.ok(
    around.every((v) => tried.has(v.join(','))),
    `the third start (${third}) polled within the budget (${history.length} of 96)`,
  );
});

t.test('a ridge steeper than a knight’s move is followed to its top at the finest step', async (t) => {
  // y rises by 1 per step of the first variable along w = 3u − 7 (grid units) and falls by 4 per
  // step off it: from a point of the ridge, the knight's (1, 2) is 4 worse; (1, 3) is 1 better. The
  // top is u = 12, w = 29 (y = 12).
  const steep: SearchProblem = { ...ridge, constraints: [] };
  const steepMetrics = (v: readonly number[]) => ({ y: v[0] / 10 - 4 * Math.abs(v[1] / 10 - (3 * v[0]) / 10 + 7) });
  const { history } = runSearch(steep, steepMetrics);
  const best = history[bestIndex(steep, history) as number];
  t.same(best.values, [120, 290], `the top, in ${history.length} evaluations`);
});
