// The served OpenAPI document as a client sees it: both validators report no error, the request
// schema accepts and rejects exactly what the server does, live answers match their documented
// response schemas (ajv, JSON Schema 2020-12), and a client compiled from openapi-typescript types
// posts the README's example.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import openapiTS, { astToString } from 'openapi-typescript';
import t from 'tap';
import { createTestDatabase } from './helpers/db.ts';
import { DEFAULT_SCENARIO, getJson, postScenario } from './helpers/http.ts';
import { startWeb, startWorker } from './helpers/processes.ts';
import { follow } from './helpers/sse.ts';

const run = promisify(execFile);
const bin = (name: string) => new URL(`../node_modules/.bin/${name}`, import.meta.url).pathname;
const db = await createTestDatabase();
const web = await startWeb(db.url);
const worker = await startWorker(db.url);
const dir = mkdtempSync(join(tmpdir(), 'hourglass-contract-'));
t.teardown(async () => {
  await Promise.all([web.stop(), worker.stop()]);
  await db.drop();
  rmSync(dir, { recursive: true, force: true });
});

const served = await getJson(`${web.baseUrl}/openapi.json`);
const doc = served.json;
const docFile = join(dir, 'openapi.json');
writeFileSync(docFile, JSON.stringify(doc));

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(doc, 'openapi.json');
const validate = (name: string, value: unknown) => {
  const fn = ajv.getSchema(`openapi.json#/components/schemas/${name}`);
  if (!fn) throw new Error(`no component ${name}`);
  const ok = fn(value);
  return ok ? [] : (fn.errors ?? []).slice(0, 5).map((e) => `${e.instancePath} ${e.message}`);
};

t.test('the served document passes both validators', async (t) => {
  const lint = await run(process.execPath, [bin('redocly'), 'lint', docFile, '--format=json'], {
    cwd: dir,
  }).catch((err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? '', stderr: err.stderr ?? '' }));
  const report = JSON.parse(lint.stdout.slice(lint.stdout.indexOf('{'))) as {
    totals: { errors: number; warnings: number };
    problems: Array<{ ruleId: string; severity: string; message: string }>;
  };
  t.equal(report.totals.errors, 0, '@redocly/cli lint (recommended): no error');
  // Health probes answer 200 or 503 and never a 4xx: the only warnings allowed say so.
  t.same(
    [...new Set(report.problems.map((p) => p.ruleId))].filter((r) => r !== 'operation-4xx-response'),
    [],
    'no warning but "health probes have no 4xx"',
  );
  const result = await new Validator().validate(docFile);
  t.equal(result.valid, true, `@seriousme/openapi-schema-validator: ${JSON.stringify(result.errors ?? [])}`);
  const ids = JSON.stringify(doc).match(/"\$id"/g) ?? [];
  t.equal(ids.length, 0, 'no $id in any component schema');
});

