// GET /api/scenarios?limit=&cursor=: keyset pages over a list that changes under them, the filters
// (status, q) alone and with pages, the Link header, and every bad parameter refused by name.
import t from 'tap';
import { createTestDatabase } from './helpers/db.ts';
import { getJson } from './helpers/http.ts';
import { startWeb } from './helpers/processes.ts';

const db = await createTestDatabase();
const web = await startWeb(db.url, {});
t.teardown(async () => {
  await web.stop();
  await db.drop();
});

type Item = { id: string; name: string; status: string };
type Page = { items: Item[]; next_cursor: string | null };

/** Bulk rows by SQL, ids in time order as UUIDv7's, from `start` on. */
async function insertRows(start: number, count: number, name = (g: string) => `'row ' || ${g}`): Promise<void> {
  await db.pool.query(
    `INSERT INTO scenarios (id, name, inputs, created_at, updated_at, workspace)
     SELECT ('00000000-0000-7000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, ${name('g')}, '{}'::json, now(), now(), 'default'
     FROM generate_series($1::int, $2::int) g`,
    [start, start + count - 1],
  );
}

/** Follows `next` links from `first` to the end, calling between() between pages. */
async function walk(first: string, between: (page: number) => Promise<void> = async () => {}) {
  const items: Item[] = [];
  let url: string | null = first;
  let pages = 0;
  while (url) {
    const r = await getJson(url);
    if (r.status !== 200) throw new Error(`${url}: ${r.status} ${JSON.stringify(r.json)}`);
    const page = r.json as unknown as Page;
    items.push(...page.items);
    const link = r.headers.get('link');
    if (page.next_cursor) {
      const m = /^<([^>]+)>; rel="next"$/.exec(link ?? '');
      if (!m) throw new Error(`a page with next_cursor has no Link: ${link}`);
      url = `${web.baseUrl}${m[1]}`;
    } else {
      if (link) throw new Error(`the last page has a Link: ${link}`);
      url = null;
    }
    pages++;
    await between(pages);
  }
  return { items, pages };
}

t.test('pages over a list changing under them neither skip nor repeat a row', async (t) => {
  await insertRows(1, 2500);
  let next = 100_000;
  const { items, pages } = await walk(`${web.baseUrl}/api/scenarios?limit=97`, async (page) => {
    // Meanwhile: newer scenarios arrive, older ones change status.
    await insertRows(next, 40);
    next += 40;
    await db.pool.query(
      `UPDATE scenarios SET status = 'running', updated_at = now()
       WHERE id = ('00000000-0000-7000-8000-' || lpad(to_hex($1::int), 12, '0'))::uuid`,
      [2500 - page * 50],
    );
  });
  const ids = items.map((i) => i.id);
  t.equal(pages, Math.ceil(2500 / 97), 'pages');
  t.equal(new Set(ids).size, ids.length, 'no row twice');
  t.equal(ids.length, 2500, 'every row that existed when paging began, none created after');
  t.same(ids, [...ids].sort().reverse(), 'newest first throughout');
  t.equal(items.at(-1)?.name, 'row 1');
  t.equal(items[0].name, 'row 2500');
});

