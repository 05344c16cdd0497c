// Workspaces (API_KEYS="acme:<key>,acme:<key2>,globex:<key>,<bare key>"): every route answers
// another workspace's id exactly as it answers an unknown one (404, the same body but for the id),
// lists and filters never show another workspace's rows, Idempotency-Keys are per workspace, two
// keys of one workspace see the same rows, and a bare key is the `default` workspace's.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { DEFAULT_SCENARIO } from './helpers/http.ts';
import { startStack } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const KEYS = {
  acme: 'acme-key-6c1f0e2b9a',
  acme2: 'acme-key-two-51d7e3',
  globex: 'globex-key-0b8e44c2aa',
  bare: 'bare-legacy-key-93af10',
};
const stack = await startStack({
  web: { API_KEYS: `acme:${KEYS.acme},acme:${KEYS.acme2},globex:${KEYS.globex},${KEYS.bare}` },
  workers: [{}],
});
const { web } = stack;
t.teardown(() => stack.stop());

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
async function call(method: string, path: string, key: string, body?: unknown, extra: Record<string, string> = {}) {
  const res = await fetch(`${web.baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...auth(key), ...extra },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', text };
}
const json = (r: { text: string }) => JSON.parse(r.text) as Record<string, unknown>;

const site = DEFAULT_SCENARIO.site;
// acme's resources: a scenario, a sweep of two variants, a small optimization; all finished.
const scenario = json(await call('POST', '/api/scenarios', KEYS.acme, { name: 'acme single', site })).id as string;
const sweep = json(
  await call('POST', '/api/sweeps', KEYS.acme, {
    name: 'acme sweep',
    base: { site },
    vary: [{ path: '/solar/capacity_mw_dc', values: [50, 100] }],
  }),
).id as string;
const optimization = json(
  await call('POST', '/api/optimizations', KEYS.acme, {
    name: 'acme optimization',
    base: { site },
    variables: [{ path: '/solar/capacity_mw_dc', min: 50, max: 100, step: 50 }],
    objective: { maximize: 'equity_npv' },
    max_evaluations: 4,
  }),
).id as string;
await waitUntil(
  async () => {
    const s = json(await call('GET', `/api/scenarios/${scenario}`, KEYS.acme));
    const w = json(await call('GET', `/api/sweeps/${sweep}`, KEYS.acme));
    const o = json(await call('GET', `/api/optimizations/${optimization}`, KEYS.acme));
    return s.status === 'succeeded' && w.finished_at && o.finished_at;
  },
  { timeoutMs: 120_000, what: "acme's resources to finish" },
);
const variant = (
  json(await call('GET', `/api/sweeps/${sweep}/results`, KEYS.acme)).variants as Array<{
    scenario_id: string;
  }>
)[0].scenario_id;

/** Every route that names a resource, as [method, path with {id}, kind of id, body]. */
const ROUTES: Array<[string, string, 'scenario' | 'variant' | 'sweep' | 'optimization', unknown?]> = [
  ['GET', '/api/scenarios/{id}', 'scenario'],
  ['GET', '/api/scenarios/{id}/events', 'scenario'],
  ['GET', '/api/scenarios/{id}/statements', 'scenario'],
  ['GET', '/api/scenarios/{id}/statements?format=csv', 'scenario'],
  ['GET', '/api/scenarios/{id}/statements?year=1', 'scenario'],
  ['GET', '/api/scenarios/{id}/statements?hourly=false', 'scenario'],
  ['POST', '/api/scenarios/{id}/cancel', 'scenario'],
  ['DELETE', '/api/scenarios/{id}', 'scenario'],
  ['GET', '/api/scenarios/{id}', 'variant'],
  ['DELETE', '/api/scenarios/{id}', 'variant'],
  ['GET', '/api/sweeps/{id}', 'sweep'],
  ['GET', '/api/sweeps/{id}/events', 'sweep'],
  ['GET', '/api/sweeps/{id}/results', 'sweep'],
  ['GET', '/api/sweeps/{id}/results?format=csv', 'sweep'],
  ['POST', '/api/sweeps/{id}/cancel', 'sweep'],
  ['DELETE', '/api/sweeps/{id}', 'sweep'],
  ['GET', '/api/optimizations/{id}', 'optimization'],
  ['GET', '/api/optimizations/{id}/events', 'optimization'],
  ['GET', '/api/optimizations/{id}/evaluations', 'optimization'],
  ['GET', '/api/optimizations/{id}/evaluations?format=csv', 'optimization'],
  ['POST', '/api/optimizations/{id}/cancel', 'optimization'],
  ['DELETE', '/api/optimizations/{id}', 'optimization'],
];
const ids = { scenario, variant, sweep, optimization };

t.test("another workspace's id is answered exactly as an unknown one", async (t) => {
  for (const key of [KEYS.globex, KEYS.bare]) {
    for (const [method, template, kind] of ROUTES) {
      const theirs = await call(method, template.replace('{id}', ids[kind]), key);
      const unknownId = randomUUID();
      const unknown = await call(method, template.replace('{id}', unknownId), key);
      const what = `${method} ${template} (${kind}) with ${key === KEYS.globex ? 'globex' : 'the bare key'}`;
      t.equal(theirs.status, 404, `${what}: 404`);
      t.equal(theirs.status, unknown.status, `${what}: the same status as an unknown id`);
      t.equal(theirs.type, unknown.type, `${what}: the same content type`);
      t.equal(theirs.text.replaceAll(ids[kind], unknownId), unknown.text, `${what}: the same body`);
    }
  }
});

t.test('lists and filters show only the workspace’s rows', async (t) => {
  for (const path of ['/api/scenarios', '/api/scenarios?limit=100', `/api/scenarios?sweep_id=${sweep}`]) {
    const body = json(await call('GET', path, KEYS.globex));
    t.same(body.items, [], `${path}: globex sees nothing of acme's`);
  }
  for (const path of ['/api/sweeps', '/api/optimizations']) {
    t.same(json(await call('GET', path, KEYS.globex)).items, [], `${path}: globex sees nothing of acme's`);
  }
  const mine = json(await call('GET', '/api/scenarios?limit=100', KEYS.acme)).items as Array<{ id: string }>;
  t.ok(
    mine.some((s) => s.id === scenario),
    "acme's list has its scenario",
  );
  const other = json(await call('GET', '/api/scenarios?limit=100', KEYS.acme2)).items as Array<{ id: string }>;
  t.same(
    other.map((s) => s.id),
    mine.map((s) => s.id),
    "acme's second key sees the same rows",
  );
  t.equal(json(await call('GET', `/api/scenarios/${scenario}`, KEYS.acme2)).id, scenario, 'and reads them');
  const all = json(await call('GET', '/api/scenarios', KEYS.acme)) as { items: unknown[]; total?: number };
  t.ok(all.items.length >= 1, 'the streamed list (no limit) is the workspace’s too');
});

