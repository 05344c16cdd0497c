// Bad input: every case gets its problem+json status, names what is wrong, and creates no row.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { rowCounts } from './helpers/bad-input.ts';
import { DEFAULT_SCENARIO } from './helpers/http.ts';
import { startStack } from './helpers/stack.ts';

const stack = await startStack({ web: { BODY_LIMIT_BYTES: String(2 * 1024 * 1024) } });
const { web } = stack;
t.teardown(() => stack.stop());

const valid = DEFAULT_SCENARIO;
const series = (n: number, v = 0) => Array.from({ length: n }, () => v);
const supplied = (n: number) => ({
  source: 'supplied',
  ghi: series(n),
  dni: series(n),
  dhi: series(n),
  temp_air_c: series(n, 10),
  wind_speed_ms: series(n, 5),
});

interface Case {
  name: string;
  body: string;
  contentType?: string;
  status: number;
  /** Paths that must be named in `errors`. */
  paths?: string[];
}

const json = (v: unknown) => JSON.stringify(v);
// SSC's Phoenix TMY2 file less its Snow column (the 14th).
const withoutSnow = readFileSync(new URL('./fixtures/reference/phoenix_az_tmy2.csv', import.meta.url), 'utf8')
  .split('\n')
  .map((line, i) => (i < 2 ? line : line.split(',').toSpliced(13, 1).join(',')))
  .join('\n');
/** A valid body with a 50 MW / 200 MWh battery and these fields of it. */
const withBattery = (fields: Record<string, unknown>) =>
  json({ ...valid, storage: { power_mw: 50, energy_mwh: 200, ...fields } });