t.test('filters, alone and with pages', async (t) => {
  await insertRows(200_000, 30, (g) => `'100%_match ' || ${g}`);
  await db.pool.query(
    `UPDATE scenarios SET status = 'failed' WHERE name LIKE '100\\%\\_match%' AND id::text LIKE '%d'`,
  );
  const all = await getJson(`${web.baseUrl}/api/scenarios?q=${encodeURIComponent('%_m')}`);
  t.equal((all.json.items as Item[]).length, 30, 'q: % and _ are taken literally (streamed, no limit)');
  t.equal(all.json.total, 30);
  const none = await getJson(`${web.baseUrl}/api/scenarios?q=${encodeURIComponent('100%x')}`);
  t.equal((none.json.items as Item[]).length, 0, 'q: a % that is not in any name matches nothing');
  const ci = await getJson(`${web.baseUrl}/api/scenarios?q=MATCH&limit=1000`);
  t.equal((ci.json.items as Item[]).length, 30, 'q: case-insensitive');

  const failed = await getJson(`${web.baseUrl}/api/scenarios?status=failed`);
  const failedItems = failed.json.items as Item[];
  t.ok(failedItems.length > 0 && failedItems.every((i) => i.status === 'failed'), 'status=failed');
  const paged = await walk(`${web.baseUrl}/api/scenarios?status=failed,running&q=match&limit=2`);
  t.same(
    paged.items.map((i) => i.id),
    failedItems.map((i) => i.id),
    'status and q with pages: the same rows as the unpaged list, in order',
  );
  // Mark some rows as a sweep's variants: sweep_id=none leaves them out, sweep_id=<id> keeps only them.
  const { rows: sweepRows } = await db.pool.query<{ id: string }>(
    `INSERT INTO sweeps (id, name, base, vary, combine, keep_hourly, parameters, total, workspace)
     VALUES (gen_random_uuid(), 'paging', '{}', '[]', 'grid', false, '[]', 30, 'default') RETURNING id`,
  );
  const sweepId = sweepRows[0].id;
  await db.pool.query(
    `UPDATE scenarios SET sweep_id = $1, variant_index = v.i
       FROM (SELECT id, row_number() OVER (ORDER BY id) AS i FROM scenarios WHERE name LIKE '100\\%\\_match%' AND id::text LIKE '%a') v
      WHERE scenarios.id = v.id`,
    [sweepId],
  );
  const outside = await walk(`${web.baseUrl}/api/scenarios?sweep_id=none&q=match&limit=7`);
  const inside = await getJson(`${web.baseUrl}/api/scenarios?sweep_id=${sweepId}`);
  const insideItems = inside.json.items as Array<Item & { sweep_id: string | null }>;
  t.ok(insideItems.length > 0 && insideItems.every((i) => i.sweep_id === sweepId), 'sweep_id=<id>: its variants');
  t.equal(outside.items.length + insideItems.length, 30, 'sweep_id=none: every other row, paged');
  t.ok(
    (outside.items as Array<Item & { sweep_id: string | null }>).every((i) => i.sweep_id === null),
    'sweep_id=none: no variant',
  );
  const two = await walk(`${web.baseUrl}/api/scenarios?status=queued,running&limit=1000`);
  t.ok(
    two.items.every((i) => i.status === 'queued' || i.status === 'running'),
    'a comma-separated status list',
  );
});

t.test('bad parameters are refused by name, and nothing else changes', async (t) => {
  const cases: Array<[string, string]> = [
    ['limit=0', '?limit'],
    ['limit=1001', '?limit'],
    ['limit=abc', '?limit'],
    ['limit=1.5', '?limit'],
    ['limit=1&limit=2', '?limit'],
    ['limit=10&cursor=xyz', '?cursor'],
    ['limit=10&cursor=', '?cursor'],
    [`cursor=${Buffer.from('00000000-0000-7000-8000-000000000001').toString('base64url')}`, '?cursor'],
    ['status=done', '?status'],
    ['status=queued,', '?status'],
    ['q=', '?q'],
    [`q=${'x'.repeat(201)}`, '?q'],
    ['sweep_id=nope', '?sweep_id'],
    ['page=2', '?page'],
  ];
  for (const [query, path] of cases) {
    const r = await getJson(`${web.baseUrl}/api/scenarios?${query}`);
    t.equal(r.status, 400, `${query}: 400`);
    t.equal(r.headers.get('content-type'), 'application/problem+json; charset=utf-8', `${query}: a problem`);
    t.same(
      (r.json.errors as Array<{ path: string }>).map((e) => e.path),
      [path],
      `${query}: names ${path}`,
    );
  }
});
