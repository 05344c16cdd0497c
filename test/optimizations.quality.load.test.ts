// The search's quality on a buyer's load (test/helpers/optimizations.quality.ts, docs/load.md): the
// cheapest plant (lcod_nominal) that serves a flat 100 MW load 90 % of its hours, over solar, wind and
// a battery's power and energy. Its case without a battery has a file of its own
// (optimizations.quality.load.declined.test.ts): each exhaustive grid is 1–2 minutes of engine runs.
import { LOAD_PROBLEMS } from './helpers/optimizations.problems.ts';
import { searchQualityTest } from './helpers/optimizations.quality.ts';

searchQualityTest(LOAD_PROBLEMS[0], (t, found, best) => {
  t.ok(best.values[2] > 0, `the exhaustive best has a battery: ${best.values.join(', ')}`);
  t.ok(found.values[2] > 0, `so has the best found: ${found.values.join(', ')}`);
  t.ok((found.metrics?.hourly_match_percent as number) >= 90, 'the best found serves ≥ 90 % of the load');
});
