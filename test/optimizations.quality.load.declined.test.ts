// The search's quality on a buyer's load whose best plant has no battery (test/helpers/
// optimizations.quality.ts, docs/load.md): a flat 100 MW load at ≥ 70 % hourly match with a dear
// battery, over solar, wind and the battery's power. The search must find power 0: a search that
// never declines the battery is wrong.
import { LOAD_PROBLEMS } from './helpers/optimizations.problems.ts';
import { searchQualityTest } from './helpers/optimizations.quality.ts';

searchQualityTest(LOAD_PROBLEMS[1], (t, found, best) => {
  t.equal(best.values[2], 0, `the exhaustive best has no battery: ${best.values.join(', ')}`);
  t.equal(found.values[2], 0, `nor has the best found: ${found.values.join(', ')}`);
  t.ok((found.metrics?.hourly_match_percent as number) >= 70, 'the best found serves ≥ 70 % of the load');
});
