// GET /api/scenarios streams every scenario from one binary COPY: many rows, in order, names that
// need JSON escaping, and clients that go away mid-list without harming the next request.
import http from 'node:http';
import t, { type Test } from 'tap';
import { KPI_NAMES } from '../shared/schemas/sweep.ts';
import { createTestDatabase } from './helpers/db.ts';
import { DEFAULT_SCENARIO, getJson, postScenario } from './helpers/http.ts';
import { startWeb } from './helpers/processes.ts';

const db = await createTestDatabase();
const web = await startWeb(db.url, { PG_POOL_MAX: '3' });
t.teardown(async () => {
  await web.stop();
  await db.drop();
});

const ROWS = 6000;

/** The list's item (built in SQL) equals the single read (built in TypeScript) without its inputs. */
async function listedAsRead(t: Test, items: Array<{ id: string }>, id: string): Promise<void> {
  const one = await getJson(`${web.baseUrl}/api/scenarios/${id}`);
  const { inputs: _inputs, ...withoutInputs } = one.json as Record<string, unknown>;
  t.same(
    items.find((i) => i.id === id),
    withoutInputs,
    `${withoutInputs.status}: the list item equals the single read without inputs`,
  );
}
const TRICKY = ['back\\slash "quoted"', 'tab\there\nnewline', 'emoji ☀️🌬️ and \u2028', "<b>&'</b>", '\u0001ctrl'];

t.test('every scenario, newest first, with names that need escaping', async (t) => {
  // Bulk rows by SQL (ids in time order, as UUIDv7 would be), plus a few through the API.
  await db.pool.query(
    `INSERT INTO scenarios (id, name, inputs, created_at, updated_at, workspace)
     SELECT ('00000000-0000-7000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 'bulk ' || g, '{}'::json,
            now() - interval '1 day' + g * interval '1 ms', now(), 'default'
     FROM generate_series(1, $1::int) g`,
    [ROWS],
  );
  const created: string[] = [];
  for (const name of TRICKY) {
    const r = await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name });
    // Not the name in the message: U+2028 would break the TAP stream.
    t.equal(r.status, 201, `created tricky name #${created.length}`);
    created.push(r.json.id as string);
  }
  const list = await getJson(`${web.baseUrl}/api/scenarios`);
  t.equal(list.status, 200);
  const items = list.json.items as Array<{ id: string; name: string; status: string }>;
  t.equal(list.json.total, ROWS + TRICKY.length, 'total');
  t.equal(items.length, ROWS + TRICKY.length, 'every row');
  t.same(
    items.slice(0, TRICKY.length).map((i) => i.name),
    [...TRICKY].reverse(),
    'API-created names byte for byte, newest first',
  );
  const ids = items.map((i) => i.id);
  t.same(ids, [...ids].sort().reverse(), 'ordered by id, descending');
  t.equal(new Set(ids).size, ids.length, 'no duplicates');
  t.equal(items.at(-1)?.name, 'bulk 1');
  for (const id of created) await listedAsRead(t, items, id);
});

t.test('clients that leave mid-list do not leak connections or break the next list', async (t) => {
  // More abandoned lists than the web has pool connections (PG_POOL_MAX=3).
  for (let i = 0; i < 8; i++) {
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${web.baseUrl}/api/scenarios`, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve() : reject(err)));
    });
  }
  // A reader that stalls: the COPY is paused, not buffered; then it reads on to the end.
  const body = await new Promise<string>((resolve, reject) => {
    http
      .get(`${web.baseUrl}/api/scenarios`, (res) => {
        res.pause();
        setTimeout(() => {
          const parts: Buffer[] = [];
          res.on('data', (c) => parts.push(c));
          res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
          res.resume();
        }, 300);
      })
      .on('error', reject);
  });
  t.equal(JSON.parse(body).total, ROWS + TRICKY.length, 'a stalled reader still gets the whole list');
  const after = await getJson(`${web.baseUrl}/api/scenarios`);
  t.equal(after.status, 200);
  t.equal(after.json.total, ROWS + TRICKY.length);
  const ready = await getJson(`${web.baseUrl}/readyz`);
  t.equal(ready.status, 200, 'the web is ready');
});

t.test('a finished scenario is listed from the item stored when it finished, equal to a fresh build', async (t) => {
  const [a, b] = await Promise.all([
    postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: 'will succeed' }),
    postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: 'will fail' }),
  ]);
  const ids = [a.json.id as string, b.json.id as string];
  await db.pool.query(
    `UPDATE scenarios SET status = 'succeeded', progress = 1, stage = 'done', attempt = 1,
            summary = $2, started_at = now(), finished_at = now(), updated_at = now()
      WHERE id = $1`,
    // KPIs of the documented shape (the web checks its answers against their schemas in tests).
    [ids[0], JSON.stringify(Object.fromEntries(KPI_NAMES.map((k) => [k, 1])))],
  );
  await db.pool.query(
    `UPDATE scenarios SET status = 'failed', attempt = 1, error = '{"code": "engine_exception", "message": "x \\"y\\""}',
            finished_at = now(), updated_at = now()
      WHERE id = $1`,
    [ids[1]],
  );
  const stored = await db.pool.query<{ id: string; list_json: string; fresh: string }>(
    'SELECT id, list_json, scenario_list_json(s) AS fresh FROM scenarios s WHERE id = ANY($1::uuid[])',
    [ids],
  );
  t.equal(stored.rows.length, 2);
  for (const r of stored.rows) t.equal(r.list_json, r.fresh, 'stored item = a fresh build');
  const list = await getJson(`${web.baseUrl}/api/scenarios`);
  const items = list.json.items as Array<{ id: string }>;
  for (const id of ids) await listedAsRead(t, items, id);
  // An operator who puts a finished scenario back in the queue gets a live item again.
  await db.pool.query(`UPDATE scenarios SET status = 'queued', finished_at = NULL WHERE id = $1`, [ids[1]]);
  const again = await db.pool.query('SELECT list_json FROM scenarios WHERE id = $1', [ids[1]]);
  t.equal(again.rows[0].list_json, null, 'no stored item once it is unfinished');
  const relisted = await getJson(`${web.baseUrl}/api/scenarios`);
  const item = (relisted.json.items as Array<Record<string, unknown>>).find((i) => i.id === ids[1]);
  t.equal(item?.status, 'queued');
  t.equal(item?.finished_at, null);
});
