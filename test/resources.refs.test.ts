// Scenario inputs that reference the library (docs/resources.md), through real HTTP and a real
// worker: a reference calculates exactly as the same file inline; an inline file is put into the
// library and the scenario stores its reference (a small GET); a wrong kind, a wrong length, an
// unknown id and another workspace's id are each a 400 naming the field, with no row written; a
// used resource cannot be deleted; a sweep varies the weather over two library files.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import { startStack } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const KEYS = { acme: 'hg-acme-key-5d1e', globex: 'hg-globex-key-a7c3' };
const stack = await startStack({
  web: { API_KEYS: `acme:${KEYS.acme},globex:${KEYS.globex}`, BODY_LIMIT_BYTES: String(4 * 1024 * 1024) },
});
t.teardown(() => stack.stop());
const base = stack.web.baseUrl;

const reference = (name: string) => readFileSync(new URL(`./fixtures/reference/${name}`, import.meta.url), 'utf8');
const TMY = reference('phoenix_az_tmy2.csv');
const PSM3 = reference('phoenix_az_psm3_60_tmy.csv');
const SRW = reference('az_eastern_rolling_hills.srw');

type Json = Record<string, unknown>;
async function call(
  method: string,
  path: string,
  who: keyof typeof KEYS,
  body?: unknown,
  type = 'application/json',
): Promise<{ status: number; json: Json; bytes: number }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEYS[who]}`, ...(body === undefined ? {} : { 'content-type': type }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Json) : {}, bytes: Buffer.byteLength(text) };
}

async function upload(text: string, who: keyof typeof KEYS = 'acme'): Promise<string> {
  const r = await call('POST', '/api/resources', who, text, 'text/csv');
  if (r.status !== 201 && r.status !== 200) throw new Error(`upload: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json.id as string;
}

