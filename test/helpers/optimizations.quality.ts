// The search's quality on one problem whose exhaustive answer a sweep gives, against the engine
// directly (no database): the best found is within 0.5 % of the exhaustive grid's best with at most
// a tenth of its evaluations. Each optimizations.quality.*.test.ts file runs some of PROBLEMS (the
// battery's grid alone is ~70 s of engine runs, so it has a file of its own).
import t from 'tap';
import { bestIndex, gridSize, isFeasible, score } from '../../shared/optimizations.search.ts';
import { engineEvaluator, exhaustive, runSearch, searchProblem, type TestProblem } from './optimizations.problems.ts';

const MAX_GAP_PERCENT = 0.5;

/** One tap test: the search on `p` against its exhaustive grid. */
export function searchQualityTest(p: TestProblem): void {
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
