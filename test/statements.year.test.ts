// GET /api/scenarios/{id}/statements?year=N: one operating year of the hourly arrays, equal to that
// row of the full statements; bad years are a 400 naming ?year; a sweep variant that kept no hourly
// data answers the documented 409.
import { Value } from '@sinclair/typebox/value';
import t from 'tap';
import { registerFormats } from '../shared/schemas/formats.ts';
import { HourlyYear } from '../shared/schemas/result.ts';
import { getJson, postScenario } from './helpers/http.ts';
import { startStack } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

registerFormats();
const stack = await startStack({ workers: [{}] });
t.teardown(() => stack.stop());
const site = { latitude: 35.2, longitude: -101.8 };

const done = (id: string) =>
  waitUntil(async () => (await getJson(`${stack.web.baseUrl}/api/scenarios/${id}`)).json.status === 'succeeded', {
    timeoutMs: 60_000,
    what: `scenario ${id} to succeed`,
  });

t.test('one year of the hourly arrays, as in the full statements', async (t) => {
  const created = await postScenario(stack.web.baseUrl, { name: 'year', site, start_year: 2030 });
  const id = created.json.id as string;
  await done(id);
  const full = (await getJson(`${stack.web.baseUrl}/api/scenarios/${id}/statements`)).json as {
    solar_hourly: number[][];
    wind_hourly: number[][];
  };
  for (const year of [1, 13, 25]) {
    const res = await fetch(`${stack.web.baseUrl}/api/scenarios/${id}/statements?year=${year}`, {
      headers: { 'accept-encoding': 'gzip' },
    });
    t.equal(res.status, 200);
    const body = (await res.json()) as HourlyYear;
    t.ok(Value.Check(HourlyYear, body), `year ${year} matches the HourlyYear schema`);
    t.equal(body.calendar_year, 2030 + year - 1);
    t.same(body.solar_hourly, full.solar_hourly[year - 1], `year ${year}: solar as in the statements`);
    t.same(body.wind_hourly, full.wind_hourly[year - 1], `year ${year}: wind as in the statements`);
    const etag = res.headers.get('etag') ?? '';
    t.match(etag, new RegExp(`-y${year}-gz"$`), 'its own ETag');
    const again = await fetch(`${stack.web.baseUrl}/api/scenarios/${id}/statements?year=${year}`, {
      headers: { 'accept-encoding': 'gzip', 'if-none-match': etag },
    });
    t.equal(again.status, 304);
  }
  for (const bad of ['0', '26', 'one', '1.5', '-1']) {
    const res = await getJson(`${stack.web.baseUrl}/api/scenarios/${id}/statements?year=${bad}`);
    t.equal(res.status, 400, `?year=${bad}`);
    t.match(res.json, { errors: [{ path: '?year' }] });
  }
  const mixed = await getJson(`${stack.web.baseUrl}/api/scenarios/${id}/statements?year=1&hourly=false`);
  t.equal(mixed.status, 400);
});

t.test('with a battery: its hourly series in the statements, ?year=N and the CSV', async (t) => {
  const created = await postScenario(stack.web.baseUrl, {
    name: 'battery',
    site,
    start_year: 2030,
    grid: { export_limit_mw: 120 },
    storage: { power_mw: 50, energy_mwh: 200 },
  });
  t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 300));
  const id = created.json.id as string;
  await done(id);
  const full = (await getJson(`${stack.web.baseUrl}/api/scenarios/${id}/statements`)).json as Record<
    string,
    number[][]
  > & { annual: Array<{ storage_discharge_mwh: number }> };
  const names = ['storage_charge_hourly', 'storage_discharge_hourly', 'storage_soc_hourly', 'grid_hourly'];
  for (const name of names) t.equal(full[name]?.length, 25, `${name}: 25 years`);
  const discharged = full.storage_discharge_hourly[0].reduce((a, b) => a + b, 0);
  t.ok(
    Math.abs(discharged - full.annual[0].storage_discharge_mwh) < 10,
    'year 1 discharge = Σ its hours (to 1 kWh an hour)',
  );
  const year = (await getJson(`${stack.web.baseUrl}/api/scenarios/${id}/statements?year=2`)).json as HourlyYear;
  t.ok(Value.Check(HourlyYear, year), 'matches the HourlyYear schema');
  for (const name of names)
    t.same(year[name as keyof HourlyYear], full[name][1], `?year=2: ${name} as in the statements`);
  const csv = await (await fetch(`${stack.web.baseUrl}/api/scenarios/${id}/statements?format=csv`)).text();
  const lines = csv.split('\n');
  t.equal(
    lines[0],
    'year,hour,timestamp,solar_mwh,wind_mwh,storage_charge_mwh,storage_discharge_mwh,storage_soc_mwh,grid_mwh',
  );
  const [, hour, , solar, wind, charge, discharge, soc, grid] = lines[8761 + 20].split(',');
  t.equal(hour, '20');
  t.same(
    [solar, wind, charge, discharge, soc, grid].map(Number),
    [full.solar_hourly, full.wind_hourly, ...names.map((n) => full[n])].map((series) => series[1][20]),
    'a CSV row: year 2, hour 20',
  );
});

t.test('a sweep variant without hourly data: the documented 409', async (t) => {
  const res = await fetch(`${stack.web.baseUrl}/api/sweeps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'no hourly',
      base: { site },
      vary: [{ path: '/solar/capacity_mw_dc', values: [50] }],
    }),
  });
  const sweep = (await res.json()) as { id: string };
  let variant = '';
  await waitUntil(
    async () => {
      const results = (await getJson(`${stack.web.baseUrl}/api/sweeps/${sweep.id}/results`)).json as {
        variants: Array<{ scenario_id: string; status: string }>;
      };
      variant = results.variants[0]?.scenario_id ?? '';
      return results.variants[0]?.status === 'succeeded';
    },
    { timeoutMs: 60_000, what: 'the variant' },
  );
  const year = await getJson(`${stack.web.baseUrl}/api/scenarios/${variant}/statements?year=1`);
  t.equal(year.status, 409);
  t.match(year.json, { hourly: 'not_kept' });
});