async function series(values: number[], name: string, who: keyof typeof KEYS = 'acme'): Promise<string> {
  const r = await call('POST', '/api/resources', who, { name, kind: 'hourly_series', values });
  if (r.status !== 201 && r.status !== 200) throw new Error(`series: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json.id as string;
}

async function finished(path: string, who: keyof typeof KEYS = 'acme'): Promise<Json> {
  return waitUntil(
    async () => {
      const r = await call('GET', path, who);
      const s = r.json.status;
      return s === 'succeeded' || s === 'failed' ? r.json : null;
    },
    { timeoutMs: 240_000, what: `${path} finished` },
  );
}

const scenarioCount = async () => Number((await stack.pool.query('SELECT count(*) AS n FROM scenarios')).rows[0].n);

// A measured TMY2 + SRW plant with a wind farm and a buyer's load.
const plant = (weather: unknown, wind_resource: unknown, load_mw: unknown): Json => ({
  name: 'Phoenix measured',
  site: { latitude: 33.45, longitude: -111.98 },
  seed: 7,
  start_year: 2027,
  weather,
  wind_resource,
  solar: { capacity_mw_dc: 50 },
  wind: { capacity_mw: 30, turbine: { hub_height_m: 80, rotor_diameter_m: 77 } },
  load: { hourly_mw: load_mw },
});
const LOAD = Array.from({ length: HOURS_PER_YEAR }, (_, h) => 20 + 10 * Math.sin((2 * Math.PI * (h % 24)) / 24));

const ids = {
  tmy: await upload(TMY),
  psm3: await upload(PSM3),
  srw: await upload(SRW),
  load: await series(LOAD, 'buyer load'),
};

t.test('a reference calculates as the same files inline, and an inline create stores references', async (t) => {
  const referenced = plant(
    { source: 'resource', id: ids.tmy },
    { source: 'resource', id: ids.srw },
    { resource: ids.load },
  );
  const byRef = await call('POST', '/api/scenarios', 'acme', referenced);
  t.equal(byRef.status, 201, JSON.stringify(byRef.json).slice(0, 400));
  // A scenario stored before the library, its files inline: written so before any worker runs.
  const old = await call('POST', '/api/scenarios', 'acme', { ...referenced, name: 'stored before' });
  const oldInputs = (await call('GET', `/api/scenarios/${old.json.id}`, 'acme')).json.inputs as Json;
  const before = {
    ...oldInputs,
    weather: { source: 'sam_csv', text: TMY, shear_exponent: 0.14 },
    wind_resource: { source: 'srw', text: SRW, shear_exponent: 0.14 },
    load: { ...(oldInputs.load as Json), hourly_mw: LOAD },
  };
  await stack.pool.query('UPDATE scenarios SET inputs = $1 WHERE id = $2', [JSON.stringify(before), old.json.id]);
  await stack.pool.query('DELETE FROM resource_uses WHERE scenario_id = $1', [old.json.id]);
  const inline = await call(
    'POST',
    '/api/scenarios',
    'acme',
    plant({ source: 'sam_csv', text: TMY }, { source: 'srw', text: SRW }, LOAD),
  );
  t.equal(inline.status, 201, JSON.stringify(inline.json).slice(0, 400));
  await stack.startWorker();
  const a = await finished(`/api/scenarios/${byRef.json.id}`);
  const b = await finished(`/api/scenarios/${inline.json.id}`);
  const c = await finished(`/api/scenarios/${old.json.id}`);
  t.equal(a.status, 'succeeded', JSON.stringify(a.error));
  t.equal(b.status, 'succeeded', JSON.stringify(b.error));
  t.equal(c.status, 'succeeded', `the inline scenario stored before the library: ${JSON.stringify(c.error)}`);
  t.same(b.kpis, a.kpis, 'the same KPIs, to the last digit');
  t.same(c.kpis, a.kpis, 'the files inline (the engine reading their text) give the KPIs of their references');
  t.equal(((c.inputs as Json).weather as Json).text, TMY, 'the scenario stored before keeps its inline file');
  // The inline files were put into the library (the same bytes: the same resources) and referenced.
  const kept = b.inputs as Json;
  t.same(kept.weather, { source: 'resource', id: ids.tmy, shear_exponent: 0.14 });
  t.same(kept.wind_resource, { source: 'resource', id: ids.srw, shear_exponent: 0.14 });
  t.same((kept.load as Json).hourly_mw, { resource: ids.load });
  const get = await call('GET', `/api/scenarios/${inline.json.id}`, 'acme');
  t.ok(
    get.bytes <= 20_000,
    `a GET of the scenario is ${get.bytes} bytes (≤ 20 kB; the files are ${TMY.length + SRW.length})`,
  );
  const used = await call('GET', `/api/resources/${ids.tmy}`, 'acme');
  t.same(used.json.used_by, { scenarios: 2, sweeps: 0, optimizations: 0 }, 'the two scenarios that reference it');
  const del = await call('DELETE', `/api/resources/${ids.tmy}`, 'acme');
  t.equal(del.status, 409);
  t.match(String(del.json.detail), /2 user/);
  t.equal((await call('GET', `/api/resources/${ids.tmy}`, 'acme')).status, 200, 'still there');
});

t.test('a bad reference is a 400 naming the field, and writes nothing', async (t) => {
  const foreign = await upload(TMY, 'globex');
  const twoYears = await series([...LOAD, ...LOAD], 'two years');
  const ok = plant({ source: 'resource', id: ids.tmy }, { source: 'resource', id: ids.srw }, { resource: ids.load });
  const cases: Array<{ name: string; body: Json; path: string; message: RegExp }> = [
    {
      name: 'an SRW file as weather',
      body: { ...ok, weather: { source: 'resource', id: ids.srw } },
      path: '/weather/id',
      message: /is an SRW wind file; \/weather takes a weather file/,
    },
    {
      name: 'a weather file as the wind resource',
      body: { ...ok, wind_resource: { source: 'resource', id: ids.psm3 } },
      path: '/wind_resource/id',
      message: /is a weather file; \/wind_resource takes an SRW wind file/,
    },
    {
      name: 'a series as a year of several',
      body: {
        ...ok,
        weather: {
          source: 'years',
          years: [
            { source: 'resource', id: ids.tmy },
            { source: 'resource', id: ids.load },
          ],
        },
      },
      path: '/weather/years/1/id',
      message: /is an hourly series/,
    },
    {
      name: 'a series of two years as the backup price (one year)',
      body: { ...ok, load: { hourly_mw: { resource: ids.load }, backup: { price_per_mwh: { resource: twoYears } } } },
      path: '/load/backup/price_per_mwh/resource',
      message: /holds 17520 values; \/load\/backup\/price_per_mwh takes 8,760$/,
    },
    {
      name: "a series of two years as an ancillary product's price (one year)",
      body: {
        ...ok,
        load: undefined,
        storage: { power_mw: 10, energy_mwh: 40 },
        market: {
          ancillary: [
            { name: 'reg_up', direction: 'up', price_per_mw_hour: 5, duration_hours: 1 },
            { name: 'reg_down', direction: 'down', price_per_mw_hour: { resource: twoYears }, duration_hours: 1 },
          ],
        },
      },
      path: '/market/ancillary/1/price_per_mw_hour/resource',
      message: /holds 17520 values; \/market\/ancillary\/1\/price_per_mw_hour takes 8,760$/,
    },
    {
      name: 'a weather file as the load',
      body: { ...ok, load: { hourly_mw: { resource: ids.tmy } } },
      path: '/load/hourly_mw/resource',
      message: /is a weather file; \/load\/hourly_mw takes an hourly series/,
    },
    {
      name: 'an unknown id',
      body: { ...ok, weather: { source: 'resource', id: '01936f3e-0000-7000-8000-00000000dead' } },
      path: '/weather/id',
      message: /^no resource of this workspace has the id 01936f3e-0000-7000-8000-00000000dead$/,
    },
    {
      name: "another workspace's id, answered as an unknown one",
      body: { ...ok, weather: { source: 'resource', id: foreign } },
      path: '/weather/id',
      message: new RegExp(`^no resource of this workspace has the id ${foreign}$`),
    },
    {
      name: 'a reference that is not a UUID',
      body: { ...ok, market: { merchant_hourly_prices: { resource: 'prices' } } },
      path: '/market/merchant_hourly_prices',
      message: /./,
    },
  ];
  for (const c of cases) {
    const before = await scenarioCount();
    const r = await call('POST', '/api/scenarios', 'acme', c.body);
    t.equal(r.status, 400, `${c.name}: 400`);
    const errors = (r.json.errors ?? []) as Array<{ path: string; message: string }>;
    const e = errors.find((x) => x.path.startsWith(c.path));
    t.ok(e, `${c.name}: names ${c.path} (${JSON.stringify(errors)})`);
    if (e) t.match(e.message, c.message, c.name);
    t.equal(await scenarioCount(), before, `${c.name}: no row`);
  }
});

t.test('a sweep varies the weather over two library files', async (t) => {
  const body = {
    name: 'two sites',
    base: plant({ source: 'resource', id: ids.tmy }, { source: 'resource', id: ids.srw }, { resource: ids.load }),
    vary: [
      {
        path: '/weather',
        values: [
          { source: 'resource', id: ids.tmy },
          { source: 'resource', id: ids.psm3 },
        ],
      },
    ],
  };
  const created = await call('POST', '/api/sweeps', 'acme', body);
  t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 400));
  const id = created.json.id as string;
  const sweep = await waitUntil(
    async () => {
      const r = await call('GET', `/api/sweeps/${id}`, 'acme');
      return r.json.status === 'succeeded' || r.json.status === 'failed' ? r.json : null;
    },
    { timeoutMs: 240_000, what: 'the sweep' },
  );
  t.equal(sweep.status, 'succeeded');
  const variants = (await call('GET', `/api/scenarios?sweep_id=${id}&limit=10`, 'acme')).json.items as Json[];
  t.equal(variants.length, 2);
  const full = await Promise.all(variants.map((v) => call('GET', `/api/scenarios/${v.id}`, 'acme')));
  const weathers = full.map((f) => ((f.json.inputs as Json).weather as Json).id).sort();
  t.same(weathers, [ids.tmy, ids.psm3].sort(), 'each variant stores its reference');
  for (const f of full) t.ok(f.bytes <= 20_000, `a variant's GET is ${f.bytes} bytes`);
  const ghi = full.map((f) => (f.json.kpis as Json).energy_p50_mwh);
  t.not(ghi[0], ghi[1], 'two sites, two energies');
  const usedBySweep = await call('GET', `/api/resources/${ids.psm3}`, 'acme');
  t.equal((usedBySweep.json.used_by as Json).sweeps, 1, 'the sweep uses the file it varies over');
  t.equal((await call('DELETE', `/api/resources/${ids.psm3}`, 'acme')).status, 409);
});

