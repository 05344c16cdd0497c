// The capacity credit's system load and the operator's hourly export limit from the library
// (docs/markets.md, docs/resources.md), through real HTTP and a real worker: `{"resource": id}`
// calculates exactly as the same values inline (KPIs and statements, to the last digit, and the
// hand-worked figures of docs/markets.md); an inline series is put into the library and stored as
// its reference; a used series cannot be deleted (409 naming its users); a sweep varies the system
// load over two library series; a missing resource, one of the wrong kind or length, or a series
// with a value its place refuses inline is a 400 naming the field, with nothing written; the
// OpenAPI request schema accepts and refuses both forms as the server does.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import t from 'tap';
import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import { postRaw } from './helpers/bad-input.ts';
import { DEFAULT_SCENARIO, getJson, postJson, postScenario } from './helpers/http.ts';
import { startStack } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const stack = await startStack();
t.teardown(() => stack.stop());
const base = stack.web.baseUrl;

type Json = Record<string, unknown>;
const hours = (f: (h: number) => number) => Array.from({ length: HOURS_PER_YEAR }, (_, h) => f(h));

// docs/markets.md's worked examples on one wind farm: 60 MW every hour, 90 MW at 10:00 and 20:00,
// behind a fixed limit of 80 MW. The operator lowers the limit to 40 MW at 03:00 and to 70 MW at
// 20:00: 30 MWh a day curtailed by the operator (paid), 365 × 30 = 10,950 MWh a year. The system
// load peaks at 20:00 every day (rising through the year), so its 100 top hours are all at 20:00,
// where the plant exports 70 MW of its 80 accredited (min(100, 80)): a credit of 87.5 %.
const OUTPUT = hours((h) => (h % 24 === 10 || h % 24 === 20 ? 90 : 60));
const OPERATOR = hours((h) => (h % 24 === 3 ? 40 : h % 24 === 20 ? 70 : 80));
const SYSTEM_LOAD = hours((h) => 30_000 + (h % 24 === 20 ? 5_000 : 0) + h / 100);
const plant = (systemLoad: unknown, operator: unknown, more: Json = {}): Json => ({
  ...DEFAULT_SCENARIO,
  name: 'library market series',
  seed: 3,
  start_year: 2027,
  solar: { capacity_mw_dc: 0 },
  wind: { capacity_mw: 100, degradation_percent_per_year: 0, profile: { hourly_mw: OUTPUT, for_capacity_mw: 100 } },
  grid: { export_limit_mw: 80, export_limit_hourly_mw: operator },
  market: {
    capacity: {
      price_per_mw_year: 60_000,
      escalation_percent: 2,
      credit: { top_hours: 100, system_load_mw: systemLoad },
    },
    curtailment_payment_per_mwh: 12,
    curtailment_payment_escalation_percent: 3,
  },
  ...more,
});

