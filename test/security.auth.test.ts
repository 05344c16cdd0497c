// API keys (API_KEYS): every /api/* route needs `Authorization: Bearer <key>` (else a 401 problem
// with WWW-Authenticate); health, readiness and the docs stay open; the OpenAPI document declares
// the bearer scheme; and no key, right or wrong, ever reaches the web's log.
import t from 'tap';
import { DEFAULT_SCENARIO, getJson, postScenario } from './helpers/http.ts';
import { follow } from './helpers/sse.ts';
import { startStack } from './helpers/stack.ts';

const KEYS = ['hg-key-one-3f9a1c7e', 'hg-key-two-b84d02aa'];
const WRONG = 'hg-key-one-3f9a1c7f';
// debug: log everything the web would ever log, so a leak would show.
const stack = await startStack({ web: { API_KEYS: KEYS.join(','), LOG_LEVEL: 'debug' } });
const { web } = stack;
t.teardown(() => stack.stop());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

t.test('/api/* without a valid key: 401 problem with WWW-Authenticate', async (t) => {
  const id = (await postScenario(web.baseUrl, DEFAULT_SCENARIO, bearer(KEYS[0]))).json.id as string;
  t.ok(id, 'a scenario created with a valid key');
  const routes: Array<[string, string]> = [
    ['POST', '/api/scenarios'],
    ['GET', '/api/scenarios'],
    ['GET', `/api/scenarios/${id}`],
    ['GET', `/api/scenarios/${id}/events`],
    ['GET', `/api/scenarios/${id}/statements`],
    ['GET', '/api/scenarios/not-a-uuid'],
    ['GET', '/api/nothing-here'],
  ];
  const badAuth: Array<[string, Record<string, string>]> = [
    ['no Authorization', {}],
    ['a wrong key', bearer(WRONG)],
    ['a key with a suffix', bearer(`${KEYS[0]}x`)],
    ['a prefix of a key', bearer(KEYS[0].slice(0, -1))],
    ['both keys joined', bearer(KEYS.join(','))],
    ['an empty bearer', { authorization: 'Bearer ' }],
    ['the key as Basic credentials', { authorization: `Basic ${Buffer.from(`${KEYS[0]}:`).toString('base64')}` }],
    ['the key without a scheme', { authorization: KEYS[0] }],
    ['the key in another header', { 'x-api-key': KEYS[0] }],
  ];
  for (const [method, path] of routes) {
    for (const [what, headers] of badAuth) {
      const res = await fetch(`${web.baseUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: method === 'POST' ? JSON.stringify(DEFAULT_SCENARIO) : undefined,
      });
      t.equal(res.status, 401, `${method} ${path} with ${what}: 401`);
      t.match(res.headers.get('www-authenticate'), /^Bearer realm=/, 'WWW-Authenticate: Bearer');
      t.match(res.headers.get('content-type'), /^application\/problem\+json/);
      const body = (await res.json()) as { status: number; title: string };
      t.equal(body.status, 401);
    }
  }
  // A real key, in the URL by mistake: refused, and (below) not in the log.
  const keyInQuery = await fetch(`${web.baseUrl}/api/scenarios?api_key=${KEYS[0]}&access%5Ftoken=${KEYS[1]}`);
  t.equal(keyInQuery.status, 401, 'a key in the query string is not accepted');
  await keyInQuery.arrayBuffer();
  const { rows } = await stack.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM scenarios');
  t.equal(rows[0].n, 1, 'no unauthorized POST created anything');
});

t.test('valid keys (either one, any scheme case) reach every /api route', async (t) => {
  const created = await postScenario(web.baseUrl, DEFAULT_SCENARIO, bearer(KEYS[1]));
  t.equal(created.status, 201, 'the second key works too');
  const id = created.json.id as string;
  t.equal((await getJson(`${web.baseUrl}/api/scenarios`, bearer(KEYS[0]))).status, 200);
  t.equal((await getJson(`${web.baseUrl}/api/scenarios/${id}`, { authorization: `bearer ${KEYS[0]}` })).status, 200);
  t.equal((await getJson(`${web.baseUrl}/api/scenarios/${id}/statements`, bearer(KEYS[0]))).status, 409);
  const stream = follow(`${web.baseUrl}/api/scenarios/${id}/events`, { headers: bearer(KEYS[0]) });
  const queued = await stream.until((e) => e.event === 'queued');
  stream.close();
  t.equal(queued.id, 1, 'the event stream opens with a key');
});

t.test('health, readiness and the docs stay open', async (t) => {
  for (const path of ['/healthz', '/readyz', '/openapi.json', '/docs/']) {
    const res = await fetch(`${web.baseUrl}${path}`);
    t.equal(res.status, 200, `${path}: 200 without a key`);
    await res.arrayBuffer();
  }
});

t.test('the OpenAPI document declares the bearer scheme on /api operations only', async (t) => {
  const doc = (await getJson(`${web.baseUrl}/openapi.json`)).json as {
    components: { securitySchemes?: Record<string, { type: string; scheme: string }> };
    paths: Record<string, Record<string, { security?: unknown }>>;
  };
  t.match(doc.components.securitySchemes?.bearer, { type: 'http', scheme: 'bearer' });
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (path.startsWith('/api/')) t.same(op.security, [{ bearer: [] }], `${method} ${path} needs the key`);
      else t.same(op.security, [], `${method} ${path} is open (security: [])`);
    }
  }
});

t.test('no key, right or wrong, appears in the log', async (t) => {
  // Every request above was logged (debug level), with its headers.
  t.ok(web.logs.length > 50, `${web.logs.length} log lines`);
  const text = JSON.stringify(web.logs);
  for (const key of [...KEYS, WRONG]) t.notOk(text.includes(key), `${key.slice(0, 10)}… is not in the log`);
  t.notOk(text.includes(Buffer.from(`${KEYS[0]}:`).toString('base64')), 'nor its Basic form');
  t.ok(text.includes('[redacted]'), 'Authorization headers are logged as [redacted]');
  t.ok(
    web.logs.some((l) => JSON.stringify(l).includes('api_key=[redacted]&access%5Ftoken=[redacted]')),
    'keys in a URL are logged as [redacted]',
  );
});
