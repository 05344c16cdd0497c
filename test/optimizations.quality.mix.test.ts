// The search's quality on the problems without a battery (test/helpers/optimizations.quality.ts): solar
// and wind behind a limit, with and without a constraint, the PPA price solved for, and the export
// limit as a third variable.
import { PROBLEMS } from './helpers/optimizations.problems.ts';
import { searchQualityTest } from './helpers/optimizations.quality.ts';

for (const p of PROBLEMS.filter((p) => !('storage' in p.base))) searchQualityTest(p);