async function series(values: unknown[], name: string): Promise<string> {
  const r = await postJson(`${base}/api/resources`, { name, kind: 'hourly_series', values });
  if (r.status !== 201 && r.status !== 200) throw new Error(`series: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json.id as string;
}

async function created(body: unknown): Promise<string> {
  const r = await postScenario(base, body);
  if (r.status !== 201) throw new Error(`create: ${r.status} ${JSON.stringify(r.json).slice(0, 600)}`);
  return r.json.id as string;
}

async function finished(path: string): Promise<Json> {
  return waitUntil(
    async () => {
      const r = await getJson(`${base}${path}`);
      const s = r.json.status;
      return s === 'succeeded' || s === 'failed' ? r.json : null;
    },
    { timeoutMs: 240_000, what: `${path} finished` },
  );
}

const count = async (table: string) => Number((await stack.pool.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);

const ids = {
  load: await series(SYSTEM_LOAD, 'system load'),
  operator: await series(OPERATOR, "operator's limit"),
};

/** What must be equal between two scenarios: the KPIs, the statements without hourly arrays, year 1's hours. */
async function outputs(id: string): Promise<{ kpis: unknown; statements: Json; year1: Json }> {
  const s = await finished(`/api/scenarios/${id}`);
  if (s.status !== 'succeeded') throw new Error(`${id} ${s.status}: ${JSON.stringify(s.error)}`);
  // Everything but the scenario's own id.
  const { scenario_id: _a, ...statements } = (await getJson(`${base}/api/scenarios/${id}/statements?hourly=false`))
    .json;
  const { scenario_id: _b, ...year1 } = (await getJson(`${base}/api/scenarios/${id}/statements?year=1`)).json;
  return { kpis: s.kpis, statements, year1 };
}

t.test('by reference, inline, and stored inline: the same KPIs and statements, and the figures by hand', async (t) => {
  const byRef = await created(plant({ resource: ids.load }, { resource: ids.operator }));
  const inline = await created(plant(SYSTEM_LOAD, OPERATOR));
  // A scenario stored with the values inline (as before the library took these series): made so in
  // SQL before any worker runs, so the engine reads the arrays themselves.
  const old = await created(plant({ resource: ids.load }, { resource: ids.operator }, { name: 'stored inline' }));
  const oldInputs = (await getJson(`${base}/api/scenarios/${old}`)).json.inputs as Json;
  const market = oldInputs.market as Json;
  const capacity = market.capacity as Json;
  const before = {
    ...oldInputs,
    grid: { ...(oldInputs.grid as Json), export_limit_hourly_mw: OPERATOR },
    market: {
      ...market,
      capacity: { ...capacity, credit: { ...(capacity.credit as Json), system_load_mw: SYSTEM_LOAD } },
    },
  };
  await stack.pool.query('UPDATE scenarios SET inputs = $1 WHERE id = $2', [JSON.stringify(before), old]);
  await stack.pool.query('DELETE FROM resource_uses WHERE scenario_id = $1', [old]);
  // With a battery, the operator's hour limits its discharge too (docs/markets.md).
  const battery = { storage: { power_mw: 10, energy_mwh: 40, dispatch: { strategy: 'capture' } } };
  const batteryRef = await created(plant({ resource: ids.load }, { resource: ids.operator }, battery));
  const batteryOld = await created(plant(SYSTEM_LOAD, OPERATOR, { ...battery, name: 'battery stored inline' }));
  const batteryInputs = (await getJson(`${base}/api/scenarios/${batteryOld}`)).json.inputs as Json;
  const bm = batteryInputs.market as Json;
  const bc = bm.capacity as Json;
  await stack.pool.query('UPDATE scenarios SET inputs = $1 WHERE id = $2', [
    JSON.stringify({
      ...batteryInputs,
      grid: { ...(batteryInputs.grid as Json), export_limit_hourly_mw: OPERATOR },
      market: { ...bm, capacity: { ...bc, credit: { ...(bc.credit as Json), system_load_mw: SYSTEM_LOAD } } },
    }),
    batteryOld,
  ]);
  await stack.pool.query('DELETE FROM resource_uses WHERE scenario_id = $1', [batteryOld]);
  await stack.startWorker();

  const a = await outputs(byRef);
  const b = await outputs(inline);
  const c = await outputs(old);
  t.same(b, a, 'inline values: the KPIs, statements and hours of the references, to the last digit');
  t.same(c, a, 'stored inline (the engine reading the arrays): the same KPIs, statements and hours');
  const kpis = a.kpis as Json;
  t.equal(kpis.capacity_credit_percent, 87.5, 'the credit: 70 MW exported of 80 accredited in the 100 top hours');
  const annual = a.statements.annual as Array<{ curtailed_mwh: number; curtailed_by_operator_mwh: number }>;
  const revenue = (y: number) => (a.statements.income_statement as Array<{ revenue: Json }>)[y - 1].revenue;
  t.equal(annual[0].curtailed_by_operator_mwh, 365 * 30, 'year 1: 10,950 MWh curtailed by the operator');
  t.equal(annual[0].curtailed_mwh, 365 * 50, 'year 1: 18,250 MWh curtailed in all');
  t.ok(Math.abs((revenue(1).curtailment_payment as number) - 131_400) < 1e-6, 'year 1: 12 × 10,950 = 131,400');
  t.ok(Math.abs((revenue(2).curtailment_payment as number) - 135_342) < 1e-6, 'year 2: 135,342');
  t.ok(Math.abs((revenue(1).capacity as number) - 60_000 * 0.875 * 80) < 1e-6, 'year 1: 60,000 × 87.5 % × 80 MW');

  const d = await outputs(batteryRef);
  const e = await outputs(batteryOld);
  t.same(e, d, 'with a battery: the same KPIs, statements and hours by reference and stored inline');
  const batteryMwh = (d.statements.annual as Array<{ curtailed_by_operator_mwh: number }>)[0].curtailed_by_operator_mwh;
  t.ok(batteryMwh < 365 * 30, `the battery stores some of the operator's cut: ${batteryMwh} MWh stay curtailed`);

  // The inline series were put into the library (the same values: the same resources) and referenced.
  const kept = (await getJson(`${base}/api/scenarios/${inline}`)).json.inputs as Json;
  t.same((kept.grid as Json).export_limit_hourly_mw, { resource: ids.operator });
  t.same(
    (((kept.market as Json).capacity as Json).credit as Json).system_load_mw,
    { resource: ids.load },
    'stored as the reference',
  );
  const used = (await getJson(`${base}/api/resources/${ids.load}`)).json;
  t.same(
    used.used_by,
    { scenarios: 3, sweeps: 0, optimizations: 0 },
    'by reference, inline and with a battery (those stored inline use none)',
  );

  // A used series cannot be deleted: the 409 names its users.
  for (const [what, id] of Object.entries(ids)) {
    const del = await fetch(`${base}/api/resources/${id}`, { method: 'DELETE' });
    t.equal(del.status, 409, `${what}: in use`);
    const problem = (await del.json()) as { detail: string; users: Array<{ kind: string; id: string; href: string }> };
    for (const s of [byRef, inline, batteryRef]) {
      t.match(problem.detail, s, `${what}: the detail names scenario ${s}`);
      t.ok(
        problem.users.some((u) => u.kind === 'scenario' && u.id === s && u.href === `/api/scenarios/${s}`),
        `${what}: users lists scenario ${s}`,
      );
    }
    t.equal((await getJson(`${base}/api/resources/${id}`)).status, 200, `${what}: still there`);
  }
});