t.test('Idempotency-Keys are per workspace; a bare key is the default workspace', async (t) => {
  const header = { 'idempotency-key': 'same-key-in-two-workspaces' };
  const a = await call('POST', '/api/scenarios', KEYS.acme, { name: 'idem', site }, header);
  const g = await call('POST', '/api/scenarios', KEYS.globex, { name: 'idem', site }, header);
  t.equal(a.status, 201);
  t.equal(g.status, 201, 'the same key in another workspace creates its own scenario');
  t.not(json(a).id, json(g).id);
  const again = await call('POST', '/api/scenarios', KEYS.acme, { name: 'idem', site }, header);
  t.equal(json(again).id, json(a).id, 'within a workspace the key replays');
  const bare = json(await call('POST', '/api/scenarios', KEYS.bare, { name: 'bare', site })).id as string;
  const { rows } = await stack.pool.query<{ workspace: string }>('SELECT workspace FROM scenarios WHERE id = $1', [
    bare,
  ]);
  t.equal(rows[0].workspace, 'default', "a bare key's rows are the default workspace's");
  const ws = await stack.pool.query<{ workspace: string }>('SELECT workspace FROM scenarios WHERE sweep_id = $1', [
    sweep,
  ]);
  t.same(
    ws.rows.map((r) => r.workspace),
    ['acme', 'acme'],
    "a sweep's variants are in its workspace",
  );
});

t.test('the owner may delete; a variant alone is refused with 409 naming its sweep', async (t) => {
  const refused = await call('DELETE', `/api/scenarios/${variant}`, KEYS.acme);
  t.equal(refused.status, 409);
  t.match(json(refused).detail, sweep, 'the problem names the sweep');
  for (const [path, id] of [
    ['/api/scenarios/', scenario],
    ['/api/sweeps/', sweep],
    ['/api/optimizations/', optimization],
  ]) {
    t.equal((await call('DELETE', `${path}${id}`, KEYS.acme2)).status, 204, `DELETE ${path}{id}: 204`);
    t.equal((await call('GET', `${path}${id}`, KEYS.acme)).status, 404, 'then 404');
    t.equal((await call('DELETE', `${path}${id}`, KEYS.acme)).status, 404, 'and a second DELETE: 404');
  }
});
