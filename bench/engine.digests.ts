// The engine's fingerprints: the SHA-256 of each full result (statements, hourly arrays, KPIs) of
// ~15 scenarios across the engine (PVWatts v5 and v8 with bifacial and single-axis, every battery
// strategy, the buyer's load with and without a battery, a measured TMY2 year and an SRW wind farm
// with wakes). A refactor that must not change a result runs it before and after:
//   node bench/engine.digests.ts                                  # prints the digests as JSON
//   node bench/engine.digests.ts --check bench/engine.digests.json  # exits 1 on any difference
// bench/engine.digests.json holds the digests of the engine at bed617e and the result's top-level
// fields then: a check hashes only those fields, so a series added since is reported, not a difference.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ScenarioInputs } from '../shared/schemas/inputs.ts';
import { type DeepPartial, resolvedInputs } from '../test/fixtures/inputs.ts';
import { constantPlant, noonSolarToEvening } from '../test/helpers/load.inputs.ts';
import { calculate } from '../worker/engine/index.ts';

const reference = (name: string) =>
  readFileSync(new URL(`../test/fixtures/reference/${name}`, import.meta.url), 'utf8');
const phoenix = reference('phoenix_az_tmy2.csv');
const srw = reference('az_eastern_rolling_hills.srw');

const phoenixSite = {
  site: { latitude: 33.43, longitude: -112.02, elevation_m: 339 },
  weather: { source: 'sam_csv' as const, text: phoenix },
};
const battery = (strategy: 'arbitrage' | 'capture' | 'load', extra: object = {}) => ({
  power_mw: 20,
  energy_mwh: 80,
  dispatch: { strategy },
  ...extra,
});
/** Nine turbines on a 3 × 3 grid, 5 rotor diameters apart. */
const grid = (n: number, spacing: number) => ({
  x_m: Array.from({ length: n * n }, (_, i) => (i % n) * spacing),
  y_m: Array.from({ length: n * n }, (_, i) => Math.floor(i / n) * spacing),
});

const CASES: [string, DeepPartial<ScenarioInputs>][] = [
  ['default', {}],
  ['v5 default', { solar: { model: 'pvwatts_v5' } }],
  [
    'v5 single-axis behind a limit',
    { solar: { model: 'pvwatts_v5', array_type: 'single_axis' }, grid: { export_limit_mw: 120 } },
  ],
  [
    'v5 two-axis, PPA solved',
    {
      solar: { model: 'pvwatts_v5', array_type: 'two_axis' },
      market: { ppa_price_per_mwh: 'solve' },
      finance: { target_equity_irr_percent: 10 },
    },
  ],
  ['v8 fixed, Phoenix TMY2', { ...phoenixSite, solar: { model: 'pvwatts_v8' } }],
  [
    'v8 bifacial single-axis backtracking',
    { solar: { model: 'pvwatts_v8', array_type: 'single_axis_backtracking', bifaciality: 0.7 } },
  ],
  ['v8 bifacial fixed with snow', { solar: { model: 'pvwatts_v8', bifaciality: 0.65, snow_model: true } }],
  ['battery arbitrage, Phoenix', { ...phoenixSite, storage: battery('arbitrage') }],
  ['battery capture behind a limit', { grid: { export_limit_mw: 80 }, storage: battery('capture') }],
  [
    'battery arbitrage from the grid, 1 cycle a day',
    {
      storage: battery('arbitrage', {
        charge_from_grid: true,
        dispatch: { strategy: 'arbitrage', max_cycles_per_day: 1 },
      }),
    },
  ],
  ['load, short plant', constantPlant(30)],
  ['load, long plant', constantPlant(70)],
  ['load with a battery on load dispatch', noonSolarToEvening()],
  ['load on the default plant with an arbitrage battery', { load: { flat_mw: 60 }, storage: battery('arbitrage') }],
  ['load on the default plant with a load battery', { load: { flat_mw: 60 }, storage: battery('load') }],
  [
    'SRW wind farm, simple wakes, Phoenix TMY2',
    {
      ...phoenixSite,
      wind_resource: { source: 'srw', text: srw },
      wind: { turbine: { hub_height_m: 80 }, layout: grid(3, 400), wake_model: 'simple' },
    },
  ],
  [
    'SRW wind farm, park wakes',
    {
      wind_resource: { source: 'srw', text: srw },
      wind: { turbine: { hub_height_m: 80 }, layout: grid(3, 400), wake_model: 'park' },
    },
  ],
];

/** The SHA-256 of a result: every field, the hourly arrays' bytes included, in the result's key order. */
function digest(result: object, fields?: string[]): string {
  const hash = createHash('sha256');
  const walk = (v: unknown): void => {
    if (v instanceof Float64Array) {
      hash.update(`f64:${v.length}:`);
      hash.update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    } else if (Array.isArray(v)) {
      hash.update(`[${v.length}:`);
      for (const x of v) walk(x);
      hash.update(']');
    } else if (v !== null && typeof v === 'object') {
      // Keys in sorted order, so moving a field within the result is not a change of result.
      const keys = Object.keys(v).sort();
      hash.update(`{${keys.length}:`);
      for (const k of keys) {
        const x = (v as Record<string, unknown>)[k];
        if (x === undefined) continue;
        hash.update(`${JSON.stringify(k)}=`);
        walk(x);
      }
      hash.update('}');
    } else hash.update(`${JSON.stringify(v)};`);
  };
  const r = result as Record<string, unknown>;
  walk(fields ? Object.fromEntries(fields.filter((f) => f in r).map((f) => [f, r[f]])) : result);
  return hash.digest('hex');
}

interface Digests {
  /** The result's top-level fields when the digests were taken. */
  fields: string[];
  digests: Record<string, string>;
}

const checkAt = process.argv.indexOf('--check');
const expected: Digests | null =
  checkAt >= 0 ? JSON.parse(readFileSync(process.argv[checkAt + 1] as string, 'utf8')) : null;
const got: Digests = { fields: [], digests: {} };
const fields = new Set<string>();
let differ = 0;
for (const [name, overrides] of CASES) {
  const result = calculate(resolvedInputs(overrides));
  for (const f of Object.keys(result)) fields.add(f);
  got.digests[name] = digest(result, expected?.fields);
  if (expected) {
    const same = expected.digests[name] === got.digests[name];
    if (!same) differ++;
    process.stderr.write(`${same ? 'same  ' : 'DIFFER'} ${name}\n`);
  }
}
got.fields = [...fields].sort();
if (expected) {
  for (const name of Object.keys(expected.digests))
    if (!(name in got.digests)) {
      differ++;
      process.stderr.write(`MISSING ${name}\n`);
    }
  const added = got.fields.filter((f) => !expected.fields.includes(f));
  if (added.length > 0) process.stderr.write(`fields added since (not compared): ${added.join(', ')}\n`);
  process.stderr.write(`${differ === 0 ? 'all digests identical' : `${differ} digest(s) differ`}\n`);
  process.exitCode = differ === 0 ? 0 : 1;
} else process.stdout.write(`${JSON.stringify(got, null, 2)}\n`);