const cases: Case[] = [
  { name: 'malformed JSON', body: '{"name": "x", ', status: 400 },
  { name: 'empty body', body: '', status: 400 },
  { name: 'an array', body: '[1,2]', status: 400, paths: ['/'] },
  { name: 'a string', body: '"hello"', status: 400, paths: ['/'] },
  { name: 'null', body: 'null', status: 400, paths: ['/'] },
  { name: 'missing name', body: json({ site: valid.site }), status: 400, paths: ['/name'] },
  { name: 'missing site', body: json({ name: 'x' }), status: 400, paths: ['/site'] },
  {
    name: 'missing latitude',
    body: json({ name: 'x', site: { longitude: 1 } }),
    status: 400,
    paths: ['/site/latitude'],
  },
  {
    name: 'missing longitude',
    body: json({ name: 'x', site: { latitude: 1 } }),
    status: 400,
    paths: ['/site/longitude'],
  },
  { name: 'name is a number', body: json({ ...valid, name: 42 }), status: 400, paths: ['/name'] },
  {
    name: 'latitude is a string',
    body: json({ ...valid, site: { latitude: '35', longitude: 1 } }),
    status: 400,
    paths: ['/site/latitude'],
  },
  {
    name: 'latitude 91',
    body: json({ ...valid, site: { latitude: 91, longitude: 1 } }),
    status: 400,
    paths: ['/site/latitude'],
  },
  {
    name: 'latitude -90.5',
    body: json({ ...valid, site: { latitude: -90.5, longitude: 1 } }),
    status: 400,
    paths: ['/site/latitude'],
  },
  {
    name: 'longitude 181',
    body: json({ ...valid, site: { latitude: 1, longitude: 181 } }),
    status: 400,
    paths: ['/site/longitude'],
  },
  {
    name: '1e400 (Infinity)',
    body: '{"name":"x","site":{"latitude":1e400,"longitude":1}}',
    status: 400,
    paths: ['/site/latitude'],
  },
  { name: 'NaN literal', body: '{"name":"x","site":{"latitude":NaN,"longitude":1}}', status: 400 },
  {
    name: 'negative solar capacity',
    body: json({ ...valid, solar: { capacity_mw_dc: -1 } }),
    status: 400,
    paths: ['/solar/capacity_mw_dc'],
  },
  {
    name: 'absurd wind capacity',
    body: json({ ...valid, wind: { capacity_mw: 1e9 } }),
    status: 400,
    paths: ['/wind/capacity_mw'],
  },
  {
    name: 'both capacities 0',
    body: json({ ...valid, solar: { capacity_mw_dc: 0 }, wind: { capacity_mw: 0 } }),
    status: 400,
    paths: ['/solar/capacity_mw_dc', '/wind/capacity_mw'],
  },
  {
    name: 'dc_ac_ratio 0',
    body: json({ ...valid, solar: { dc_ac_ratio: 0 } }),
    status: 400,
    paths: ['/solar/dc_ac_ratio'],
  },
  { name: 'tilt 95', body: json({ ...valid, solar: { tilt_deg: 95 } }), status: 400, paths: ['/solar/tilt_deg'] },
  { name: 'gcr 1', body: json({ ...valid, solar: { gcr: 1 } }), status: 400, paths: ['/solar/gcr'] },
  {
    name: 'unknown module type',
    body: json({ ...valid, solar: { module_type: 'magic' } }),
    status: 400,
    paths: ['/solar/module_type'],
  },
  // PVWatts v8's inputs.
  {
    name: 'model pvwatts_v7',
    body: json({ ...valid, solar: { model: 'pvwatts_v7' } }),
    status: 400,
    paths: ['/solar/model'],
  },
  {
    name: 'bifaciality 1.2',
    body: json({ ...valid, solar: { bifaciality: 1.2 } }),
    status: 400,
    paths: ['/solar/bifaciality'],
  },
  {
    name: 'bifaciality −0.1',
    body: json({ ...valid, solar: { bifaciality: -0.1 } }),
    status: 400,
    paths: ['/solar/bifaciality'],
  },
  { name: 'albedo 0', body: json({ ...valid, solar: { albedo: 0 } }), status: 400, paths: ['/solar/albedo'] },
  { name: 'albedo 1', body: json({ ...valid, solar: { albedo: 1 } }), status: 400, paths: ['/solar/albedo'] },
  {
    name: 'a monthly albedo of 11 values',
    body: json({ ...valid, solar: { albedo: series(11, 0.2) } }),
    status: 400,
    paths: ['/solar/albedo'],
  },
  {
    name: 'a monthly albedo with a 1.2',
    body: json({ ...valid, solar: { albedo: [...series(11, 0.2), 1.2] } }),
    status: 400,
    paths: ['/solar/albedo'],
  },
  {
    name: 'the weather file’s albedo on synthetic weather',
    body: json({ ...valid, solar: { albedo: 'weather_file' } }),
    status: 400,
    paths: ['/solar/albedo'],
  },
  {
    name: 'the snow model on synthetic weather',
    body: json({ ...valid, solar: { snow_model: true } }),
    status: 400,
    paths: ['/solar/snow_model'],
  },
  {
    name: 'the snow model on a weather file without snow depth',
    body: json({ ...valid, weather: { source: 'sam_csv', text: withoutSnow }, solar: { snow_model: true } }),
    status: 400,
    paths: ['/solar/snow_model'],
  },
  {
    name: 'bifaciality on PVWatts v5',
    body: json({ ...valid, solar: { model: 'pvwatts_v5', bifaciality: 0.7 } }),
    status: 400,
    paths: ['/solar/bifaciality'],
  },
  {
    name: 'ppa_share 1.5',
    body: json({ ...valid, market: { ppa_share: 1.5 } }),
    status: 400,
    paths: ['/market/ppa_share'],
  },
  {
    name: 'debt fraction -0.1',
    body: json({ ...valid, finance: { debt: { fraction: -0.1 } } }),
    status: 400,
    paths: ['/finance/debt/fraction'],
  },
  {
    name: 'unsorted power curve',
    body: json({
      ...valid,
      wind: {
        turbine: {
          power_curve: [
            [3, 0],
            [10, 1000],
            [8, 500],
          ],
        },
      },
    }),
    status: 400,
    paths: ['/wind/turbine/power_curve/2/0'],
  },
  {
    name: 'negative power',
    body: json({
      ...valid,
      wind: {
        turbine: {
          power_curve: [
            [3, 0],
            [10, -5],
          ],
        },
      },
    }),
    status: 400,
    paths: ['/wind/turbine/power_curve/1/1'],
  },
  {
    name: 'weather arrays of 8759',
    body: json({ ...valid, weather: supplied(8759) }),
    status: 400,
    paths: ['/weather/ghi'],
  },
  {
    name: 'weather arrays of 8761',
    body: json({ ...valid, weather: supplied(8761) }),
    status: 400,
    paths: ['/weather/dni'],
  },
  {
    name: 'unknown weather source',
    body: json({ ...valid, weather: { source: 'oracle' } }),
    status: 400,
    paths: ['/weather/source'],
  },
  {
    name: 'a SAM weather file with a broken line',
    body: json({
      ...valid,
      weather: {
        source: 'sam_csv',
        text: 'Source,Latitude\nx,1\nYear,Month,Day,Hour,GHI,DNI,DHI,Tdry,Wspd\n1999,1,1,0,0\n',
      },
    }),
    status: 400,
    paths: ['/weather/text'],
  },
  { name: 'unknown top-level field', body: json({ ...valid, colour: 'blue' }), status: 400, paths: ['/colour'] },
  {
    name: 'unknown nested field',
    body: json({ ...valid, site: { ...valid.site, altitude: 3 } }),
    status: 400,
    paths: ['/site/altitude'],
  },
  {
    name: 'a name of 10,000 characters',
    body: json({ ...valid, name: 'x'.repeat(10_000) }),
    status: 400,
    paths: ['/name'],
  },
  { name: 'empty name', body: json({ ...valid, name: '' }), status: 400, paths: ['/name'] },
  {
    name: 'several failing fields at once',
    body: json({ name: 1, site: { latitude: 100, longitude: -200 }, solar: { dc_ac_ratio: -1 } }),
    status: 400,
    paths: ['/name', '/site/latitude', '/site/longitude', '/solar/dc_ac_ratio'],
  },
  {
    name: 'a battery with power and no energy',
    body: json({ ...valid, storage: { power_mw: 50 } }),
    status: 400,
    paths: ['/storage/energy_mwh'],
  },
  {
    name: 'a battery with its minimum SOC above its maximum',
    body: withBattery({ soc_min_percent: 95, soc_max_percent: 90 }),
    status: 400,
    paths: ['/storage/soc_min_percent'],
  },
  {
    name: 'a battery starting outside its SOC bounds',
    body: withBattery({ initial_soc_percent: 5 }),
    status: 400,
    paths: ['/storage/initial_soc_percent'],
  },
  {
    name: 'a battery efficiency over 100',
    body: withBattery({ round_trip_efficiency_percent: 101 }),
    status: 400,
    paths: ['/storage/round_trip_efficiency_percent'],
  },
  {
    name: 'an unknown dispatch strategy',
    body: withBattery({ dispatch: { strategy: 'greedy' } }),
    status: 400,
    paths: ['/storage/dispatch/strategy'],
  },
  {
    name: 'a cycle table that is not a table (rows of numbers)',
    body: withBattery({ degradation: { cycle: [[80, 0, 100]] } }),
    status: 400,
    paths: ['/storage/degradation/cycle/0'],
  },
  {
    name: 'a cycle table with one row at a depth',
    body: withBattery({ degradation: { cycle: [{ dod_percent: 80, cycles: 0, capacity_percent: 100 }] } }),
    status: 400,
    paths: ['/storage/degradation/cycle'],
  },
  {
    name: 'a cycle table whose cycles go back',
    body: withBattery({
      degradation: {
        cycle: [
          { dod_percent: 80, cycles: 1000, capacity_percent: 80 },
          { dod_percent: 80, cycles: 0, capacity_percent: 100 },
        ],
      },
    }),
    status: 400,
    paths: ['/storage/degradation/cycle/1/cycles'],
  },
  {
    name: 'a calendar table not starting at day 0',
    body: withBattery({
      degradation: {
        calendar: [
          { day: 10, capacity_percent: 100 },
          { day: 3650, capacity_percent: 80 },
        ],
      },
    }),
    status: 400,
    paths: ['/storage/degradation/calendar/0/day'],
  },
  {
    name: 'a battery alone that may not charge from the grid',
    body: json({
      ...valid,
      solar: { capacity_mw_dc: 0 },
      wind: { capacity_mw: 0 },
      storage: { power_mw: 5, energy_mwh: 20 },
    }),
    status: 400,
    paths: ['/solar/capacity_mw_dc', '/wind/capacity_mw'],
  },
  {
    name: 'PPA time-of-delivery factors of 11 months',
    body: json({
      ...valid,
      market: { ppa_month_hour_multipliers: Array.from({ length: 11 }, () => Array(24).fill(1)) },
    }),
    status: 400,
    paths: ['/market/ppa_month_hour_multipliers'],
  },
  {
    name: 'a storage ITC over 100 %',
    body: json({ ...valid, finance: { tax_credits: { storage: { itc_percent: 101 } } } }),
    status: 400,
    paths: ['/finance/tax_credits/storage/itc_percent'],
  },
  { name: 'a body over the limit', body: json({ ...valid, name: 'x', pad: 'y'.repeat(3 * 1024 * 1024) }), status: 413 },
  { name: 'Content-Type text/plain', body: json(valid), contentType: 'text/plain', status: 415 },
  { name: 'no Content-Type', body: json(valid), contentType: '', status: 415 },
  { name: 'form-encoded', body: 'name=x', contentType: 'application/x-www-form-urlencoded', status: 415 },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    const headers: Record<string, string> = {};
    const type = c.contentType ?? 'application/json';
    if (type) headers['content-type'] = type;
    const res = await fetch(`${web.baseUrl}/api/scenarios`, { method: 'POST', headers, body: c.body });
    t.equal(res.status, c.status, 'status');
    t.match(res.headers.get('content-type'), /^application\/problem\+json/, 'problem+json');
    const problem = (await res.json()) as {
      status: number;
      title: string;
      type: string;
      errors?: Array<{ path: string; message: string }>;
    };
    t.equal(problem.status, c.status);
    t.type(problem.title, 'string');
    t.type(problem.type, 'string');
    for (const path of c.paths ?? []) {
      t.ok(
        problem.errors?.some((e) => e.path === path && e.message.length > 0),
        `names ${path}: ${JSON.stringify(problem.errors)}`,
      );
    }
    t.notMatch(JSON.stringify(problem), /at \w+ \(|node_modules|SELECT|INSERT/, 'no stack trace, no SQL');
    t.same(await rowCounts(stack.pool), { scenarios: 0, jobs: 0 }, 'no row created');
  });
}