t.test('the request schema accepts and rejects exactly what the server does', async (t) => {
  const site = { latitude: 35.2, longitude: -101.8 };
  const bodies: Array<[string, unknown]> = [
    ["the README's example", DEFAULT_SCENARIO],
    [
      'a larger scenario',
      { name: 'W', site, solar: { capacity_mw_dc: 150, dc_ac_ratio: 1.3 }, grid: { export_limit_mw: 200 } },
    ],
    ['no wind', { name: 'n', site, wind: { capacity_mw: 0 } }],
    [
      'a power curve',
      {
        name: 'p',
        site,
        wind: {
          turbine: {
            power_curve: [
              [3, 0],
              [12, 1500],
              [25, 1500],
            ],
          },
        },
      },
    ],
    ['debt by DSCR', { name: 'd', site, finance: { debt: { sizing: 'dscr', target_dscr: 1.35 } } }],
    ['a seed and start year', { name: 's', site, seed: 7, start_year: 2030 }],
    ['supplied-less synthetic', { name: 'w', site, weather: { source: 'synthetic' } }],
    ['no name', { site }],
    ['no site', { name: 'x' }],
    ['latitude 91', { name: 'x', site: { latitude: 91, longitude: 0 } }],
    ['longitude as text', { name: 'x', site: { latitude: 0, longitude: '5' } }],
    ['an unknown field', { ...DEFAULT_SCENARIO, colour: 'red' }],
    ['an unknown nested field', { ...DEFAULT_SCENARIO, solar: { capacity_mw: 5 } }],
    ['negative capacity', { ...DEFAULT_SCENARIO, solar: { capacity_mw_dc: -1 } }],
    ['DC/AC ratio 0', { ...DEFAULT_SCENARIO, solar: { dc_ac_ratio: 0 } }],
    ['an unknown array type', { ...DEFAULT_SCENARIO, solar: { array_type: 'floating' } }],
    ['an empty name', { name: '', site }],
    ['a seed of 1.5', { ...DEFAULT_SCENARIO, seed: 1.5 }],
    ['an unknown weather source', { ...DEFAULT_SCENARIO, weather: { source: 'satellite' } }],
    ['an array body', [DEFAULT_SCENARIO]],
    ['null', null],
    ['a number', 42],
    ['a power curve point of three values', { name: 'p', site, wind: { turbine: { power_curve: [[3, 0, 1]] } } }],
  ];
  for (const [what, body] of bodies) {
    const schemaErrors = validate('ScenarioRequest', body);
    const r = await postScenario(web.baseUrl, body);
    t.equal(
      schemaErrors.length === 0,
      r.status === 201,
      `${what}: schema says ${schemaErrors.length === 0 ? 'valid' : schemaErrors[0]}, server ${r.status}`,
    );
    if (r.status === 201) t.same(validate('Scenario', r.json), [], `${what}: the 201 is a Scenario`);
    else t.same(validate('Problem', r.json), [], `${what}: the ${r.status} is a Problem`);
  }
});

