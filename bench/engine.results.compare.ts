// Two checkouts' engines on the battery and load scenarios, every value of each full result compared
// with Object.is (every field, every hourly series: also those added since bench/engine.digests.json
// was taken, which its check leaves out, such as the load's split), with the hourly arrays reused as
// the worker's engine thread does and fresh. Exits 1 on any difference; prints the first few.
// Usage: node bench/engine.results.compare.ts <base checkout> <other checkout>
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HOURS_PER_YEAR, YEARS } from '../shared/calendar.ts';
import type { ResolvedInputs, ScenarioInputs } from '../shared/schemas/inputs.ts';
import { type DeepPartial, resolvedInputs } from '../test/fixtures/inputs.ts';
import { checkoutsAndCounts } from './stats.ts';

type Calculate = (inputs: ResolvedInputs, options?: object) => object;

const { roots } = checkoutsAndCounts('node bench/engine.results.compare.ts <base> <other>', []);
const engines: Calculate[] = [];
for (const root of roots)
  engines.push((await import(pathToFileURL(resolve(root, 'worker/engine/index.ts')).href)).calculate);

const backup = Array.from({ length: HOURS_PER_YEAR }, (_, i) =>
  i % 24 >= 17 && i % 24 < 22 ? 140 : i % 24 < 6 ? 35 : 70,
);
const flat = {
  flat_mw: 60,
  contract: {
    availability: [
      { period: 'year' as const, min_percent: 90 },
      { period: 'month' as const, min_percent: 80 },
    ],
  },
};
type Storage = NonNullable<DeepPartial<ScenarioInputs>['storage']>;
const battery = (extra: Storage = {}): Storage => ({
  power_mw: 100,
  energy_mwh: 400,
  dispatch: { strategy: 'load' },
  ...extra,
});
const CASES: [string, DeepPartial<ScenarioInputs>][] = [
  ["bench #1's load row", { load: flat, storage: battery() }],
  [
    'grid charging, hourly backup price',
    { load: { ...flat, backup: { price_per_mwh: backup } }, storage: battery({ charge_from_grid: true }) },
  ],
  [
    'excess curtailed behind a limit',
    {
      grid: { export_limit_mw: 90 },
      load: { ...flat, excess: 'curtail' },
      storage: battery({ charge_from_grid: true }),
    },
  ],
  [
    'a daily cycle limit',
    { load: flat, storage: battery({ dispatch: { strategy: 'load', max_cycles_per_day: 0.5 } }) },
  ],
  [
    "the operator's hourly limit",
    {
      grid: {
        export_limit_mw: 150,
        export_limit_hourly_mw: Array.from({ length: HOURS_PER_YEAR }, (_, i) => (i % 24 >= 17 ? 40 : 150)),
      },
      load: flat,
      storage: battery(),
    },
  ],
  [
    'load growth, escalations',
    {
      load: {
        ...flat,
        growth_percent_per_year: 1,
        contract: { escalation_percent: 2.5 },
        backup: { escalation_percent: 3 },
      },
      storage: battery(),
    },
  ],
  ['an arbitrage battery with a load', { load: flat, storage: battery({ dispatch: { strategy: 'arbitrage' } }) }],
  ['the cycling battery (no load)', { grid: { export_limit_mw: 120 }, storage: { power_mw: 100, energy_mwh: 400 } }],
];

/** Where x and y differ (at most `max`), by path. */
function differences(x: unknown, y: unknown, path: string, out: string[], max = 5): void {
  if (out.length >= max) return;
  if (ArrayBuffer.isView(x) && ArrayBuffer.isView(y)) {
    const a = x as unknown as ArrayLike<number>;
    const b = y as unknown as ArrayLike<number>;
    if (a.length !== b.length) out.push(`${path}: length ${a.length} vs ${b.length}`);
    else
      for (let i = 0; i < a.length; i++)
        if (!Object.is(a[i], b[i])) {
          out.push(`${path}[${i}]: ${a[i]} vs ${b[i]}`);
          return;
        }
    return;
  }
  if (typeof x === 'object' && x !== null && typeof y === 'object' && y !== null) {
    for (const k of new Set([...Object.keys(x), ...Object.keys(y)]))
      differences((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k], `${path}.${k}`, out, max);
    return;
  }
  if (!Object.is(x, y)) out.push(`${path}: ${String(x)} vs ${String(y)}`);
}

const buffers = () => ({
  solar: new Float64Array(YEARS * HOURS_PER_YEAR),
  wind: new Float64Array(YEARS * HOURS_PER_YEAR),
});
let different = 0;
for (const [name, overrides] of CASES) {
  const inputs = resolvedInputs(overrides);
  const out: string[] = [];
  const [a, b] = engines;
  differences(a(inputs, { hourly: buffers() }), b(inputs, { hourly: buffers() }), 'reused', out);
  differences(a(inputs), b(inputs), 'fresh', out);
  console.log(out.length ? `DIFFERENT  ${name}: ${out.join('; ')}` : `identical  ${name}`);
  if (out.length) different++;
}
process.exit(different ? 1 : 0);