t.test('a sweep varies the system load over two library series', async (t) => {
  // A load peaking at 10:00 instead: the top hours move to where the plant makes 90 MW (80 exported).
  const morning = await series(
    hours((h) => 30_000 + (h % 24 === 10 ? 5_000 : 0) + h / 100),
    'morning peak',
  );
  const r = await postJson(`${base}/api/sweeps`, {
    name: 'system loads',
    base: plant({ resource: ids.load }, OPERATOR),
    vary: [{ path: '/market/capacity/credit/system_load_mw', values: [{ resource: ids.load }, { resource: morning }] }],
  });
  t.equal(r.status, 201, JSON.stringify(r.json).slice(0, 400));
  t.same((r.json.base as Json).grid, { export_limit_mw: 80, export_limit_hourly_mw: { resource: ids.operator } });
  const id = r.json.id as string;
  const sweep = await finished(`/api/sweeps/${id}`);
  t.equal(sweep.status, 'succeeded');
  const items = (await getJson(`${base}/api/scenarios?sweep_id=${id}&limit=10`)).json.items as Json[];
  const full = await Promise.all(items.map((v) => getJson(`${base}/api/scenarios/${v.id}`)));
  const credit = new Map(
    full.map((f) => [
      ((((f.json.inputs as Json).market as Json).capacity as Json).credit as Json).system_load_mw as Json,
      (f.json.kpis as Json).capacity_credit_percent,
    ]),
  );
  t.same(
    [...credit].map(([k, v]) => [k.resource, v]).sort(),
    [
      [ids.load, 87.5],
      [morning, 100],
    ].sort(),
    'each variant stores its reference; the evening peak credits 87.5 %, the morning peak 100 %',
  );
  const del = await fetch(`${base}/api/resources/${morning}`, { method: 'DELETE' });
  t.equal(del.status, 409);
  const problem = (await del.json()) as { users: unknown };
  t.same(problem.users, [{ kind: 'sweep', id, href: `/api/sweeps/${id}` }], 'the sweep uses the series it varies over');
});

