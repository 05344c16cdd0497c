// An optimization request checked before anything is written (shared/optimizations.plan.ts), without
// a database: the box is checked at its faces and its corners. A bound at which no checked point is
// a valid scenario is refused by name; a field of the base that is wrong at some point is the
// base's; a corner that fails only for a combination of bounds each valid elsewhere is accepted
// (it is evaluated, as failed).
import t from 'tap';
import { planOptimization } from '../shared/optimizations.plan.ts';
import type { OptimizationRequest } from '../shared/schemas/optimization.ts';

const site = { latitude: 35.2, longitude: -101.8 };

function plan(body: Partial<OptimizationRequest> & Pick<OptimizationRequest, 'variables'>) {
  const request = {
    name: 'plan test',
    base: { site, seed: 1 },
    objective: { maximize: 'equity_npv' },
    ...body,
  } as OptimizationRequest;
  return planOptimization(request, 7);
}

const paths = (r: ReturnType<typeof plan>) => (r.ok ? [] : r.errors.map((e) => e.path));

t.test('a corner that fails only for its combination is accepted: solar and wind both from 0', async (t) => {
  const r = plan({
    variables: [
      { path: '/solar/capacity_mw_dc', min: 0, max: 300, step: 10 },
      { path: '/wind/capacity_mw', min: 0, max: 300, step: 10 },
    ],
  });
  t.ok(r.ok, JSON.stringify(paths(r)));
});

t.test(
  "a battery's power and energy from 0: energy 0 is valid with power 0 (a corner), so both ranges stand",
  async (t) => {
    const r = plan({
      base: { site, seed: 1, storage: { power_mw: 50, energy_mwh: 200 } },
      variables: [
        { path: '/storage/power_mw', min: 0, max: 100, step: 5 },
        { path: '/storage/energy_mwh', min: 0, max: 400, step: 10 },
      ],
    });
    t.ok(r.ok, JSON.stringify(paths(r)));
  },
);

t.test('a bound at which no checked point is valid is refused by name, with the reason', async (t) => {
  const r = plan({
    base: { site, seed: 1, storage: { power_mw: 50, energy_mwh: 200 } },
    variables: [{ path: '/storage/energy_mwh', min: 0, max: 400, step: 10 }],
  });
  t.same(paths(r), ['/variables/0/min'], 'energy 0 with the base’s 50 MW is never a battery');
  t.match(!r.ok && r.errors[0].message, /energy_mwh = 0: .*needs energy/);
  const big = plan({ variables: [{ path: '/solar/capacity_mw_dc', min: 0, max: 200_000_000 }] });
  t.same(paths(big), ['/variables/0/max'], "out of the input's range");
});

t.test("a base field wrong at some point of the box is the base's, named with the point", async (t) => {
  // soc_max from 30: below the base's initial SOC of 50 at that face.
  const r = plan({
    base: { site, seed: 1, storage: { power_mw: 50, energy_mwh: 200, initial_soc_percent: 50 } },
    variables: [{ path: '/storage/soc_max_percent', min: 30, max: 100, step: 5 }],
  });
  t.same(paths(r), ['/base/storage/initial_soc_percent']);
  t.match(!r.ok && r.errors[0].message, /\/storage\/soc_max_percent = 30: must lie between/);
  const wrong = plan({
    base: { site, seed: 1, wind: { hub_height_m: 1 } },
    variables: [{ path: '/solar/capacity_mw_dc', min: 10, max: 300 }],
  });
  t.same(paths(wrong), ['/base/wind/hub_height_m'], 'a base wrong everywhere');
});

t.test('two variables with a rule between them: corners decide which bound is at fault', async (t) => {
  // soc_min 10–60 and soc_max 40–100 with the initial SOC at 50: soc_min = 60 is valid nowhere (the
  // initial SOC lies below it at the face and at (60, 100), and the bounds cross at (60, 40)); the
  // initial SOC is the base's field.
  const r = plan({
    base: { site, seed: 1, storage: { power_mw: 50, energy_mwh: 200, initial_soc_percent: 50 } },
    variables: [
      { path: '/storage/soc_min_percent', min: 10, max: 60, step: 5 },
      { path: '/storage/soc_max_percent', min: 40, max: 100, step: 5 },
    ],
  });
  t.same(paths(r), ['/base/storage/initial_soc_percent', '/variables/0/max']);
  const ok = plan({
    base: { site, seed: 1, storage: { power_mw: 50, energy_mwh: 200, initial_soc_percent: 45 } },
    variables: [
      { path: '/storage/soc_min_percent', min: 10, max: 45, step: 5 },
      { path: '/storage/soc_max_percent', min: 45, max: 100, step: 5 },
    ],
  });
  t.ok(ok.ok, `the crossing corner (45, 45) alone is a combination: accepted ${JSON.stringify(paths(ok))}`);
});

t.test('a step finer than the grid can hold is refused, not searched forever', async (t) => {
  const lat = (step?: number, min = -90, max = 90) =>
    plan({ variables: [{ path: '/site/latitude', min, max, ...(step === undefined ? {} : { step }) }] });
  const tiny = lat(1e-300);
  t.same(paths(tiny), ['/variables/0/step'], 'a step of 1e-300: every grid value would be one number');
  t.match(!tiny.ok && tiny.errors[0].message, /too fine: at most 1,000,000 steps/);
  t.same(paths(lat(1e-4)), ['/variables/0/step'], '180 / 1e-4: 1.8 million steps, refused');
  t.same(paths(lat(1e-3)), [], '180,000 steps: accepted');
  const narrow = plan({ variables: [{ path: '/solar/capacity_mw_dc', min: 100_000, max: 100_000 + 1e-7 }] });
  t.same(paths(narrow), ['/variables/0/max'], 'a default step below 12 significant digits of the values');
  t.match(!narrow.ok && narrow.errors[0].message, /too fine for values of 100000/);
});

t.test('an item of an array the base does not give is refused at the path, saying what to give', async (t) => {
  const hour = (base: Record<string, unknown>) =>
    plan({ base, variables: [{ path: '/market/merchant_hour_of_day_multipliers/18', min: 1, max: 3 }] });
  const r = hour({ site, seed: 1 });
  t.same(paths(r), ['/variables/0/path']);
  t.match(
    !r.ok && r.errors[0].message,
    /sets an item of \/market\/merchant_hour_of_day_multipliers, which the base does not give: put the whole array \(24 items\)/,
  );
  const given = hour({ site, seed: 1, market: { merchant_hour_of_day_multipliers: Array(24).fill(1) } });
  t.ok(given.ok, 'with the array in the base, its item is a variable');
  const curve = plan({ variables: [{ path: '/wind/turbine/power_curve/3/1', min: 0, max: 1000 }] });
  t.same(paths(curve), ['/variables/0/path'], 'a power curve point of a base without a curve');
  t.match(!curve.ok && curve.errors[0].message, /put the whole array in the base$/, 'no count when the length is free');
});
