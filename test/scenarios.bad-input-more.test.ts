// More bad input, beyond test/scenarios.bad-input.test.ts: cases generated from the schema (every
// required field missing in turn, wrong types, out of bounds, ±1e400), bodies that no schema
// describes (NUL, unpaired surrogates, deep nesting, 17 MB), names stored byte for byte (control
// characters, emoji, SQL and HTML fragments), and every {id} route, header, query and method.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { parseSamCsv } from '../shared/weather/samcsv.ts';
import { psm3 } from './fixtures/weather.writers.ts';
import { getJson, postScenario } from './helpers/http.ts';
import { BASE, schemaCases, WEATHER } from './helpers/schema-cases.ts';
import { startStack } from './helpers/stack.ts';

// The default body limit (16 MiB), so the 17 MB body meets the limit production has.
const stack = await startStack();
const { web } = stack;
t.teardown(() => stack.stop());

const rowCount = async () =>
  (
    await stack.pool.query<{ n: number; jobs: number }>(
      `SELECT (SELECT count(*)::int FROM scenarios) AS n, (SELECT count(*)::int FROM pgboss.job WHERE name = 'calculate') AS jobs`,
    )
  ).rows[0];

interface Problem {
  status: number;
  type: string;
  title: string;
  errors?: Array<{ path: string; message: string }>;
}

