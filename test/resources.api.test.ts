// The library's routes: a file uploaded once per workspace by SHA-256 (the same bytes: 200 and the
// same id), its metadata and statistics, its content as uploaded, a series' length checked, bad
// uploads refused with the line or field and nothing written, another workspace's id a 404 like
// an unknown one, and a DELETE refused (409, naming the users) while something uses the file.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import { uuidv7 } from '../shared/ids.ts';
import { startStack } from './helpers/stack.ts';

const KEYS = { acme: 'hg-acme-key-5d1e', globex: 'hg-globex-key-a7c3' };
const stack = await startStack({
  web: { API_KEYS: `acme:${KEYS.acme},globex:${KEYS.globex}`, BODY_LIMIT_BYTES: String(2 * 1024 * 1024) },
});
t.teardown(() => stack.stop());
const base = stack.web.baseUrl;

const reference = (name: string) => readFileSync(new URL(`./fixtures/reference/${name}`, import.meta.url), 'utf8');
const TMY = reference('phoenix_az_tmy2.csv');
const SRW = reference('ssc_wind_constant_5ms.srw');

async function call(
  method: string,
  path: string,
  who: keyof typeof KEYS,
  body?: string,
  type = 'text/csv',
): Promise<{ status: number; json: Record<string, unknown>; text: string; headers: Headers }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEYS[who]}`, ...(body === undefined ? {} : { 'content-type': type }) },
    body,
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {}
  return { status: res.status, json, text, headers: res.headers };
}
const rows = async () => Number((await stack.pool.query('SELECT count(*) FROM resources')).rows[0].count);

t.test('a weather file: stored once, described, its bytes given back', async (t) => {
  const first = await call('POST', '/api/resources?name=Phoenix%20TMY2', 'acme', TMY);
  t.equal(first.status, 201, first.text);
  const id = first.json.id as string;
  t.equal(first.headers.get('location'), `/api/resources/${id}`);
  t.equal(first.json.kind, 'weather');
  t.equal(first.json.format, 'sam_csv');
  const meta = first.json.metadata as { latitude: number; statistics: Record<string, number> };
  t.ok(Math.abs(meta.latitude - 33.4) < 0.2, 'Phoenix latitude');
  t.ok(meta.statistics.annual_ghi_kwh_m2 > 1800 && meta.statistics.annual_ghi_kwh_m2 < 2400, 'annual GHI');
  t.ok(meta.statistics.annual_dni_kwh_m2 > 2000, 'annual DNI');
  const again = await call('POST', '/api/resources?name=other', 'acme', TMY);
  t.equal(again.status, 200);
  t.equal(again.json.id, id, 'the same bytes are the same resource');
  t.equal(again.json.name, 'Phoenix TMY2', 'the first name stays');
  const content = await call('GET', `/api/resources/${id}/content`, 'acme');
  t.equal(content.text, TMY, 'the bytes as uploaded');
  const other = await call('POST', '/api/resources', 'globex', TMY);
  t.equal(other.status, 201, "another workspace's upload is its own");
  t.not(other.json.id, id);
});

t.test('a wind file: its heights and mean speed per height', async (t) => {
  const r = await call('POST', '/api/resources', 'acme', SRW, 'text/plain');
  t.equal(r.status, 201, r.text);
  t.equal(r.json.kind, 'wind_resource');
  const meta = r.json.metadata as { heights_m: number[]; statistics: { mean_wind_speed_ms_by_height: object } };
  t.ok(meta.heights_m.length > 0);
  t.same(Object.values(meta.statistics.mean_wind_speed_ms_by_height), [5], 'the constant 5 m/s file');
  const rose = (r.json.metadata as { statistics: { wind_rose: { frequency: number[][]; speed_bins_ms: number[] } } })
    .statistics.wind_rose;
  t.equal(rose.frequency.length, 16, '16 sectors');
  t.same(rose.speed_bins_ms, [0, 3, 6, 9, 12, 15]);
  const total = rose.frequency.flat().reduce((a, b) => a + b, 0);
  t.ok(Math.abs(total - 1) < 1e-3, 'the shares sum to 1');
  t.same(
    rose.frequency.map((row) => row[1]),
    rose.frequency.map((row) => row.reduce((a, b) => a + b, 0)),
    'every step at 5 m/s falls in the 3–6 m/s bin',
  );
});

t.test('a series: statistics; a wrong length refused', async (t) => {
  const values = Array.from({ length: HOURS_PER_YEAR }, (_, h) => 10 + (h % 24));
  const r = await call('POST', '/api/resources', 'acme', JSON.stringify({ name: 'load', values }), 'application/json');
  t.equal(r.status, 201, r.text);
  const s = (r.json.metadata as { statistics: Record<string, number> }).statistics;
  t.equal(s.min, 10);
  t.equal(s.max, 33);
  t.equal(s.mean, 21.5);
  t.equal(s.annual_sum, 21.5 * HOURS_PER_YEAR);
  const week = (r.json.metadata as { statistics: { peak_week: { first_hour: number; values: number[] } } }).statistics
    .peak_week;
  t.equal(week.first_hour, 0, "the first peak (hour 23) is in the year's first days: the week starts at hour 0");
  t.same(week.values, values.slice(0, 168));
  const peaked = values.map((v, h) => (h === 5000 ? 99 : v));
  const p = await call(
    'POST',
    '/api/resources',
    'acme',
    JSON.stringify({ name: 'peak', hourly_mw: peaked }),
    'application/json',
  );
  const pw = (p.json.metadata as { statistics: { peak_week: { first_hour: number; values: number[] } } }).statistics
    .peak_week;
  t.equal(pw.first_hour, 5000 - (5000 % 24) - 72, 'the week starts three days before the peak day');
  t.ok(pw.values.includes(99));
  const before = await rows();
  const short = await call(
    'POST',
    '/api/resources',
    'acme',
    JSON.stringify({ name: 'x', values: [1, 2] }),
    'application/json',
  );
  t.equal(short.status, 400);
  t.match(short.json.errors, [{ path: '/values' }]);
  const nan = await call(
    'POST',
    '/api/resources',
    'acme',
    JSON.stringify({ name: 'x', hourly_mw: ['a'] }),
    'application/json',
  );
  t.equal(nan.status, 400);
  t.match(nan.json.errors, [{ path: '/hourly_mw/0' }]);
  const both = await call(
    'POST',
    '/api/resources',
    'acme',
    JSON.stringify({ name: 'x', values, hourly_mw: values }),
    'application/json',
  );
  t.equal(both.status, 400);
  t.match(both.json.errors, [{ path: '/values', message: /one of them/ }]);
  const extra = await call(
    'POST',
    '/api/resources',
    'acme',
    JSON.stringify({ name: 'x', values, unit: 'MW' }),
    'application/json',
  );
  t.equal(extra.status, 400, 'a field the upload does not have');
  t.equal(await rows(), before, 'nothing written');
});

t.test('bad files: refused with the line, nothing written', async (t) => {
  const before = await rows();
  const lines = SRW.split('\n');
  const truncated = await call('POST', '/api/resources', 'acme', lines.slice(0, 100).join('\n'));
  t.equal(truncated.status, 400, truncated.text);
  t.match(String(truncated.json.detail), /line \d+/);
  const bad = lines.map((l, i) => (i === 100 ? '15,0.95,five,180' : l)).join('\n');
  const badCell = await call('POST', '/api/resources', 'acme', bad);
  t.equal(badCell.status, 400);
  t.match(String(badCell.json.detail), /line 101, column 3/);
  const unknown = await call('POST', '/api/resources', 'acme', 'hello,world\n1,2\n');
  t.equal(unknown.status, 400, 'not a file of any known format');
  const media = await call('POST', '/api/resources', 'acme', TMY, 'application/octet-stream');
  t.equal(media.status, 415);
  t.equal(media.headers.get('accept-post'), 'application/json, text/csv, text/plain', 'the types it reads');
  const big = await call('POST', '/api/resources', 'acme', 'x'.repeat(3 * 1024 * 1024));
  t.equal(big.status, 413);
  t.equal(await rows(), before, 'nothing written');
});

t.test("another workspace's id is unknown; delete refused while used", async (t) => {
  const mine = await call('POST', '/api/resources?name=mine', 'acme', `${TMY}\n`);
  const id = mine.json.id as string;
  for (const [method, path] of [
    ['GET', `/api/resources/${id}`],
    ['GET', `/api/resources/${id}/content`],
    ['DELETE', `/api/resources/${id}`],
  ]) {
    const foreign = await call(method, path, 'globex');
    const never = await call(method, path.replace(id, uuidv7()), 'globex');
    t.equal(foreign.status, 404, `${method} ${path} from another workspace`);
    t.same(foreign.json, { ...never.json, instance: foreign.json.instance }, 'answered as an id that never existed');
  }
  const list = await call('GET', '/api/resources?limit=100', 'globex');
  t.notOk((list.json.items as { id: string }[]).some((r) => r.id === id));
  const sweepId = uuidv7();
  await stack.pool.query(
    `INSERT INTO sweeps (id, workspace, name, base, vary, combine, keep_hourly, parameters, total)
     VALUES ($1, 'acme', 's', '{}', '[]', 'grid', false, '[]', 1)`,
    [sweepId],
  );
  await stack.pool.query('INSERT INTO resource_uses (resource_id, sweep_id) VALUES ($1, $2)', [id, sweepId]);
  const got = await call('GET', `/api/resources/${id}`, 'acme');
  t.same(got.json.used_by, { scenarios: 0, sweeps: 1, optimizations: 0 });
  const refused = await call('DELETE', `/api/resources/${id}`, 'acme');
  t.equal(refused.status, 409);
  t.match(String(refused.json.detail), new RegExp(`1 user\\(s\\): sweep ${sweepId}`), 'the detail names the user');
  t.same(refused.json.users, [{ kind: 'sweep', id: sweepId, href: `/api/sweeps/${sweepId}` }]);
  await stack.pool.query('DELETE FROM sweeps WHERE id = $1', [sweepId]);
  t.equal((await call('DELETE', `/api/resources/${id}`, 'acme')).status, 204);
  t.equal((await call('GET', `/api/resources/${id}`, 'acme')).status, 404);
});

t.test('the list: newest first, paged', async (t) => {
  const page = await call('GET', '/api/resources?limit=1', 'acme');
  t.equal((page.json.items as unknown[]).length, 1);
  const next = await call('GET', `/api/resources?limit=100&cursor=${page.json.next_cursor}`, 'acme');
  const ids = [page.json.items as { id: string }[], next.json.items as { id: string }[]].flat().map((r) => r.id);
  t.same(ids, [...ids].sort().reverse(), 'newest first');
});

t.test('metadata stored in an earlier shape is described again from the bytes, once', async (t) => {
  const srw = await call('POST', '/api/resources', 'acme', `${SRW}\n`, 'text/plain');
  const values = Array.from({ length: HOURS_PER_YEAR }, (_, h) => (h === 5000 ? 90 : 10));
  const series = await call(
    'POST',
    '/api/resources',
    'acme',
    JSON.stringify({ name: 'older', values }),
    'application/json',
  );
  t.ok(srw.status === 201 && series.status === 201, `${srw.text} ${series.text}`);
  const current = { srw: srw.json.metadata, series: series.json.metadata };
  // As the library's first release stored them: a rose of 12 numbers, a series without its peak week.
  await stack.pool.query(
    `UPDATE resources SET metadata = jsonb_set(metadata::jsonb, '{statistics,wind_rose}', '[1,2,3,4,5,6,7,8,9,10,11,12]')::json WHERE id = $1`,
    [srw.json.id],
  );
  await stack.pool.query(
    `UPDATE resources SET metadata = (metadata::jsonb #- '{statistics,peak_week}')::json WHERE id = $1`,
    [series.json.id],
  );
  const read = await call('GET', `/api/resources/${srw.json.id}`, 'acme');
  t.equal(read.status, 200, read.text);
  t.same(read.json.metadata, current.srw, 'the rose in its current shape');
  const listed = await call('GET', '/api/resources?limit=500', 'acme');
  const item = (listed.json.items as { id: string; metadata: unknown }[]).find((r) => r.id === series.json.id);
  t.same(item?.metadata, current.series, 'the peak week is back in the list');
  const stored = await stack.pool.query('SELECT metadata FROM resources WHERE id = ANY($1) ORDER BY id', [
    [srw.json.id, series.json.id],
  ]);
  t.same(
    stored.rows.map((r) => r.metadata),
    [srw.json.id, series.json.id].sort().map((id) => (id === srw.json.id ? current.srw : current.series)),
    'written back',
  );
});