t.test('a sweep over a low, base and high price curve; an inline base file is stored once', async (t) => {
  const curve = (level: number) => LOAD.map((v) => Number((level + v).toFixed(3)));
  const low = await series(curve(20), 'prices low');
  const mid = await series(curve(40), 'prices base');
  const high = await series(curve(60), 'prices high');
  const before = Number((await stack.pool.query('SELECT count(*) AS n FROM resources')).rows[0].n);
  const body = {
    name: 'price curves',
    base: { ...plant({ source: 'sam_csv', text: TMY }, { source: 'srw', text: SRW }, LOAD), load: undefined },
    vary: [
      {
        path: '/market/merchant_hourly_prices',
        values: [{ resource: low }, { resource: mid }, { resource: high }],
      },
    ],
  };
  const created = await call('POST', '/api/sweeps', 'acme', body);
  t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 400));
  t.equal(
    Number((await stack.pool.query('SELECT count(*) AS n FROM resources')).rows[0].n),
    before,
    'the inline files were in the library already: nothing new stored',
  );
  t.same((created.json.base as Json).weather, { source: 'resource', id: ids.tmy }, 'the base stores the reference');
  const id = created.json.id as string;
  const sweep = await waitUntil(
    async () => {
      const r = await call('GET', `/api/sweeps/${id}`, 'acme');
      return r.json.status === 'succeeded' || r.json.status === 'failed' ? r.json : null;
    },
    { timeoutMs: 240_000, what: 'the sweep' },
  );
  t.equal(sweep.status, 'succeeded');
  const variants = (await call('GET', `/api/scenarios?sweep_id=${id}&limit=10`, 'acme')).json.items as Json[];
  const full = await Promise.all(variants.map((v) => call('GET', `/api/scenarios/${v.id}`, 'acme')));
  const byPrice = new Map(
    full.map((f) => [
      ((f.json.inputs as Json).market as Json).merchant_hourly_prices as Json,
      (f.json.kpis as Json).equity_npv as number,
    ]),
  );
  const npv = [low, mid, high].map((r) => [...byPrice].find(([k]) => k.resource === r)?.[1] as number);
  t.ok(npv[0] < npv[1] && npv[1] < npv[2], `dearer prices, more value: ${npv.join(' < ')}`);
  for (const r of [low, mid, high, ids.tmy, ids.srw])
    t.equal((await call('DELETE', `/api/resources/${r}`, 'acme')).status, 409, 'used by the sweep');
});