t.test('the sweep request schema accepts and rejects exactly what the server does', async (t) => {
  const base = { site: { latitude: 35.2, longitude: -101.8 } };
  const cap = { path: '/solar/capacity_mw_dc', values: [0, 50] };
  // A body the schema accepts may still be refused by a rule it cannot say (a pointer into no input,
  // an invalid variant): those are listed apart, as the rules after the schema.
  const bodies: Array<[string, unknown, 'schema' | 'rule' | 'ok']> = [
    ['two sizes', { name: 'a', base, vary: [cap] }, 'ok'],
    ['a range', { name: 'b', base, vary: [{ path: '/grid/export_limit_mw', from: 100, to: 200, step: 50 }] }, 'ok'],
    ['zip', { name: 'c', base, combine: 'zip', vary: [cap, { path: '/seed', values: [1, 2] }] }, 'ok'],
    ['keep_hourly', { name: 'd', base, vary: [cap], keep_hourly: true }, 'ok'],
    ['no name', { base, vary: [cap] }, 'schema'],
    ['no base', { name: 'x', vary: [cap] }, 'schema'],
    ['base a number', { name: 'x', base: 3, vary: [cap] }, 'schema'],
    ['empty vary', { name: 'x', base, vary: [] }, 'schema'],
    ['nine parameters', { name: 'x', base, vary: Array.from({ length: 9 }, () => cap) }, 'schema'],
    ['an unknown field', { name: 'x', base, vary: [cap], colour: 1 }, 'schema'],
    ['bad combine', { name: 'x', base, vary: [cap], combine: 'cross' }, 'schema'],
    ['keep_hourly as text', { name: 'x', base, vary: [cap], keep_hourly: 'yes' }, 'schema'],
    ['a parameter not an object', { name: 'x', base, vary: [5] }, 'schema'],
    ['a path that is no pointer', { name: 'x', base, vary: [{ path: 'solar', values: [1] }] }, 'schema'],
    ['empty values', { name: 'x', base, vary: [{ path: '/seed', values: [] }] }, 'schema'],
    [
      'values and a range',
      { name: 'x', base, vary: [{ path: '/seed', values: [1], from: 1, to: 2, step: 1 }] },
      'schema',
    ],
    ['a range without step', { name: 'x', base, vary: [{ path: '/seed', from: 1, to: 2 }] }, 'schema'],
    ['step 0', { name: 'x', base, vary: [{ path: '/seed', from: 1, to: 2, step: 0 }] }, 'schema'],
    ['a bound as text', { name: 'x', base, vary: [{ path: '/seed', from: '1', to: 2, step: 1 }] }, 'schema'],
    ['an unknown parameter field', { name: 'x', base, vary: [{ ...cap, unit: 'MW' }] }, 'schema'],
    ['an array body', [{ name: 'x', base, vary: [cap] }], 'schema'],
    ['a path into no input', { name: 'x', base, vary: [{ path: '/solar/colour', values: [1] }] }, 'rule'],
    ['the name varied', { name: 'x', base, vary: [{ path: '/name', values: ['a'] }] }, 'rule'],
    ['from after to', { name: 'x', base, vary: [{ path: '/seed', from: 5, to: 2, step: 1 }] }, 'rule'],
    ['an invalid variant', { name: 'x', base, vary: [{ path: '/site/latitude', values: [30, 95] }] }, 'rule'],
  ];
  for (const [what, body, expected] of bodies) {
    const schemaErrors = validate('SweepRequest', body);
    const r = await fetch(`${web.baseUrl}/api/sweeps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await r.json()) as Record<string, unknown>;
    t.equal(schemaErrors.length === 0, expected !== 'schema', `${what}: the schema says ${schemaErrors[0] ?? 'valid'}`);
    t.equal(r.status, expected === 'ok' ? 201 : 400, `${what}: the server answers ${r.status}`);
    t.same(validate(r.status === 201 ? 'Sweep' : 'Problem', answer), [], `${what}: the answer matches its schema`);
  }
});

t.test("the list's query schema accepts and rejects exactly what the server does", async (t) => {
  type Param = { name: string; in: string; schema: Record<string, unknown> };
  const params = (doc.paths as Record<string, { get: { parameters: Param[] } }>)['/api/scenarios'].get.parameters;
  // What a generated client or a validating proxy does with a query string: each value typed by its
  // parameter's schema (an integer's text converted only when it is one), an unknown name refused.
  const schemaAccepts = (query: string) => {
    for (const [name, text] of new URLSearchParams(query)) {
      const p = params.find((x) => x.in === 'query' && x.name === name);
      if (!p || new URLSearchParams(query).getAll(name).length > 1) return false;
      const value = p.schema.type === 'integer' && /^-?\d+$/.test(text) ? Number(text) : text;
      if (!ajv.validate(p.schema, value)) return false;
    }
    return true;
  };
  const sweep = '01936f3e-0000-7000-8000-000000000042';
  const cases = [
    'limit=10',
    'limit=1000',
    'status=queued,running',
    'status=cancelled',
    `sweep_id=${sweep}`,
    'sweep_id=none',
    'q=amarillo',
    'limit=5&status=succeeded&q=x',
    'limit=0',
    'limit=1001',
    'limit=abc',
    'limit=1.5',
    'limit=1&limit=2',
    'status=done',
    'status=queued,',
    'sweep_id=nope',
    'colour=red',
    `q=${'x'.repeat(201)}`,
  ];
  for (const query of cases) {
    const r = await getJson(`${web.baseUrl}/api/scenarios?${query}`);
    t.equal(schemaAccepts(query), r.status === 200, `?${query}: the schema and the server (${r.status}) agree`);
    const schema = r.status !== 200 ? 'Problem' : query.includes('limit') ? 'ScenarioPage' : 'ScenarioList';
    t.same(validate(schema, r.json), [], `?${query}: a ${schema}`);
  }
});

t.test('live answers match their documented response schemas', async (t) => {
  const created = await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: 'contract' });
  const id = created.json.id as string;
  await follow(`${web.baseUrl}/api/scenarios/${id}/events`).until((e) => e.event === 'succeeded', 60_000);
  const answers: Array<[string, string, number]> = [
    ['Scenario', `/api/scenarios/${id}`, 200],
    ['ScenarioResult', `/api/scenarios/${id}/statements`, 200],
    ['ScenarioResult', `/api/scenarios/${id}/statements?hourly=false`, 200],
    ['ScenarioList', '/api/scenarios', 200],
    ['ScenarioPage', '/api/scenarios?limit=1', 200],
    ['Problem', '/api/scenarios/not-an-id', 404],
    ['Problem', '/api/scenarios?limit=0', 400],
    ['Health', '/healthz', 200],
    ['Ready', '/readyz', 200],
  ];
  const sweep = (await (
    await fetch(`${web.baseUrl}/api/sweeps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'live', base: DEFAULT_SCENARIO, vary: [{ path: '/seed', values: [1, 2] }] }),
    })
  ).json()) as { id: string };
  await follow(`${web.baseUrl}/api/sweeps/${sweep.id}/events`).until((e) => e.event === 'finished', 60_000);
  answers.push(
    ['Sweep', `/api/sweeps/${sweep.id}`, 200],
    ['SweepPage', '/api/sweeps?limit=1', 200],
    ['SweepResults', `/api/sweeps/${sweep.id}/results?sort=-equity_npv`, 200],
    ['Problem', `/api/sweeps/${sweep.id}/results?sort=colour`, 400],
    ['Problem', '/api/sweeps/not-an-id', 404],
  );
  for (const [schema, path, status] of answers) {
    const r = await getJson(`${web.baseUrl}${path}`);
    t.equal(r.status, status, `${path}: ${status}`);
    t.same(validate(schema, r.json), [], `${path} is a ${schema}`);
  }
  const problem = await getJson(`${web.baseUrl}/api/scenarios/not-an-id`);
  const page = await fetch(`${web.baseUrl}${problem.json.type}`);
  t.equal(page.status, 200, `the problem type ${problem.json.type} is a page of this server`);
  t.match(await page.text(), /Not found/);
  t.equal((await fetch(`${web.baseUrl}/problems/no-such-thing`)).status, 404);
});

