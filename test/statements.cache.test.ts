// The web's cache of built full answers (RESULT_CACHE_MB, server/answer.cache.ts) through a real
// web and worker: a repeated full read is the same bytes and headers as the first (with a
// Content-Length), with and without gzip; reads at the same time get the same answer; a deleted
// scenario is 404 after its answer was kept; RESULT_CACHE_MB=0 makes the answer every time.
import { get, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import t from 'tap';
import { DEFAULT_SCENARIO, getJson, postScenario, rawGet } from './helpers/http.ts';
import { startStack } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const stack = await startStack({ workers: [{}] });
t.teardown(() => stack.stop());

/** The headers that must not differ between a made and a kept answer. */
function same(headers: IncomingHttpHeaders) {
  const { date: _d, 'content-length': _l, 'transfer-encoding': _t, 'x-request-id': _r, ...rest } = headers;
  return rest;
}

async function succeeded(inputs: Record<string, unknown>): Promise<string> {
  const created = await postScenario(stack.web.baseUrl, inputs);
  if (created.status !== 201) throw new Error(JSON.stringify(created.json).slice(0, 300));
  const id = created.json.id as string;
  await waitUntil(async () => (await getJson(`${stack.web.baseUrl}/api/scenarios/${id}`)).json.status === 'succeeded', {
    timeoutMs: 120_000,
    what: 'the scenario to succeed',
  });
  return id;
}

const id = await succeeded({ ...DEFAULT_SCENARIO, name: 'cached' });
const other = await succeeded({ ...DEFAULT_SCENARIO, name: 'cached, another', start_year: 2031 });
const url = (base: string, scenario = id) => `${base}/api/scenarios/${scenario}/statements`;

t.test('a kept answer is the made one, with its length', async (t) => {
  const web = await stack.startWeb();
  const first = await rawGet(url(web.baseUrl), true);
  t.equal(first.status, 200);
  t.equal(first.headers['content-encoding'], 'gzip');
  t.equal(first.headers['content-length'], undefined, 'the first read is sent as it is made');
  const second = await rawGet(url(web.baseUrl), true);
  t.equal(second.status, 200);
  t.ok(second.body.equals(first.body), `the same ${first.body.length} bytes`);
  t.equal(second.headers['content-length'], String(first.body.length), 'a kept answer has its length');
  t.same(same(second.headers), same(first.headers), 'and the same headers else');
  const plainFirst = await rawGet(url(stack.web.baseUrl), false); // the stack's web: made there
  const plain = await rawGet(url(web.baseUrl), false);
  t.equal(plain.headers['content-encoding'], undefined);
  t.ok(plain.body.equals(gunzipSync(first.body)), 'without gzip: the same JSON');
  t.ok(plain.body.equals(plainFirst.body), 'as a web that made it sends');
  t.same(same(plain.headers), same(plainFirst.headers));
  const other1 = await rawGet(url(web.baseUrl, other), true);
  t.notOk(other1.body.equals(first.body), 'another scenario: its own answer');
  const lite = await rawGet(`${url(web.baseUrl)}?hourly=false`, true);
  t.ok(lite.body.length < first.body.length / 10, '?hourly=false is not the kept answer');
  const etag = second.headers.etag as string;
  const notModified = await new Promise<number>((resolve, reject) =>
    get(url(web.baseUrl), { headers: { 'accept-encoding': 'gzip', 'if-none-match': etag } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject),
  );
  t.equal(notModified, 304, 'If-None-Match still answers 304');
  await web.stop();
});

t.test('reads at the same time get one answer', async (t) => {
  const web = await stack.startWeb();
  const reads = await Promise.all(Array.from({ length: 6 }, (_, i) => rawGet(url(web.baseUrl), i % 3 !== 2)));
  const reference = await rawGet(url(stack.web.baseUrl), true);
  for (const [i, r] of reads.entries()) {
    t.equal(r.status, 200);
    const gz = i % 3 !== 2;
    t.ok((gz ? r.body : r.body).equals(gz ? reference.body : gunzipSync(reference.body)), `read ${i}: the answer`);
  }
  const after = await rawGet(url(web.baseUrl), true);
  t.equal(after.headers['content-length'], String(reference.body.length), 'then kept');
  await web.stop();
});

t.test('a deleted scenario is 404, though its answer was kept', async (t) => {
  const doomed = await succeeded({ ...DEFAULT_SCENARIO, name: 'deleted after its answer was kept' });
  await rawGet(url(stack.web.baseUrl, doomed), true);
  const kept = await rawGet(url(stack.web.baseUrl, doomed), true);
  t.ok(kept.headers['content-length'], 'its answer kept');
  const del = await fetch(`${stack.web.baseUrl}/api/scenarios/${doomed}`, { method: 'DELETE' });
  t.equal(del.status, 204);
  for (const gzip of [true, false]) {
    const after = await rawGet(url(stack.web.baseUrl, doomed), gzip);
    t.equal(after.status, 404, `then 404${gzip ? ' (gzip)' : ''}`);
    t.match(after.headers['content-type'], /application\/problem\+json/);
  }
});

t.test('RESULT_CACHE_MB=0 makes the answer every time', async (t) => {
  const web = await stack.startWeb({ RESULT_CACHE_MB: '0' });
  const reference = await rawGet(url(stack.web.baseUrl), true);
  for (let i = 0; i < 2; i++) {
    const r = await rawGet(url(web.baseUrl), true);
    t.ok(r.body.equals(reference.body), `read ${i + 1}: the same bytes`);
    t.equal(r.headers['content-length'], undefined, `read ${i + 1}: made as it is sent, no length`);
  }
  await web.stop();
});