t.test('a bad series is a 400 naming the field, and nothing is written', async (t) => {
  const twoYears = await series([...SYSTEM_LOAD, ...SYSTEM_LOAD], 'two years');
  const negative = await series(
    hours((h) => (h === 4321 ? -1 : 50)),
    'one negative hour',
  );
  const huge = await series(
    hours((h) => (h === 17 ? 250_000 : 50)),
    'over 200,000',
  );
  const srw = await fetch(`${base}/api/resources`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: (await import('node:fs')).readFileSync(
      new URL('./fixtures/reference/az_eastern_rolling_hills.srw', import.meta.url),
      'utf8',
    ),
  });
  const wind = ((await srw.json()) as Json).id as string;
  // A series whose stored bytes hold what no upload can (1e400 reads back as Infinity): made in SQL.
  const poisoned = await series(
    hours((h) => 51 + h),
    'poisoned',
  );
  const text = `[${hours((h) => h)
    .map((h) => (h === 9 ? '1e400' : '5'))
    .join(',')}]`;
  await stack.pool.query('UPDATE resources SET content = convert_to($1, $2) WHERE id = $3', [text, 'UTF8', poisoned]);
  const missing = '01936f3e-0000-7000-8000-00000000dead';
  const load = { resource: ids.load };
  const limit = { resource: ids.operator };
  const cases: Array<{ name: string; body: unknown; path: string; message: RegExp }> = [
    {
      name: 'a system load that is no resource',
      body: plant({ resource: missing }, limit),
      path: '/market/capacity/credit/system_load_mw/resource',
      message: new RegExp(`^no resource of this workspace has the id ${missing}$`),
    },
    {
      name: "an operator's series that is no resource",
      body: plant(load, { resource: missing }),
      path: '/grid/export_limit_hourly_mw/resource',
      message: /^no resource of this workspace has the id/,
    },
    {
      name: 'an SRW file as the system load',
      body: plant({ resource: wind }, limit),
      path: '/market/capacity/credit/system_load_mw/resource',
      message: /is an SRW wind file; \/market\/capacity\/credit\/system_load_mw takes an hourly series/,
    },
    {
      name: "an SRW file as the operator's series",
      body: plant(load, { resource: wind }),
      path: '/grid/export_limit_hourly_mw/resource',
      message: /is an SRW wind file; \/grid\/export_limit_hourly_mw takes an hourly series/,
    },
    {
      name: 'a system load of two years',
      body: plant({ resource: twoYears }, limit),
      path: '/market/capacity/credit/system_load_mw/resource',
      message: /holds 17520 values; \/market\/capacity\/credit\/system_load_mw takes 8,760$/,
    },
    {
      name: "an operator's series of two years",
      body: plant(load, { resource: twoYears }),
      path: '/grid/export_limit_hourly_mw/resource',
      message: /holds 17520 values; \/grid\/export_limit_hourly_mw takes 8,760$/,
    },
    {
      name: 'a system load with a negative hour',
      body: plant({ resource: negative }, limit),
      path: '/market/capacity/credit/system_load_mw/resource',
      message: /holds -1 at hour 4321 .*takes finite values from 0 to 1000000000$/,
    },
    {
      name: "an operator's series with a negative hour",
      body: plant(load, { resource: negative }),
      path: '/grid/export_limit_hourly_mw/resource',
      message: /holds -1 at hour 4321 .*takes finite values from 0 to 200000$/,
    },
    {
      name: "an operator's series over 200,000 MW",
      body: plant(load, { resource: huge }),
      path: '/grid/export_limit_hourly_mw/resource',
      message: /holds 250000 at hour 17 /,
    },
    {
      name: 'a system load holding Infinity',
      body: plant({ resource: poisoned }, limit),
      path: '/market/capacity/credit/system_load_mw/resource',
      message: /holds Infinity at hour 9 /,
    },
    {
      name: "an operator's series holding Infinity",
      body: plant(load, { resource: poisoned }),
      path: '/grid/export_limit_hourly_mw/resource',
      message: /holds Infinity at hour 9 /,
    },
    {
      name: 'a negative system load inline',
      body: plant(
        hours((h) => (h === 17 ? -5 : 100)),
        limit,
      ),
      path: '/market/capacity/credit/system_load_mw/17',
      message: /0/,
    },
    {
      name: 'an infinite system load inline',
      body: JSON.stringify(plant(SYSTEM_LOAD, limit)).replace('"system_load_mw":[30000,', '"system_load_mw":[1e400,'),
      path: '/market/capacity/credit/system_load_mw/0',
      message: /./,
    },
    {
      name: "an infinite operator's limit inline",
      body: JSON.stringify(plant(load, OPERATOR)).replace(
        '"export_limit_hourly_mw":[80,',
        '"export_limit_hourly_mw":[1e400,',
      ),
      path: '/grid/export_limit_hourly_mw/0',
      message: /./,
    },
    {
      name: 'a reference that is not a UUID',
      body: plant({ resource: 'system-load' }, limit),
      path: '/market/capacity/credit/system_load_mw/resource',
      message: /uuid/,
    },
    {
      name: 'a reference with another field',
      body: plant(load, { resource: ids.operator, mw: 5 }),
      path: '/grid/export_limit_hourly_mw/mw',
      message: /Unexpected property/,
    },
  ];
  for (const c of cases) {
    const before = {
      scenarios: await count('scenarios'),
      resources: await count('resources'),
      uses: await count('resource_uses'),
    };
    // With an inline series beside the bad one: it must not be put into the library either.
    const body =
      typeof c.body === 'string' ? c.body : { ...(c.body as Json), load: { hourly_mw: hours((h) => 7 + (h % 5)) } };
    const res = await postRaw(base, body);
    t.equal(res.status, 400, `${c.name}: 400`);
    t.match(res.headers.get('content-type'), /^application\/problem\+json/, `${c.name}: a problem`);
    const errors = (((await res.json()) as Json).errors ?? []) as Array<{ path: string; message: string }>;
    const e = errors.find((x) => x.path === c.path);
    t.ok(e, `${c.name}: names ${c.path} (${JSON.stringify(errors).slice(0, 400)})`);
    if (e) t.match(e.message, c.message, `${c.name}: says what`);
    t.same(
      { scenarios: await count('scenarios'), resources: await count('resources'), uses: await count('resource_uses') },
      before,
      `${c.name}: no scenario, no resource, no use written`,
    );
  }
});

