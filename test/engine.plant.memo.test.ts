// The plant's hours before the battery kept between calculations (worker/engine/plant/plant.memo.ts)
// and the battery's series written into reused arrays (HourlyBuffers.storage), as an engine thread
// runs a sweep's variants: every calculation gives the bytes of the same inputs calculated alone,
// whether the memo hit (only the battery changed) or missed (anything it is made of changed).
import t from 'tap';
import type { ScenarioInputs } from '../shared/schemas/inputs.ts';
import {
  calculate,
  type GenerationProfile,
  type HourlyBuffers,
  PlantMemo,
  type ProfileCache,
  profileKeys,
} from '../worker/engine/index.ts';
import { type DeepPartial, resolvedInputs } from './fixtures/inputs.ts';

class MapCache implements ProfileCache {
  readonly map = new Map<string, GenerationProfile>();
  get(key: string) {
    return this.map.get(key);
  }
  set(key: string, profile: GenerationProfile) {
    this.map.set(key, profile);
  }
}

/** Every hourly series' bytes (by name, in order) and the statements' JSON. */
function bytesOf(r: ReturnType<typeof calculate>): Buffer {
  const parts: Buffer[] = [];
  const rest: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(r)) {
    if (value instanceof Float64Array)
      parts.push(Buffer.from(name), Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    else rest[name] = value;
  }
  parts.push(Buffer.from(JSON.stringify(rest)));
  return Buffer.concat(parts);
}

const evening = Array.from({ length: 24 }, (_, h) => (h >= 17 && h < 21 ? 1.8 : 1));
const base: DeepPartial<ScenarioInputs> = {
  seed: 7,
  grid: { export_limit_mw: 120 },
  market: { merchant_hour_of_day_multipliers: evening },
  storage: { power_mw: 50, energy_mwh: 200 },
};
const operator = Array.from({ length: 8760 }, (_, h) => (h % 24 >= 10 && h % 24 < 15 ? 90 : 150));
const load = { flat_mw: 60 };

/** [name, the variant's inputs over `base`, whether the memo should hold its plant already]. */
const steps: Array<[string, DeepPartial<ScenarioInputs>, boolean]> = [
  ['first battery', {}, false],
  ['another power', { storage: { power_mw: 20, energy_mwh: 200 } }, true],
  ['another energy', { storage: { power_mw: 20, energy_mwh: 44 } }, true],
  [
    'battery costs and efficiency',
    { storage: { power_mw: 30, energy_mwh: 90, round_trip_efficiency_percent: 80 } },
    true,
  ],
  ['finance', { finance: { discount_rate_real_percent: 9 } }, true],
  ['another limit', { grid: { export_limit_mw: 100 } }, false],
  ['back to 120 MW', {}, false],
  ['no battery', { storage: { power_mw: 0, energy_mwh: 0 } }, false],
  ['a battery again (the memo kept)', { storage: { power_mw: 70, energy_mwh: 60 } }, true],
  ['another price', { market: { merchant_price_per_mwh: 41 } }, false],
  [
    'another price shape',
    { market: { merchant_price_per_mwh: 41, merchant_hour_of_day_multipliers: [...evening].reverse() } },
    false,
  ],
  ['a solved PPA price', { market: { ppa_price_per_mwh: 'solve' }, finance: { target_equity_irr_percent: 10 } }, false],
  [
    'solved, another battery',
    {
      market: { ppa_price_per_mwh: 'solve' },
      finance: { target_equity_irr_percent: 10 },
      storage: { power_mw: 10, energy_mwh: 30 },
    },
    true,
  ],
  ['solar capacity', { solar: { capacity_mw_dc: 80 } }, false],
  ['degradation', { solar: { capacity_mw_dc: 80, degradation_percent_per_year: 0.9 } }, false],
  ['wind capacity', { wind: { capacity_mw: 60 } }, false],
  ['an operator limit', { grid: { export_limit_mw: 120, export_limit_hourly_mw: operator } }, false],
  [
    'an operator limit, another battery',
    { grid: { export_limit_mw: 120, export_limit_hourly_mw: operator }, storage: { power_mw: 90, energy_mwh: 20 } },
    true,
  ],
  [
    'a load on load dispatch',
    { load, storage: { power_mw: 40, energy_mwh: 160, dispatch: { strategy: 'load' } } },
    false,
  ],
  [
    'the load, another battery',
    { load, storage: { power_mw: 60, energy_mwh: 100, dispatch: { strategy: 'load' } } },
    true,
  ],
  ['no load again (the market price kept)', { storage: { power_mw: 60, energy_mwh: 100 } }, true],
  [
    'capture from the grid',
    { storage: { power_mw: 60, energy_mwh: 100, charge_from_grid: true, dispatch: { strategy: 'capture' } } },
    true,
  ],
];

t.test('each variant through the memo and reused arrays gives the bytes of its inputs calculated alone', async (t) => {
  const cache = new MapCache();
  const plantMemo = new PlantMemo();
  const hourly: HourlyBuffers = { solar: new Float64Array(25 * 8760), wind: new Float64Array(25 * 8760) };
  let hits = 0;
  for (const [name, patch, hit] of steps) {
    const inputs = resolvedInputs({ ...base, ...patch } as DeepPartial<ScenarioInputs>);
    const before = plantMemo.hits;
    const swept = bytesOf(calculate(inputs, { cache, hourly, plantMemo }));
    const alone = bytesOf(calculate(inputs));
    t.ok(swept.equals(alone), `${name}: identical to the calculation alone`);
    t.equal(plantMemo.hits - before, hit ? 1 : 0, `${name}: the memo ${hit ? 'held' : 'did not hold'} its plant`);
    if (hit) hits++;
  }
  t.ok(hourly.storage, 'the battery series were written into the reused arrays');
  t.ok(hourly.load, "the load's series were written into the reused arrays");
  t.equal(plantMemo.hits, hits);
});

t.test('a calculation that stops between the plant and the battery leaves the memo holding nothing', async (t) => {
  const plantMemo = new PlantMemo();
  const cache = new MapCache();
  const inputs = resolvedInputs(base);
  calculate(inputs, { cache, plantMemo });
  const keys = profileKeys(inputs);
  const generation = {
    solar: keys.solar ? (cache.get(keys.solar) ?? null) : null,
    wind: keys.wind ? (cache.get(keys.wind) ?? null) : null,
  };
  t.equal(plantMemo.use(inputs, generation)?.hit, true, 'the same plant on the same profiles: a hit');
  t.equal(plantMemo.use(inputs, { ...generation })?.hit, true, 'the profiles are compared, not the record');
  const fresh = { solar: generation.solar && { ...generation.solar }, wind: generation.wind };
  t.equal(plantMemo.use(inputs, fresh)?.hit, false, 'another profile object (not from the cache): a miss');
  // That miss was never kept (a calculation that throws after the hybrid stage): nothing is held.
  t.equal(plantMemo.use(inputs, generation)?.hit, false, 'a miss forgets the plant until the arrays are whole again');
  t.equal(
    plantMemo.use(resolvedInputs({ ...base, storage: { power_mw: 0, energy_mwh: 0 } }), generation),
    null,
    'no battery: not used',
  );
});
