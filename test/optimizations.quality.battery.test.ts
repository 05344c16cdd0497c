// The search's quality on the problems with a battery (test/helpers/optimizations.quality.ts): its power
// and energy beside a plant behind a limit. A file of its own: its exhaustive grid is the longest.
import { PROBLEMS } from './helpers/optimizations.problems.ts';
import { searchQualityTest } from './helpers/optimizations.quality.ts';

for (const p of PROBLEMS.filter((p) => 'storage' in p.base)) searchQualityTest(p);