t.test('an optimization on library files: its evaluations share the base references', async (t) => {
  // Round 0 (the web's) holds the ends only; the worker's search step writes the rounds after, and
  // checks their points with the inputs' schema too (a reference's uuid format included).
  const body = {
    name: 'best solar',
    base: plant({ source: 'resource', id: ids.tmy }, { source: 'resource', id: ids.srw }, { resource: ids.load }),
    variables: [{ path: '/solar/capacity_mw_dc', min: 10, max: 50, step: 10 }],
    objective: { maximize: 'equity_npv' },
    max_evaluations: 5,
  };
  const bad = await call('POST', '/api/optimizations', 'acme', {
    ...body,
    base: { ...body.base, wind_resource: { source: 'resource', id: ids.tmy } },
  });
  t.equal(bad.status, 400, 'a weather file as its wind resource');
  t.ok(
    ((bad.json.errors ?? []) as Array<{ path: string }>).some((e) => e.path.includes('/wind_resource/id')),
    JSON.stringify(bad.json.errors),
  );
  const created = await call('POST', '/api/optimizations', 'acme', body);
  t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 400));
  const id = created.json.id as string;
  const done = await waitUntil(
    async () => {
      const r = await call('GET', `/api/optimizations/${id}`, 'acme');
      return r.json.status === 'succeeded' || r.json.status === 'failed' ? r.json : null;
    },
    { timeoutMs: 240_000, what: 'the optimization' },
  );
  t.equal(done.status, 'succeeded', JSON.stringify(done).slice(0, 300));
  const tried = (await call('GET', `/api/optimizations/${id}/evaluations`, 'acme')).json.evaluations as Array<{
    round: number;
    status: string;
  }>;
  t.ok(
    tried.some((e) => e.round > 0),
    `rounds after the first: ${JSON.stringify(tried.map((e) => e.round))}`,
  );
  t.same(
    tried.filter((e) => e.status !== 'succeeded'),
    [],
    "every evaluation succeeded, those of the worker's rounds too",
  );
  t.equal(((await call('GET', `/api/resources/${ids.load}`, 'acme')).json.used_by as Json).optimizations, 1);
});

t.test('a resource deleted while a create that references it commits: 409, nothing written', async (t) => {
  const doomed = await series(
    LOAD.map((v) => v + 1),
    'deleted meanwhile',
  );
  const before = await scenarioCount();
  // The delete holds the resource's row until it commits; the create's resource_uses insert waits on it.
  const client = await stack.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('DELETE FROM resources WHERE id = $1', [doomed]);
    const answer = call(
      'POST',
      '/api/scenarios',
      'acme',
      plant({ source: 'resource', id: ids.tmy }, { source: 'resource', id: ids.srw }, { resource: doomed }),
    );
    await waitUntil(
      async () => {
        const { rows } = await stack.pool.query(
          "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%resource_uses%'",
        );
        return rows.length > 0;
      },
      { timeoutMs: 60_000, what: "the create's insert to wait on the deleted row" },
    );
    await client.query('COMMIT');
    const r = await answer;
    t.equal(r.status, 409, JSON.stringify(r.json));
    t.match(String(r.json.detail), /deleted meanwhile/);
  } finally {
    client.release();
  }
  t.equal(await scenarioCount(), before, 'no row');
});