t.test('the OpenAPI request schema takes both forms at both places, and refuses what the server does', async (t) => {
  const doc = (await getJson(`${base}/openapi.json`)).json;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(doc, 'openapi.json');
  const check = ajv.getSchema('openapi.json#/components/schemas/ScenarioRequest');
  if (!check) throw new Error('no ScenarioRequest');
  const load = { resource: ids.load };
  const limit = { resource: ids.operator };
  t.ok(check(plant(load, limit)), 'both by reference');
  t.ok(check(plant(SYSTEM_LOAD, OPERATOR)), 'both inline');
  t.ok(check(plant(load, OPERATOR)), 'one of each');
  t.notOk(check(plant({ resource: 'system-load' }, limit)), 'a reference that is not a UUID');
  t.notOk(check(plant(load, { resource: ids.operator, mw: 5 })), 'a reference with another field');
  t.notOk(check(plant(load, { id: ids.operator })), 'a file reference ({id}) where a series goes');
  t.notOk(check(plant(SYSTEM_LOAD.slice(1), limit)), '8,759 values');
  t.notOk(
    check(
      plant(
        load,
        hours((h) => (h === 3 ? -1 : 80)),
      ),
    ),
    'a negative limit inline',
  );
  const request = doc.components as { schemas: { ScenarioRequest: Json } };
  const grid = (request.schemas.ScenarioRequest.properties as Json).grid as { properties: Json };
  t.match(
    (grid.properties.export_limit_hourly_mw as Json).description,
    /\{"resource": id\}: a series of 8,760 of the library/,
    'the description says so',
  );
});
