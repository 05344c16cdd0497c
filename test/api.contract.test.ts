// The API answers with exactly the shapes its OpenAPI document (from the TypeBox schemas) promises.
import { Value } from '@sinclair/typebox/value';
import t from 'tap';
import { registerFormats } from '../shared/schemas/formats.ts';
import { Problem } from '../shared/schemas/problem.ts';
import { ScenarioResult } from '../shared/schemas/result.ts';
import { Scenario, ScenarioList } from '../shared/schemas/scenario.ts';
import { createTestDatabase } from './helpers/db.ts';
import { DEFAULT_SCENARIO, getJson, postScenario } from './helpers/http.ts';
import { startWeb, startWorker } from './helpers/processes.ts';
import { follow } from './helpers/sse.ts';

registerFormats();
const db = await createTestDatabase();
const web = await startWeb(db.url);
const worker = await startWorker(db.url);
t.teardown(async () => {
  await Promise.all([web.stop(), worker.stop()]);
  await db.drop();
});

const errorsOf = (schema: Parameters<typeof Value.Errors>[0], value: unknown) =>
  [...Value.Errors(schema, value)].slice(0, 5).map((e) => `${e.path}: ${e.message}`);

t.test('scenario, list, statements and problems match their schemas', async (t) => {
  const created = await postScenario(web.baseUrl, {
    ...DEFAULT_SCENARIO,
    name: 'contract',
    grid: { export_limit_mw: 120 },
    finance: { debt: { sizing: 'dscr' } },
  });
  t.same(errorsOf(Scenario, created.json), [], 'POST answer is a Scenario');
  const id = created.json.id as string;
  await follow(`${web.baseUrl}/api/scenarios/${id}/events`).until((e) => e.event === 'succeeded', 60_000);

  const one = await getJson(`${web.baseUrl}/api/scenarios/${id}`);
  t.same(errorsOf(Scenario, one.json), [], 'GET one is a Scenario');
  const list = await getJson(`${web.baseUrl}/api/scenarios`);
  t.same(errorsOf(ScenarioList, list.json), [], 'GET list is a ScenarioList');
  // The list's JSON is built in SQL, the single read's in TypeScript: they must agree.
  const { inputs: _inputs, ...withoutInputs } = one.json;
  const listed = (list.json.items as Array<Record<string, unknown>>).find((s) => s.id === id);
  t.same(listed, withoutInputs, 'a list item is the scenario without its inputs, field for field');
  t.equal(JSON.stringify(listed?.progress), JSON.stringify(one.json.progress));
  const statements = await getJson(`${web.baseUrl}/api/scenarios/${id}/statements`);
  t.same(errorsOf(ScenarioResult, statements.json), [], 'statements are a ScenarioResult');
  const lite = await getJson(`${web.baseUrl}/api/scenarios/${id}/statements?hourly=false`);
  t.same(errorsOf(ScenarioResult, lite.json), [], '?hourly=false is a ScenarioResult too');
  const problem = await getJson(`${web.baseUrl}/api/scenarios/not-an-id`);
  t.same(errorsOf(Problem, problem.json), [], 'a 404 is a Problem');
});

t.test('the OpenAPI document lists every endpoint and /docs serves Swagger UI', async (t) => {
  const doc = await getJson(`${web.baseUrl}/openapi.json`);
  t.equal(doc.status, 200);
  t.equal(doc.json.openapi, '3.1.0');
  const paths = Object.keys(doc.json.paths as Record<string, unknown>).sort();
  t.same(paths, [
    '/api/optimizations',
    '/api/optimizations/{id}',
    '/api/optimizations/{id}/cancel',
    '/api/optimizations/{id}/evaluations',
    '/api/optimizations/{id}/events',
    '/api/resources',
    '/api/resources/{id}',
    '/api/resources/{id}/content',
    '/api/scenarios',
    '/api/scenarios/{id}',
    '/api/scenarios/{id}/cancel',
    '/api/scenarios/{id}/events',
    '/api/scenarios/{id}/statements',
    '/api/sweeps',
    '/api/sweeps/{id}',
    '/api/sweeps/{id}/cancel',
    '/api/sweeps/{id}/events',
    '/api/sweeps/{id}/results',
    '/api/workspace',
    '/healthz',
    '/problems/{type}',
    '/readyz',
  ]);
  const schemas = (doc.json.components as { schemas: Record<string, unknown> }).schemas;
  t.ok(schemas.ScenarioInputs && schemas.ScenarioResult && schemas.Problem, 'schemas from TypeBox');
  const docs = await fetch(`${web.baseUrl}/docs/`);
  t.equal(docs.status, 200);
  t.match(await docs.text(), /swagger-ui/);
  const health = await getJson(`${web.baseUrl}/healthz`);
  t.same(health.json, { status: 'ok' });
  const ready = await getJson(`${web.baseUrl}/readyz`);
  t.equal(ready.status, 200);
  t.equal(ready.json.status, 'ok');
});

t.test('request ids: honored when given, generated otherwise, and echoed', async (t) => {
  const given = await fetch(`${web.baseUrl}/healthz`, { headers: { 'x-request-id': 'trace-123' } });
  t.equal(given.headers.get('x-request-id'), 'trace-123');
  const generated = await fetch(`${web.baseUrl}/healthz`);
  t.match(generated.headers.get('x-request-id'), /^[0-9a-f-]{36}$/);
  t.equal(generated.headers.get('x-powered-by'), null);
  t.equal(generated.headers.get('x-content-type-options'), 'nosniff');
});