async function post(body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${web.baseUrl}/api/scenarios`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  const text = await res.text();
  return { res, text, json: (text ? JSON.parse(text) : {}) as Problem & Record<string, unknown> };
}

const names = (p: Problem, path: string) =>
  p.errors?.some((e) => (e.path === path || e.path.startsWith(`${path}/`)) && e.message.length > 0) ?? false;

t.test('schema-generated cases: each is a 400 naming its field, and creates nothing', async (t) => {
  const cases = schemaCases();
  t.ok(cases.length > 200, `${cases.length} cases from the schema`);
  const wrong: string[] = [];
  for (const c of cases) {
    const { res, json } = await post(c.body);
    if (res.status !== 400 || !names(json, c.path)) {
      wrong.push(`${c.name}: ${res.status} ${JSON.stringify(json.errors ?? json).slice(0, 200)}`);
    }
  }
  t.same(wrong, [], 'every case is a 400 that names its field');
  t.same(await rowCount(), { n: 0, jobs: 0 }, 'no row, no job');
});

t.test('bodies no schema describes', async (t) => {
  const valid = JSON.stringify(BASE);
  const cases: Array<{ name: string; body: string; status: number; path?: string; headers?: Record<string, string> }> =
    [
      { name: 'NUL in the name', body: JSON.stringify({ ...BASE, name: 'a\u0000b' }), status: 400, path: '/name' },
      { name: 'an unpaired surrogate', body: valid.replace('bad input', 'a\\ud800b'), status: 400, path: '/name' },
      { name: 'a lone low surrogate', body: valid.replace('bad input', '\\udc00'), status: 400, path: '/name' },
      {
        name: 'NUL in an unknown key',
        body: valid.replace('{', '{"x\\u0000y":1,'),
        status: 400,
      },
      {
        name: 'nested 10,000 deep',
        body: valid.replace('{', `{"a":${'['.repeat(10_000)}${']'.repeat(10_000)},`),
        status: 400,
        path: '/a',
      },
      {
        name: 'nested 10,000 deep, with an Idempotency-Key',
        body: valid.replace('{', `{"a":${'{"b":'.repeat(10_000)}1${'}'.repeat(10_000)},`),
        status: 400,
        path: '/a',
        headers: { 'idempotency-key': 'deep' },
      },
      { name: 'nested 1,000,000 deep (unparseable)', body: '['.repeat(1_000_000), status: 400 },
      { name: 'a 17 MB body', body: JSON.stringify({ ...BASE, pad: 'x'.repeat(17 * 1024 * 1024) }), status: 413 },
      {
        name: 'a 17 MB body of weather text',
        body: JSON.stringify({ ...BASE, weather: { source: 'sam_csv', text: 'x'.repeat(17 * 1024 * 1024) } }),
        status: 413,
      },
      {
        name: 'a number with 5,000 digits',
        body: valid.replace('35.2', '9'.repeat(5000)),
        status: 400,
        path: '/site/latitude',
      },
      { name: 'trailing garbage', body: `${valid}]`, status: 400 },
      {
        name: 'UTF-8 bytes labelled UTF-16',
        body: valid,
        status: 400,
        headers: { 'content-type': 'application/json; charset=utf-16' },
      },
      {
        name: 'a charset JSON is never in',
        body: valid,
        status: 415,
        headers: { 'content-type': 'application/json; charset=iso-8859-1' },
      },
      {
        name: '__proto__ key',
        body: valid.replace('{', '{"__proto__":{"admin":true},'),
        status: 400,
        path: '/__proto__',
      },
    ];
  for (const c of cases) {
    const { res, json } = await post(c.body, c.headers);
    t.equal(res.status, c.status, `${c.name}: ${c.status}`);
    t.match(res.headers.get('content-type'), /^application\/problem\+json/, `${c.name}: a problem`);
    if (c.path) t.ok(names(json, c.path), `${c.name}: names ${c.path}: ${JSON.stringify(json.errors)}`);
  }
  t.same(await rowCount(), { n: 0, jobs: 0 }, 'no row, no job');

  // A SAM weather file that parses except for one line: the answer names the line.
  const lines = (WEATHER.sam_csv.text as string).split('\n');
  lines[4999] = lines[4999].replace(/^(\d+,\d+,\d+,\d+),\d+/, '$1,abc');
  const broken = await post(JSON.stringify({ ...BASE, weather: { source: 'sam_csv', text: lines.join('\n') } }));
  t.equal(broken.res.status, 400);
  t.match(broken.json.errors, [{ path: '/weather/text', message: /^line 5000: GHI is not a number/ }]);
});

t.test('names: stored and returned byte for byte; SQL and HTML are data, never code', async (t) => {
  const samples = [
    'tab\there, newline\nthere, return\r, bell\u0007, escape\u001b[31m, DEL\u007f, C1 \u0085\u009f',
    'emoji 😀 family 👩‍👩‍👧‍👦 flag 🇨🇭, combining e\u0301 vs é, zero\u200bwidth, BOM\ufeff, RTL \u202eevil',
    '太阳能 + 風力 + ветер + رياح',
    "Robert'); DROP TABLE scenarios; --",
    "x' OR '1'='1' /* */ UNION SELECT inputs FROM scenarios --",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal text is the point
    "$1 $$ E'\\x00' \\\\ %s %n {{7*7}} ${7*7}",
    '<script>alert(1)</script><img src=x onerror=alert(2)>',
    '"quoted" & <b>bold</b> &amp; \\u0000 (a backslash, not a NUL)',
  ];
  for (const name of samples) {
    const created = await postScenario(web.baseUrl, { ...BASE, name });
    t.equal(created.status, 201, `created: ${JSON.stringify(name)}`);
    t.equal(created.json.name, name, 'the answer has the name as sent');
    const id = created.json.id as string;
    const shown = await fetch(`${web.baseUrl}/api/scenarios/${id}`);
    t.match(shown.headers.get('content-type'), /^application\/json/, 'served as JSON, never HTML');
    t.equal(shown.headers.get('x-content-type-options'), 'nosniff');
    t.equal(((await shown.json()) as { name: string }).name, name, 'GET returns it unchanged');
    const { rows } = await stack.pool.query<{ bytes: Buffer; inputs_name: string }>(
      `SELECT convert_to(name, 'UTF8') AS bytes, inputs->>'name' AS inputs_name FROM scenarios WHERE id = $1`,
      [id],
    );
    t.same(rows[0].bytes, Buffer.from(name, 'utf8'), 'stored byte for byte');
    t.equal(rows[0].inputs_name, name, 'and in the stored inputs');
  }
  const list = await getJson(`${web.baseUrl}/api/scenarios`);
  const listed = (list.json.items as Array<{ name: string }>).map((i) => i.name);
  t.same([...listed].sort(), [...samples].sort(), 'the list has every name as sent');
  const { rows } = await stack.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name IN ('scenarios', 'scenario_events', 'scenario_results')`,
  );
  t.equal(rows[0].n, 3, 'every table is still there');
  t.equal((await rowCount()).n, samples.length, 'one row per create, nothing else');
});

