// The search's quality on a buyer's load (test/helpers/optimizations.quality.ts, docs/load.md): the
// cheapest plant (lcod_nominal) that serves a flat 100 MW load 90 % of its hours, over solar, wind and
// a battery's power and energy; and, with a dear battery at 70 %, a problem whose best plant has no
// battery, which the search must find (power 0): a search that never declines the battery is wrong.
import { LOAD_PROBLEMS } from './helpers/optimizations.problems.ts';
import { searchQualityTest } from './helpers/optimizations.quality.ts';

const [withBattery, withoutBattery] = LOAD_PROBLEMS;
const power = (values: readonly number[]) => values[2];

searchQualityTest(withBattery, (t, found, best) => {
  t.ok(power(best.values) > 0, `the exhaustive best has a battery: ${best.values.join(', ')}`);
  t.ok(power(found.values) > 0, `so has the best found: ${found.values.join(', ')}`);
  t.ok((found.metrics?.hourly_match_percent as number) >= 90, 'the best found serves ≥ 90 % of the load');
});
searchQualityTest(withoutBattery, (t, found, best) => {
  t.equal(power(best.values), 0, `the exhaustive best has no battery: ${best.values.join(', ')}`);
  t.equal(power(found.values), 0, `nor has the best found: ${found.values.join(', ')}`);
  t.ok((found.metrics?.hourly_match_percent as number) >= 70, 'the best found serves ≥ 70 % of the load');
});