t.test('caching: an ETag on a scenario, finished statements immutable', async (t) => {
  const created = await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: 'etag' });
  const id = created.json.id as string;
  const first = await fetch(`${web.baseUrl}/api/scenarios/${id}`);
  const etag = first.headers.get('etag');
  t.match(etag, /^"[\w-]+"$/, 'a strong ETag');
  const again = await fetch(`${web.baseUrl}/api/scenarios/${id}`, { headers: { 'if-none-match': etag ?? '' } });
  t.ok(
    again.status === 304 || again.headers.get('etag') !== etag,
    '304 while unchanged (or a new tag once it moved on)',
  );
  await follow(`${web.baseUrl}/api/scenarios/${id}/events`).until((e) => e.event === 'succeeded', 60_000);
  const done = await fetch(`${web.baseUrl}/api/scenarios/${id}`, { headers: { 'if-none-match': etag ?? '' } });
  t.equal(done.status, 200, 'a finished scenario no longer matches the tag of its queued self');
  const doneTag = done.headers.get('etag') ?? '';
  t.equal((await fetch(`${web.baseUrl}/api/scenarios/${id}`, { headers: { 'if-none-match': doneTag } })).status, 304);
  const statements = await fetch(`${web.baseUrl}/api/scenarios/${id}/statements?hourly=false`);
  t.match(statements.headers.get('cache-control'), /immutable/, 'statements: Cache-Control immutable');
});

