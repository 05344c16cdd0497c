// PVWatts v5 scenarios calculate exactly as before PVWatts v8 existed: the SHA-256 of each full
// result (statements, hourly arrays, KPIs) was taken on main at 0ebbc1c, without v8,
// with the same inputs less `solar.model` (which did not exist then). Any change to a v5 result,
// however small, fails here.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import t from 'tap';
import type { ScenarioInputs } from '../shared/schemas/inputs.ts';
import { calculate } from '../worker/engine/index.ts';
import { type DeepPartial, resolvedInputs } from './fixtures/inputs.ts';

const phoenix = readFileSync(new URL('./fixtures/reference/phoenix_az_tmy2.csv', import.meta.url), 'utf8');

const CASES: [string, DeepPartial<ScenarioInputs>, string][] = [
  ['the default scenario', {}, '309f7531e2942ef0de159aac5b7118b0417569671f2606ff4ce1436a38a1a074'],
  [
    'Phoenix TMY2, fixed, with a battery',
    {
      site: { latitude: 33.43, longitude: -112.02, elevation_m: 339 },
      weather: { source: 'sam_csv', text: phoenix },
      storage: { power_mw: 20, energy_mwh: 80 },
    },
    '5d744c7d5a383ac4f09bba4a1a3f8e3904f5ec2df5d5b1f457cbabc431496a5c',
  ],
  [
    'a premium single-axis tracker with a loss breakdown behind a limit',
    {
      site: { latitude: 31.9, longitude: -102.1, elevation_m: 870 },
      solar: {
        array_type: 'single_axis',
        capacity_mw_dc: 150,
        module_type: 'premium',
        // The other categories at their defaults (shared/schemas/inputs.ts, PvLossBreakdown).
        losses_breakdown: { soiling: 3, shading: 1 },
      },
      grid: { export_limit_mw: 120 },
    },
    '5818812135942e9961b85a6e5cacd149aba60ab776e3d915ce1378f7a9a35b71',
  ],
  [
    'two-axis with the PPA price solved',
    {
      solar: { array_type: 'two_axis' },
      market: { ppa_price_per_mwh: 'solve' },
      finance: { target_equity_irr_percent: 10 },
    },
    '64a1adf22badfb8610a7f1fbf0560b7ffe3d6494256014eecf9e1d3bb8c114fa',
  ],
];

for (const [name, overrides, digest] of CASES) {
  t.test(`v5: ${name} is byte for byte what it was`, async (t) => {
    const inputs = resolvedInputs({ ...overrides, solar: { ...overrides.solar, model: 'pvwatts_v5' } });
    const sha = createHash('sha256')
      .update(JSON.stringify(calculate(inputs)))
      .digest('hex');
    t.equal(sha, digest);
  });
}

t.test('stored inputs without a model (written before v8) calculate as v5', async (t) => {
  const v5 = resolvedInputs({ solar: { model: 'pvwatts_v5' } });
  const { model: _model, ...solar } = v5.solar;
  const sha = createHash('sha256')
    .update(JSON.stringify(calculate({ ...v5, solar: solar as typeof v5.solar })))
    .digest('hex');
  t.equal(sha, CASES[0][2]);
});