t.test('every {id} route: malformed and foreign ids are 404 problems, never 5xx', async (t) => {
  const real = (await postScenario(web.baseUrl, { ...BASE, name: 'real' })).json.id as string;
  const ids = [
    crypto.randomUUID(), // a v4: well formed, unknown
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
    `{${real}}`,
    `urn:uuid:${real}`,
    real.replaceAll('-', ''),
    `${real}0`,
    real.slice(0, -1),
    ` ${real}`,
    'a'.repeat(2000),
    '%00',
    '%F0%9F%98%80',
    '..%2F..%2Fetc%2Fpasswd',
    "1'%20OR%20'1'='1",
    '<script>',
    'bad-input',
  ];
  for (const id of ids) {
    for (const suffix of ['', '/events', '/statements']) {
      const res = await fetch(`${web.baseUrl}/api/scenarios/${id}${suffix}`);
      t.equal(res.status, 404, `${id.slice(0, 60)}${suffix}: 404`);
      t.match(res.headers.get('content-type'), /^application\/problem\+json/);
      await res.arrayBuffer();
    }
  }
  const upper = await getJson(`${web.baseUrl}/api/scenarios/${real.toUpperCase()}`);
  t.equal(upper.status, 200, 'a UUID is case-insensitive');
  t.equal(upper.json.id, real);
  const malformed = await fetch(`${web.baseUrl}/api/scenarios/%ZZ`);
  t.equal(malformed.status, 400, 'a malformed percent-encoding is a 400');
  t.match(malformed.headers.get('content-type'), /^application\/problem\+json/);
});

t.test(
  'Last-Event-ID: not a number, or past the end, is a 400; a finished stream with nothing left is a 204',
  async (t) => {
    const id = (await postScenario(web.baseUrl, { ...BASE, name: 'events' })).json.id as string;
    const url = `${web.baseUrl}/api/scenarios/${id}/events`;
    for (const value of ['abc', '-1', '1.5', '1e3', '0x10', '99999999999', '5abc', '１']) {
      const res = await fetch(url, { headers: { 'last-event-id': encodeURIComponent(value) } });
      t.equal(res.status, 400, `Last-Event-ID ${JSON.stringify(value)}: 400`);
      const body = (await res.json()) as Problem;
      t.equal(body.errors?.[0]?.path, 'header:Last-Event-ID');
    }
    const query = await fetch(`${url}?last_event_id=abc`);
    t.equal(query.status, 400);
    t.equal(((await query.json()) as Problem).errors?.[0]?.path, '?last_event_id');
    const past = await fetch(url, { headers: { 'last-event-id': '2' } });
    t.equal(past.status, 400, 'an id after the last event (1 so far) is a 400');
    await past.arrayBuffer();

    // Finished scenario (marked so directly; no worker here), and the client has every event.
    await stack.pool.query(`UPDATE scenarios SET status = 'failed' WHERE id = $1`, [id]);
    const done = await fetch(url, { headers: { 'last-event-id': '1' } });
    t.equal(done.status, 204, 'nothing left to send: 204, so an EventSource stops reconnecting');
  },
);

