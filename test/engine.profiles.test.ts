// The engine's generation profiles: a calculation that takes them from a cache gives the same bytes
// as one that computes them, and the cache is consulted by exactly the inputs that determine them.
import { readFileSync } from 'node:fs';
import t from 'tap';
import type { ScenarioInputs } from '../shared/schemas/inputs.ts';
import { calculate, type GenerationProfile, type ProfileCache, profileKeys } from '../worker/engine/index.ts';
import { canonicalJson } from '../worker/engine/plant/profiles.ts';
import { type DeepPartial, resolvedInputs } from './fixtures/inputs.ts';

class MapCache implements ProfileCache {
  readonly map = new Map<string, GenerationProfile>();
  hits = 0;
  get(key: string) {
    const p = this.map.get(key);
    if (p) this.hits++;
    return p;
  }
  set(key: string, profile: GenerationProfile) {
    this.map.set(key, profile);
  }
}

const bytesOf = (r: ReturnType<typeof calculate>) => {
  const { solar_hourly, wind_hourly, ...statements } = r;
  return Buffer.concat([
    Buffer.from(solar_hourly.buffer),
    Buffer.from(wind_hourly.buffer),
    Buffer.from(JSON.stringify(statements)),
  ]);
};

const samCsv = readFileSync(new URL('./fixtures/reference/phoenix_az_tmy2.csv', import.meta.url), 'utf8');

const variants: Array<[string, DeepPartial<ScenarioInputs>]> = [
  ['default', {}],
  ['capacities', { solar: { capacity_mw_dc: 37.5 }, wind: { capacity_mw: 210 } }],
  ['export limit', { grid: { export_limit_mw: 60 } }],
  ['price and finance', { market: { ppa_price_per_mwh: 61 }, finance: { discount_rate_real_percent: 9 } }],
  ['degradation', { solar: { degradation_percent_per_year: 0.9 }, wind: { degradation_percent_per_year: 0.3 } }],
  ['no wind', { wind: { capacity_mw: 0 } }],
];

for (const [weatherName, weather] of [
  ['synthetic', {}],
  ['sam_csv', { weather: { source: 'sam_csv', text: samCsv } }],
] as Array<[string, DeepPartial<ScenarioInputs>]>) {
  t.test(`${weatherName} weather: cached profiles give the bytes of a fresh calculation`, async (t) => {
    const cache = new MapCache();
    for (const [name, patch] of variants) {
      const inputs = resolvedInputs({ ...weather, ...patch } as DeepPartial<ScenarioInputs>);
      const hitsBefore = cache.hits;
      const viaCache = calculate(inputs, { cache });
      const alone = calculate(inputs);
      t.ok(bytesOf(viaCache).equals(bytesOf(alone)), `${name}: identical to a calculation without a cache`);
      if (name !== 'default') t.ok(cache.hits > hitsBefore, `${name}: reused a cached profile`);
    }
    // PVWatts v8 lays its rows out from the plant's size: 37.5 MW has a solar profile of its own.
    t.equal(cache.map.size, 3, 'one wind profile for all the variants; a solar profile per layout');
  });
}

t.test('profile keys: what changes generation changes the key, what does not leaves it', async (t) => {
  const base = profileKeys(resolvedInputs());
  const same = (p: DeepPartial<ScenarioInputs>) => profileKeys(resolvedInputs(p));
  t.equal(same({ wind: { capacity_mw: 20 } }).wind, base.wind, "the wind farm's capacity");
  t.equal(same({ solar: { capacity_mw_dc: 100.0001 } }).solar, base.solar, 'a solar capacity with the same v8 layout');
  t.not(same({ solar: { capacity_mw_dc: 10 } }).solar, base.solar, 'a solar capacity with other rows (v8)');
  const v5 = (p: DeepPartial<ScenarioInputs>) =>
    profileKeys(resolvedInputs({ ...p, solar: { ...p.solar, model: 'pvwatts_v5' } }));
  t.equal(v5({ solar: { capacity_mw_dc: 10 } }).solar, v5({}).solar, 'any solar capacity (v5)');
  t.not(v5({}).solar, base.solar, 'the model changes solar');
  for (const solar of [{ bifaciality: 0.7 }, { albedo: 0.3 }, { ground_clearance_m: 2 }] as const) {
    t.not(same({ solar }).solar, base.solar, `${Object.keys(solar)[0]} changes solar`);
  }
  t.same(same({ grid: { export_limit_mw: 5 }, market: { ppa_price_per_mwh: 1 } }), base, 'grid and market');
  t.same(
    same({ storage: { power_mw: 100, energy_mwh: 400 }, finance: { tax_credits: { storage: { itc_percent: 30 } } } }),
    base,
    'a battery (a battery-size sweep reuses the profiles)',
  );
  t.not(same({ seed: 7 }).solar, base.solar, 'the seed changes solar');
  t.not(same({ seed: 7 }).wind, base.wind, 'the seed changes wind');
  t.not(same({ solar: { dc_ac_ratio: 1.1 } }).solar, base.solar, 'the DC/AC ratio changes solar');
  t.equal(same({ solar: { dc_ac_ratio: 1.1 } }).wind, base.wind, '… and not wind');
  t.not(same({ wind: { turbine: { hub_height_m: 120 } } }).wind, base.wind, 'the hub height changes wind');
  t.not(same({ site: { latitude: 36 } }).solar, base.solar, 'the latitude changes solar');
  t.equal(same({ wind: { capacity_mw: 0 } }).wind, null, 'no wind, no wind key');
});

t.test("an array of numbers (a profile's hours) has the text of its numbers written one by one", async (t) => {
  const tricky = [
    NaN,
    -0,
    0,
    1e21,
    1e-7,
    -1.5e-300,
    5e-324,
    Number.MAX_VALUE,
    Infinity,
    -Infinity,
    0.1 + 0.2,
    123456789.125,
  ];
  const oneByOne = (values: unknown[]) => `[${values.map((v) => canonicalJson(v)).join(',')}]`;
  t.equal(canonicalJson(tricky), oneByOne(tricky), 'the numbers at once and one by one');
  t.equal(
    canonicalJson(tricky),
    '[null,0,0,1e+21,1e-7,-1.5e-300,5e-324,1.7976931348623157e+308,null,null,0.30000000000000004,123456789.125]',
  );
  const mixed = [1, { b: 2, a: -0 }, undefined, 'x', NaN];
  t.equal(canonicalJson(mixed), '[1,{"a":0,"b":2},null,"x",null]', 'not all numbers: each value on its own');
  // biome-ignore lint/suspicious/noSparseArray: a hole (JSON.stringify would write null; one by one, nothing)
  const holes = [1, , 2];
  t.equal(canonicalJson(holes), oneByOne(holes), 'a hole is not a number');
  t.equal(canonicalJson({ hourly_mw: tricky }), `{"hourly_mw":${oneByOne(tricky)}}`, 'inside an object');
});
