// Bad measured resource and wind farm layouts: each gets a 400 problem+json naming the field (and,
// for a file, the line and column), and creates no row; a good SRW file with a layout is accepted.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { withContents } from '../shared/resources.refs.ts';
import type { StoredInputs } from '../shared/schemas/inputs.ts';
import { calculate } from '../worker/engine/index.ts';
import { type BadInput, postRaw, rejectsEach } from './helpers/bad-input.ts';
import { DEFAULT_SCENARIO } from './helpers/http.ts';
import { startStack } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const stack = await startStack({ web: { BODY_LIMIT_BYTES: String(4 * 1024 * 1024) }, workers: [{}] });
const { web } = stack;
t.teardown(() => stack.stop());

const reference = (name: string) => readFileSync(new URL(`./fixtures/reference/${name}`, import.meta.url), 'utf8');
const SRW = reference('ssc_wind_constant_5ms.srw');
const TMY = reference('phoenix_az_tmy2.csv');
const lines = SRW.split('\n');
/** The SRW file with line `n` (1-based) replaced. */
const srwWithLine = (n: number, text: string) => lines.map((l, i) => (i === n - 1 ? text : l)).join('\n');
const CURVE = JSON.parse(reference('ssc_wind_cases.json')).constant_5ms_32x1500kw as {
  power_curve_ms: number[];
  power_curve_kw: number[];
};
const turbine = {
  hub_height_m: 80,
  rotor_diameter_m: 77,
  power_curve: CURVE.power_curve_ms.map((v, i) => [v, CURVE.power_curve_kw[i]]),
};
const srw = (text: string) => ({ source: 'srw', text });
const base = { ...DEFAULT_SCENARIO, wind_resource: srw(SRW), wind: { turbine } };

const cases: Array<BadInput & { message: RegExp }> = [
  {
    name: 'a speed that is not a number on line 101',
    body: { ...base, wind_resource: srw(srwWithLine(101, '15,0.95,five,180')) },
    path: '/wind_resource/text',
    message: /^line 101, column 3: speed is not a number/,
  },
  {
    name: 'a missing pressure value',
    body: { ...base, wind_resource: srw(srwWithLine(7, '15,,5,180')) },
    path: '/wind_resource/text',
    message: /^line 7, column 2: pressure is empty/,
  },
  {
    name: 'an unknown column type',
    body: { ...base, wind_resource: srw(srwWithLine(3, 'Temperature,Pressure,Speed,Humidity')) },
    path: '/wind_resource/text',
    message: /^line 3, column 4: 'Humidity' is not a column type/,
  },
  {
    name: 'a speed of 130 m/s (SSC allows 0 to 120)',
    body: { ...base, wind_resource: srw(srwWithLine(50, '15,0.95,130,180')) },
    path: '/wind_resource/text',
    message: /^line 50, column 3: speed 130 m\/s is outside 0 to 120/,
  },
  {
    name: 'a year of 8,000 rows',
    body: { ...base, wind_resource: srw(lines.slice(0, 8005).join('\n')) },
    path: '/wind_resource/text',
    message: /found 8000 data rows/,
  },
  {
    name: 'a hub 60 m above the only measured height (SSC allows 35 m)',
    body: { ...base, wind: { turbine: { ...turbine, hub_height_m: 140 } } },
    path: '/wind/turbine/hub_height_m',
    message: /more than 35 m from the hub height/,
  },
  {
    name: 'an EPW file with a missing GHI',
    body: { ...DEFAULT_SCENARIO, weather: { source: 'epw', text: 'LOCATION,x,y,z,s,1,33.4,-112,-7,339\n' } },
    path: '/weather/text',
    message: /data rows/,
  },
  {
    name: 'a second real year that is not a weather file',
    body: {
      ...DEFAULT_SCENARIO,
      weather: {
        source: 'years',
        years: [
          { source: 'sam_csv', text: TMY },
          { source: 'sam_csv', text: 'a,b\n1,2\n' },
        ],
      },
    },
    path: '/weather/years/1/text',
    message: /^line \d+/,
  },
  {
    name: 'layout: unequal lengths',
    body: { ...base, wind: { turbine, layout: { x_m: [0, 500, 1000], y_m: [0, 0] } } },
    path: '/wind/layout/y_m',
    message: /2 positions for the 3 of x_m/,
  },
  {
    name: 'layout: two turbines on one spot',
    body: { ...base, wind: { turbine, layout: { x_m: [0, 500, 0], y_m: [0, 0, 0] } } },
    path: '/wind/layout/x_m/2',
    message: /same spot as turbine 0/,
  },
  {
    name: 'layout: 301 turbines',
    body: {
      ...base,
      wind: { turbine, layout: { x_m: Array.from({ length: 301 }, (_, i) => i * 400), y_m: Array(301).fill(0) } },
    },
    path: '/wind/layout/x_m',
    message: /300/,
  },
  {
    name: 'a wake model without a layout',
    body: { ...base, wind: { turbine, wake_model: 'simple' } },
    path: '/wind/wake_model',
    message: /needs wind.layout/,
  },
  {
    name: 'a wake model without a wind resource (no direction)',
    body: { ...DEFAULT_SCENARIO, wind: { turbine, wake_model: 'park', layout: { x_m: [0, 500], y_m: [0, 0] } } },
    path: '/wind/wake_model',
    message: /needs a wind_resource/,
  },
  {
    name: 'a capacity the layout does not make',
    body: { ...base, wind: { turbine, capacity_mw: 10, layout: { x_m: [0, 500], y_m: [0, 0] } } },
    path: '/wind/capacity_mw',
    message: /2 turbines of 1.5 MW make 3 MW/,
  },
  {
    name: 'an unknown wind resource source',
    body: { ...base, wind_resource: { source: 'wtk', text: SRW } },
    path: '/wind_resource/source',
    message: /must be one of: "srw", "resource", "years"/,
  },
];

