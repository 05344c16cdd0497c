// The search's quality on problems whose exhaustive answer a sweep gives, against the engine
// directly (no database): on each, the best found is within 0.5 % of the exhaustive grid's best
// with at most a tenth of its evaluations. And the search is a pure function of the request and
// the evaluations so far: run twice it proposes the same rounds, and a step replayed from any
// round's end proposes the same next round.
import t from 'tap';
import {
  bestIndex,
  compare,
  type Evaluated,
  gridSize,
  isFeasible,
  nextRound,
  type SearchProblem,
  score,
} from '../shared/optimize.search.ts';
import { engineEvaluator, exhaustive, PROBLEMS, runSearch, searchProblem } from './helpers/optimize.problems.ts';

const MAX_GAP_PERCENT = 0.5;

for (const p of PROBLEMS) {
  t.test(p.name, async (t) => {
    const budget = Math.floor(gridSize(searchProblem(p, 1)) / 10);
    const problem = searchProblem(p, budget);
    const ev = engineEvaluator(p);
    const t0 = performance.now();
    const { history, rounds } = runSearch(problem, ev.evaluate);
    const searchMs = performance.now() - t0;
    const all = exhaustive(p, ev.evaluate);
    const exBest = bestIndex(problem, all);
    const found = bestIndex(problem, history);
    if (exBest === null || found === null) throw new Error('no evaluation succeeded');
    const ex = score(problem, all[exBest].metrics) as number;
    const fo = score(problem, history[found].metrics) as number;
    const gap = (100 * (ex - fo)) / Math.abs(ex);
    t.ok(history.length <= all.length / 10, `${history.length} evaluations ≤ a tenth of the grid's ${all.length}`);
    t.equal(
      isFeasible(problem, history[found].metrics),
      isFeasible(problem, all[exBest].metrics),
      'feasible as the exhaustive best',
    );
    t.ok(gap <= MAX_GAP_PERCENT, `gap ${gap.toFixed(4)} % ≤ ${MAX_GAP_PERCENT} %`);
    t.comment(
      `| ${p.name} | ${all[exBest].values.join(', ')} → ${ex.toPrecision(6)} | ${history[found].values.join(', ')} → ${fo.toPrecision(6)} | ${gap.toFixed(3)} % | ${history.length} of ${all.length} | ${rounds} rounds | ${Math.round(searchMs)} ms |`,
    );
  });
}

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
  const fixed = { ...ridge, variables: [ridge.variables[0], { min: 5, max: 5 }] };
  const { history } = runSearch(fixed, ridgeMetrics);
  t.ok(
    history.every((e) => e.values[1] === 5),
    'the fixed variable stays at its value',
  );
});