t.test('the upload: the series schema accepts and rejects what the server does; a file is text', async (t) => {
  const year = Array.from({ length: 8760 }, (_, h) => 20 + (h % 24));
  const bodies: Array<[string, unknown, 'schema' | 'rule' | 'ok']> = [
    ['values', { name: 'a', values: year }, 'ok'],
    ['hourly_mw and the kind', { name: 'b', kind: 'hourly_series', hourly_mw: year.map((v) => v + 1) }, 'ok'],
    ['no name', { values: year }, 'schema'],
    ['another kind', { name: 'x', kind: 'weather', values: year }, 'schema'],
    ['a value as text', { name: 'x', values: ['1'] }, 'schema'],
    ['an unknown field', { name: 'x', values: year, unit: 'MW' }, 'schema'],
    ['neither values nor hourly_mw', { name: 'x' }, 'rule'],
    ['a wrong length', { name: 'x', values: [1, 2, 3] }, 'rule'],
  ];
  for (const [what, body, expected] of bodies) {
    const schemaErrors = validate('SeriesUpload', body);
    const r = await fetch(`${web.baseUrl}/api/resources`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await r.arrayBuffer();
    t.equal(schemaErrors.length === 0, expected !== 'schema', `${what}: the schema says ${schemaErrors[0] ?? 'valid'}`);
    t.equal(r.status, expected === 'ok' ? 201 : 400, `${what}: the server answers ${r.status}`);
  }
  const upload = (doc as { paths: Record<string, { post?: { requestBody?: { content: object } } }> }).paths[
    '/api/resources'
  ].post?.requestBody?.content;
  t.same(Object.keys(upload ?? {}).sort(), ['application/json', 'text/csv', 'text/plain'], 'its three media types');
  const srw = new URL('./fixtures/reference/ssc_wind_constant_5ms.srw', import.meta.url);
  const file = await fetch(`${web.baseUrl}/api/resources`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: readFileSync(srw),
  });
  t.equal(file.status, 201, 'an SRW file as text/plain');
  t.equal(((await file.json()) as { kind: string }).kind, 'wind_resource');
});

t.test('a client compiled from openapi-typescript types posts the README example', async (t) => {
  writeFileSync(join(dir, 'api.d.ts'), astToString(await openapiTS(doc as never)));
  writeFileSync(
    join(dir, 'client.ts'),
    `import type { components, paths } from './api.d.ts';
declare const process: { argv: string[] };
type Create = paths['/api/scenarios']['post'];
type Body = Create['requestBody']['content']['application/json'];
type Created = Create['responses'][201]['content']['application/json'];
const body: Body = { name: 'Amarillo hybrid', site: { latitude: 35.2, longitude: -101.8 } };
// @ts-expect-error: a scenario needs its site
const noSite: Body = { name: 'x' };
void noSite;
const res = await fetch(process.argv[2] + '/api/scenarios', {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
});
const created = (await res.json()) as Created;
const status: components['schemas']['Scenario']['status'] = created.status;
console.log(res.status, status, created.inputs.solar.capacity_mw_dc);
`,
  );
  writeFileSync(join(dir, 'package.json'), '{"type": "module"}');
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        module: 'nodenext',
        strict: true,
        noEmit: true,
        allowImportingTsExtensions: true,
        skipLibCheck: true,
        types: [],
        lib: ['es2022', 'dom'],
      },
      files: ['client.ts'],
    }),
  );
  const tsc = await run(process.execPath, [bin('tsc'), '-p', join(dir, 'tsconfig.json')]).catch(
    (err: { stdout?: string }) => ({ stdout: `FAILED ${err.stdout}` }),
  );
  t.equal(tsc.stdout.trim(), '', 'the client type-checks (and a body without site does not)');
  const ran = await run(process.execPath, [join(dir, 'client.ts'), web.baseUrl]);
  t.match(ran.stdout.trim(), /^201 queued \d+/, 'and posts the example: 201, queued, defaults filled in');
});
