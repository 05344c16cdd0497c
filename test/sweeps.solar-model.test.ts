// Sweeps and optimizations over PVWatts v8's inputs: a sweep varies solar.model (and bifaciality)
// by JSON pointer like any input, each variant calculates with its model; an optimization's
// variables are numbers, so it searches bifaciality or albedo with the model set in its base.

import t from 'tap';
import { resolveInputs } from '../shared/inputs.resolve.ts';
import { evaluationInputs, planOptimization } from '../shared/optimizations.plan.ts';
import { inlineOnly } from '../shared/resources.refs.ts';
import type { OptimizationRequest } from '../shared/schemas/optimization.ts';
import type { SweepRequest } from '../shared/schemas/sweep.ts';
import { planSweep } from '../shared/sweeps.plan.ts';
import { calculate } from '../worker/engine/index.ts';

const base = { site: { latitude: 35.2, longitude: -101.8 }, start_year: 2027, wind: { capacity_mw: 0 } };
const now = new Date('2026-06-15T12:00:00Z');
const solarMwh = (inputs: Parameters<typeof resolveInputs>[0]) =>
  calculate(inlineOnly(resolveInputs(inputs, { scenarioId: '01936f3e-0000-7000-8000-000000000042', now }))).annual[0]
    .solar_mwh;

t.test('a sweep varies the model: each variant is valid and calculates with its own model', async (t) => {
  const request = {
    name: 'models',
    base,
    vary: [{ path: '/solar/model', values: ['pvwatts_v5', 'pvwatts_v8'] }],
  } as unknown as SweepRequest;
  const expansion = planSweep(request, { maxVariants: 100, seed: 42 });
  t.ok(expansion.ok, JSON.stringify(expansion.ok ? [] : expansion.errors));
  if (!expansion.ok) return;
  const [v5, v8] = expansion.plan.variants;
  t.same([v5.inputs.solar.model, v8.inputs.solar.model], ['pvwatts_v5', 'pvwatts_v8']);
  t.same([v5.values, v8.values], [{ '/solar/model': 'pvwatts_v5' }, { '/solar/model': 'pvwatts_v8' }]);
  const [a, b] = [solarMwh(v5.inputs), solarMwh(v8.inputs)];
  t.not(a, b, `v5 ${a.toFixed(0)} MWh, v8 ${b.toFixed(0)} MWh`);
  t.equal(a, solarMwh({ ...v5.inputs, name: 'alone' }), 'the v5 variant is the v5 scenario');
});

t.test('a sweep of bifaciality on v8; on v5 its variants are refused, naming the field', async (t) => {
  const vary = [{ path: '/solar/bifaciality', values: [0, 0.7] }];
  const v8 = planSweep({ name: 'b', base: { ...base, solar: { array_type: 'single_axis' } }, vary } as never, {
    maxVariants: 100,
    seed: 42,
  });
  t.ok(v8.ok);
  if (v8.ok) {
    const [mono, bi] = v8.plan.variants.map((v) => solarMwh(v.inputs));
    t.ok(bi > mono * 1.02, `bifacial gains ${((bi / mono - 1) * 100).toFixed(1)} %`);
  }
  const v5 = planSweep({ name: 'b', base: { ...base, solar: { model: 'pvwatts_v5' } }, vary } as never, {
    maxVariants: 100,
    seed: 42,
  });
  t.notOk(v5.ok);
  if (!v5.ok)
    t.ok(
      v5.errors.some((e) => e.path === '/vary/0/values/1' && e.message.includes('/solar/bifaciality')),
      JSON.stringify(v5.errors),
    );
});

t.test('an optimization searches bifaciality on v8, the model in its base', async (t) => {
  const request = {
    name: 'bifaciality',
    base: { ...base, seed: 1, solar: { model: 'pvwatts_v8' } },
    variables: [{ path: '/solar/bifaciality', min: 0, max: 0.8, step: 0.1 }],
    objective: { maximize: 'equity_npv' },
  } as unknown as OptimizationRequest;
  const r = planOptimization(request, 7);
  t.ok(r.ok, JSON.stringify(r.ok ? [] : r.errors));
  if (!r.ok) return;
  const point = evaluationInputs(r.plan, [0.6], '#0');
  t.ok(point.ok);
  if (point.ok) t.same([point.value.solar.model, point.value.solar.bifaciality], ['pvwatts_v8', 0.6]);
});