rejectsEach(t, stack, cases);

t.test('a good SRW file with a 2-turbine layout and the simple wake model runs to its statements', async (t) => {
  const res = await postRaw(web.baseUrl, {
    ...base,
    wind: { turbine, wake_model: 'simple', layout: { x_m: [0, 616], y_m: [0, 0] } },
  });
  t.equal(res.status, 201, await res.clone().text());
  const scenario = (await res.json()) as { id: string; inputs: { wind: { capacity_mw: number } } };
  t.equal(scenario.inputs.wind.capacity_mw, 3, 'the capacity is the layout’s 2 × 1.5 MW');
  const done = await waitUntil(
    async () => {
      const r = await fetch(`${web.baseUrl}/api/scenarios/${scenario.id}`);
      const body = (await r.json()) as { status: string };
      return body.status === 'succeeded' || body.status === 'failed' ? body : null;
    },
    { timeoutMs: 120_000, what: 'the scenario to finish' },
  );
  t.equal(done.status, 'succeeded', JSON.stringify(done).slice(0, 300));
  const statements = (await (
    await fetch(`${web.baseUrl}/api/scenarios/${scenario.id}/statements?hourly=false`)
  ).json()) as {
    annual: Array<{ wind_mwh: number }>;
  };
  // The worker's figure is the engine's on the stored inputs (the SRW file now a library reference,
  // which holds the file): the SRW file and the wakes went all the way.
  const stored = scenario.inputs as unknown as StoredInputs;
  const expected = calculate(withContents(stored, () => ({ kind: 'wind_resource', format: 'srw', text: SRW })))
    .annual[0].wind_mwh;
  t.ok(expected > 0, `year-1 wind ${expected.toFixed(1)} MWh`);
  t.ok(Math.abs(statements.annual[0].wind_mwh - expected) < 1e-6 * expected, 'the statements have the engine’s wind');
});
