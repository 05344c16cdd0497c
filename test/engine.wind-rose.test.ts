// The wind rose of a scenario's wind resource: its shares sum to 1, a constant-direction file puts
// every hour in the sector of its direction, a cached profile gives the same rose, and a scenario
// without a wind_resource has none.
import { readFileSync } from 'node:fs';
import t from 'tap';
import type { ScenarioInputs } from '../shared/schemas/inputs.ts';
import { calculate } from '../worker/engine/index.ts';
import type { GenerationProfile } from '../worker/engine/plant/profiles.ts';
import { roseSector } from '../worker/engine/wind/wind.rose.ts';
import { type DeepPartial, resolvedInputs } from './fixtures/inputs.ts';

const reference = (name: string) => readFileSync(new URL(`./fixtures/reference/${name}`, import.meta.url), 'utf8');
const CONSTANT = reference('ssc_wind_constant_5ms.srw');
const AZ = reference('az_eastern_rolling_hills.srw');

function withResource(text: string) {
  return resolvedInputs({
    solar: { capacity_mw_dc: 0 },
    wind: { turbine: { hub_height_m: 80 } },
    wind_resource: { source: 'srw', text },
  } as DeepPartial<ScenarioInputs>);
}

const total = (f: number[][]) => f.flat().reduce((a, b) => a + b, 0);

t.test('sectors: 16 of 22.5°, sector 0 centred on north', async (t) => {
  t.equal(roseSector(0), 0);
  t.equal(roseSector(11.2), 0);
  t.equal(roseSector(11.25), 1);
  t.equal(roseSector(180), 8);
  t.equal(roseSector(348.75), 0);
  t.equal(roseSector(348.7), 15);
  t.equal(roseSector(360), 0);
});

t.test('a constant 5 m/s from 180°: every hour in sector 8, speed bin 3–6 m/s', async (t) => {
  const rose = calculate(withResource(CONSTANT)).wind_rose;
  if (!rose) throw new Error('no wind_rose');
  t.equal(rose.sectors, 16);
  t.equal(rose.hub_height_m, 80);
  t.same(rose.speed_bins_ms, [0, 3, 6, 9, 12, 15]);
  t.equal(rose.frequency[8][1], 1, 'all in sector 8 (180°), bin [3, 6)');
  t.equal(total(rose.frequency), 1);
  t.equal(rose.mean_speed_ms[8], 5);
  t.equal(rose.mean_speed_ms.filter((v) => v !== null).length, 1, 'the other sectors have no mean');
});

t.test('a measured file: shares sum to 1, spread over sectors; a cached profile gives the same rose', async (t) => {
  const inputs = withResource(AZ);
  const cache = new Map<string, GenerationProfile>();
  const fresh = calculate(inputs, { cache });
  const cached = calculate(inputs, { cache });
  const rose = fresh.wind_rose;
  if (!rose) throw new Error('no wind_rose');
  t.ok(Math.abs(total(rose.frequency) - 1) < 1e-12, `shares sum to 1 (${total(rose.frequency)})`);
  t.ok(rose.frequency.filter((row) => total([row]) > 0).length > 8, 'the wind comes from many sectors');
  t.same(cached.wind_rose, rose, 'same rose from the cached profile');
});

t.test('no wind_resource: no wind_rose', async (t) => {
  t.equal(calculate(resolvedInputs({})).wind_rose, undefined);
});
