// A result's hourly series are stored in the binary form of shared/result/stored.form.ts; a row
// stored before it holds gzip JSON. Every answer of the statements route (full with and without
// gzip, ?hourly=false, ?year, CSV) must be the same for the same result in either form: here one
// cycling-battery scenario computed by the worker, answered from its stored form, then from the
// same result stored as the previous writer stored it, then as any gzip of its JSON text.
import { gunzipSync, gzipSync } from 'node:zlib';
import t from 'tap';
import { isStoredForm, parseStoredForm } from '../shared/result/stored.form.ts';
import { fullGzip } from '../shared/result/stored.gzip.ts';
import { getJson, postScenario, rawGet } from './helpers/http.ts';
import { startStack } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const stack = await startStack({ workers: [{}] });
t.teardown(() => stack.stop());

const QUERIES = ['', '?hourly=false', '?year=1', '?year=25', '?format=csv'];

/** Each query's answer with and without gzip: status, headers that matter, and the body as sent and decoded. */
async function answers(id: string) {
  const out: Record<
    string,
    { status: number; type: string | null; encoding: string | null; raw: Buffer; body: string }
  > = {};
  for (const q of QUERIES) {
    for (const gzip of [true, false]) {
      const res = await rawGet(`${stack.web.baseUrl}/api/scenarios/${id}/statements${q}`, gzip);
      const raw = res.body;
      const encoding = res.headers['content-encoding'] ?? null;
      out[`${q || 'full'}${gzip ? ' gzip' : ''}`] = {
        status: res.status,
        type: res.headers['content-type'] ?? null,
        encoding,
        raw,
        body: (encoding === 'gzip' ? gunzipSync(raw) : raw).toString('utf8'),
      };
    }
  }
  return out;
}

t.test('the stored form and gzip JSON of the same result answer alike', async (t) => {
  const created = await postScenario(stack.web.baseUrl, {
    name: 'cycling',
    site: { latitude: 35.2, longitude: -101.8 },
    start_year: 2030,
    grid: { export_limit_mw: 120 },
    market: { merchant_hour_of_day_multipliers: Array.from({ length: 24 }, (_, h) => (h >= 17 && h < 21 ? 1.8 : 1)) },
    storage: { power_mw: 100, energy_mwh: 400 },
  });
  t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 300));
  const id = created.json.id as string;
  await waitUntil(async () => (await getJson(`${stack.web.baseUrl}/api/scenarios/${id}`)).json.status === 'succeeded', {
    timeoutMs: 120_000,
    what: 'the scenario to succeed',
  });
  const read = async () =>
    (
      await stack.pool.query<{ b: Buffer }>(
        'SELECT statements_gzip AS b FROM scenario_results WHERE scenario_id = $1',
        [id],
      )
    ).rows[0].b;
  const stored = await read();
  t.ok(isStoredForm(stored), 'the worker stored the binary form');
  const form = parseStoredForm(stored);
  t.equal(form.names.length, 6, 'six hourly series');
  t.ok(stored.length <= 1.6 * 2 ** 20, `${stored.length} bytes stored: within 1.6 MB`);
  const now = await answers(id);

  const full = now['full gzip'];
  t.equal(full.encoding, 'gzip', 'the full answer is gzip when asked');
  t.equal(now.full.encoding, null, 'and plain when not');
  t.equal(full.body, now.full.body, 'the same JSON either way');
  const json = JSON.parse(full.body) as Record<string, unknown> & { grid_hourly: number[][]; annual: unknown[] };
  t.equal(json.grid_hourly.length, 25);
  t.equal(json.grid_hourly[0].length, 8760);
  t.ok(
    json.grid_hourly.flat().every((v) => Math.round(v * 1000) / 1000 === v),
    'every hourly value at 1 kWh (3 decimals of MWh), as documented',
  );

  // The bytes the previous writer stored for this result, and any other gzip of the same JSON.
  const previous = fullGzip(form);
  t.equal(gunzipSync(previous).toString('utf8'), full.body, "the previous writer's gzip is this JSON");
  t.ok(full.raw.equals(previous), 'and the full gzip answer is those very bytes');
  for (const [what, bytes] of [
    ['as the previous writer stored it', previous],
    ['as any gzip of the JSON', gzipSync(full.body)],
  ] as const) {
    await stack.pool.query('UPDATE scenario_results SET statements_gzip = $2 WHERE scenario_id = $1', [id, bytes]);
    t.ok(!isStoredForm(await read()), `stored ${what}`);
    const before = await answers(id);
    for (const key of Object.keys(now)) {
      t.equal(before[key].status, now[key].status, `${what}, ${key}: status`);
      t.equal(before[key].type, now[key].type, `${what}, ${key}: content type`);
      t.equal(before[key].encoding, now[key].encoding, `${what}, ${key}: content encoding`);
      t.ok(before[key].body === now[key].body, `${what}, ${key}: the same body (${now[key].body.length} characters)`);
    }
  }
  t.equal(now['?format=csv'].body.split('\n').length, 25 * 8760 + 2, 'the CSV: a header, 25 × 8,760 rows');
});