t.test('unknown query parameters are named on every route', async (t) => {
  const id = (await postScenario(web.baseUrl, { ...BASE, name: 'query' })).json.id as string;
  const before = (await rowCount()).n;
  const cases: Array<[string, string, string]> = [
    ['GET', '/api/scenarios?page=2&limit=10', '?page'],
    ['GET', `/api/scenarios/${id}?expand=inputs`, '?expand'],
    ['GET', `/api/scenarios/${id}/events?since=3`, '?since'],
    ['GET', `/api/scenarios/${id}/statements?years=3`, '?years'],
    ['POST', '/api/scenarios?dry_run=true', '?dry_run'],
  ];
  for (const [method, path, named] of cases) {
    const res = await fetch(`${web.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: method === 'POST' ? JSON.stringify(BASE) : undefined,
    });
    t.equal(res.status, 400, `${method} ${path}: 400`);
    t.ok(
      ((await res.json()) as Problem).errors?.some((e) => e.path === named),
      `names ${named}`,
    );
  }
  t.equal((await rowCount()).n, before, 'the POST with an unknown parameter created nothing');
});

t.test('methods not allowed: 405 with Allow on every path; OPTIONS answers Allow', async (t) => {
  const id = (await postScenario(web.baseUrl, { ...BASE, name: 'methods' })).json.id as string;
  const paths: Record<string, string[]> = {
    '/api/scenarios': ['GET', 'POST', 'HEAD'],
    [`/api/scenarios/${id}`]: ['GET', 'HEAD', 'DELETE'],
    [`/api/scenarios/${id}/events`]: ['GET', 'HEAD'],
    [`/api/scenarios/${id}/statements`]: ['GET', 'HEAD'],
    '/healthz': ['GET', 'HEAD'],
    '/readyz': ['GET', 'HEAD'],
    '/openapi.json': ['GET', 'HEAD'],
  };
  for (const [path, allowed] of Object.entries(paths)) {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      if (allowed.includes(method)) continue;
      const res = await fetch(`${web.baseUrl}${path}`, { method });
      t.equal(res.status, 405, `${method} ${path.replace(id, '{id}')}: 405`);
      t.same(res.headers.get('allow')?.split(', ').sort(), [...allowed].sort(), 'Allow lists what is allowed');
      t.match(res.headers.get('content-type'), /^application\/problem\+json/);
      await res.arrayBuffer();
    }
    const options = await fetch(`${web.baseUrl}${path}`, { method: 'OPTIONS' });
    t.equal(options.status, 204, `OPTIONS ${path.replace(id, '{id}')}: 204`);
    t.same(options.headers.get('allow')?.split(', ').sort(), [...allowed].sort());
  }
});

t.test(
  'the default limit admits a solar file, a wind file and 3 more real years of each; beyond, a 413 names it',
  async (t) => {
    const reference = (name: string) => readFileSync(new URL(`./fixtures/reference/${name}`, import.meta.url), 'utf8');
    // NSRDB PSM3 hourly files (13 columns, the larger solar format) and 4-height SRW files.
    const solar = psm3(parseSamCsv(reference('phoenix_az_tmy2.csv')), 1, false);
    const srw = reference('az_eastern_rolling_hills.srw');
    const body = JSON.stringify({
      ...BASE,
      weather: { source: 'years', years: Array.from({ length: 4 }, () => ({ source: 'sam_csv', text: solar })) },
      wind_resource: { source: 'years', years: Array.from({ length: 4 }, () => ({ text: srw })) },
    });
    const { res, json } = await post(body);
    t.equal(res.status, 201, `${(body.length / 1e6).toFixed(1)} MB accepted: ${JSON.stringify(json).slice(0, 200)}`);
    const over = await post(JSON.stringify({ ...BASE, pad: 'x'.repeat(16 * 1024 * 1024) }));
    t.equal(over.res.status, 413);
    t.match((over.json as Problem & { detail?: string }).detail, /limit of 16777216 bytes \(BODY_LIMIT_BYTES\)/);
  },
);