t.test('ids: unknown and malformed ids are 404 problems on every id route', async (t) => {
  const ids = [
    '0190b5a4-7c1e-7d2a-9f00-000000000000',
    'not-a-uuid',
    '1',
    "x' OR 1=1 --",
    '0190b5a47c1e7d2a9f00000000000000',
  ];
  for (const id of ids) {
    for (const suffix of ['', '/events', '/statements']) {
      const res = await fetch(`${web.baseUrl}/api/scenarios/${encodeURIComponent(id)}${suffix}`);
      t.equal(res.status, 404, `${id}${suffix}`);
      t.match(res.headers.get('content-type'), /^application\/problem\+json/);
      await res.arrayBuffer();
    }
  }
});

t.test('unknown routes are 404 problems; wrong methods are 405 with Allow', async (t) => {
  const unknown = await fetch(`${web.baseUrl}/nope`);
  t.equal(unknown.status, 404);
  t.match(unknown.headers.get('content-type'), /^application\/problem\+json/);
  const cases: Array<[string, string, string]> = [
    ['DELETE', '/api/scenarios', 'GET, POST, HEAD'],
    ['PUT', '/api/scenarios/0190b5a4-7c1e-7d2a-9f00-000000000000', 'DELETE, GET, HEAD'],
    ['POST', '/api/scenarios/0190b5a4-7c1e-7d2a-9f00-000000000000/events', 'GET, HEAD'],
    ['PATCH', '/api/scenarios/0190b5a4-7c1e-7d2a-9f00-000000000000/statements', 'GET, HEAD'],
    ['POST', '/healthz', 'GET, HEAD'],
  ];
  for (const [method, path, allow] of cases) {
    const res = await fetch(`${web.baseUrl}${path}`, { method });
    t.equal(res.status, 405, `${method} ${path}`);
    t.equal(res.headers.get('allow'), allow);
    t.match(res.headers.get('content-type'), /^application\/problem\+json/);
    await res.arrayBuffer();
  }
});

t.test('Last-Event-ID that is not a number is a 400 problem', async (t) => {
  const res = await fetch(`${web.baseUrl}/api/scenarios/0190b5a4-7c1e-7d2a-9f00-000000000000/events`, {
    headers: { 'last-event-id': 'abc' },
  });
  t.equal(res.status, 400);
  const body = (await res.json()) as { errors: Array<{ path: string }> };
  t.equal(body.errors[0].path, 'header:Last-Event-ID');
});

t.test('unknown query parameters on the list route are named', async (t) => {
  const res = await fetch(`${web.baseUrl}/api/scenarios?page=2`);
  t.equal(res.status, 400);
  const body = (await res.json()) as { errors: Array<{ path: string }> };
  t.equal(body.errors[0].path, '?page');
});
