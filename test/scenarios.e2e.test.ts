// End to end: real web and worker processes, a real database, a real SSE client.
import t from 'tap';
import { DEFAULT_SCENARIO, getJson, postScenario } from './helpers/http.ts';
import { follow } from './helpers/sse.ts';
import { startStack } from './helpers/stack.ts';

const stack = await startStack({ workers: [{}] });
const { web } = stack;
const [worker] = stack.workers;
t.teardown(() => stack.stop());

t.test('a default scenario goes queued → running → progress… → succeeded, and its statements are served', async (t) => {
  const created = await postScenario(web.baseUrl, DEFAULT_SCENARIO);
  t.equal(created.status, 201);
  const id = created.json.id as string;
  t.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a UUIDv7');
  t.equal(created.headers.get('location'), `/api/scenarios/${id}`);
  t.equal(created.json.status, 'queued');
  const inputs = created.json.inputs as Record<string, Record<string, unknown>>;
  t.equal(inputs.solar.capacity_mw_dc, 100, 'defaults applied');
  t.equal(inputs.site.timezone_offset_hours, -7, 'time zone from longitude');

  const stream = follow(`${web.baseUrl}/api/scenarios/${id}/events`);
  const done = await stream.until((e) => e.event === 'succeeded' || e.event === 'failed', 60_000);
  t.equal(done.event, 'succeeded', JSON.stringify(done.data));
  const names = stream.events.map((e) => e.event);
  t.same(names.slice(0, 2), ['queued', 'running']);
  t.equal(names.at(-1), 'succeeded');
  const progress = stream.events.filter((e) => e.event === 'progress');
  t.ok(progress.length >= 10 && progress.length <= 60, `progress events: ${progress.length}`);
  t.same(
    stream.events.map((e) => e.id),
    stream.events.map((_, i) => i + 1),
    'ids contiguous from 1',
  );
  const fractions = progress.map((e) => e.data.progress as number);
  t.same(
    fractions,
    [...fractions].sort((a, b) => a - b),
    'progress never goes back',
  );
  t.equal((stream.events[1].data as { attempt: number }).attempt, 1);
  t.equal(done.data.statements_url, `/api/scenarios/${id}/statements`);

  const one = await getJson(`${web.baseUrl}/api/scenarios/${id}`);
  t.equal(one.status, 200);
  t.equal(one.json.status, 'succeeded');
  t.equal(one.json.progress, 1);
  t.ok(one.json.finished_at && one.json.started_at);
  t.same(one.json.kpis, done.data.kpis, 'kpis on the scenario = kpis in the event');

  const list = await getJson(`${web.baseUrl}/api/scenarios`);
  t.equal(list.status, 200);
  const items = list.json.items as Array<Record<string, unknown>>;
  t.equal(list.json.total, items.length);
  t.ok(items.some((s) => s.id === id));
  t.notOk('inputs' in items[0], 'the list leaves inputs out');

  // Statements, gzip-encoded as stored.
  const res = await fetch(`${web.baseUrl}/api/scenarios/${id}/statements`, { headers: { 'accept-encoding': 'gzip' } });
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-encoding'), 'gzip');
  const etag = res.headers.get('etag');
  t.match(etag, /^"[\w-]+"$/, 'a strong ETag');
  const statements = (await res.json()) as Record<string, unknown>;
  for (const key of ['solar_hourly', 'wind_hourly'] as const) {
    const arr = statements[key] as number[][];
    t.equal(arr.length, 25, `${key}: 25 years`);
    t.ok(
      arr.every((y) => y.length === 8760 && y.every((v) => typeof v === 'number' && v >= 0)),
      `${key}: 8760 numbers each`,
    );
    t.ok(
      arr.flat().some((v) => v > 0),
      `${key}: some output`,
    );
    t.ok(
      arr[0].every((v) => Math.round(v * 1000) === v * 1000 || Math.abs(v * 1000 - Math.round(v * 1000)) < 1e-6),
      `${key}: rounded to 1 kWh`,
    );
  }
  t.equal(statements.scenario_id, id);
  t.equal((statements.annual as unknown[]).length, 25);
  t.equal((statements.cash_flow as unknown[]).length, 26);
  const annual = statements.annual as Array<{ solar_mwh: number }>;
  const solarYear1 = (statements.solar_hourly as number[][])[0].reduce((a, b) => a + b, 0);
  t.ok(Math.abs(solarYear1 - annual[0].solar_mwh) < 25 * 8760 * 0.0005 + 1e-6, 'hourly sums match the annual total');

  const again = await fetch(`${web.baseUrl}/api/scenarios/${id}/statements`, {
    headers: { 'accept-encoding': 'gzip', 'if-none-match': etag ?? '' },
  });
  t.equal(again.status, 304, 'If-None-Match → 304');
  t.equal(again.headers.get('etag'), etag);

  const plain = await fetch(`${web.baseUrl}/api/scenarios/${id}/statements`, {
    headers: { 'accept-encoding': 'identity' },
  });
  t.equal(plain.headers.get('content-encoding'), null, 'identity when gzip is not asked for');
  const plainBody = Buffer.from(await plain.arrayBuffer());
  t.same(JSON.parse(plainBody.toString()), statements, 'same statements without gzip');
  t.not(plain.headers.get('etag'), etag, 'the identity representation has its own ETag');

  const lite = await getJson(`${web.baseUrl}/api/scenarios/${id}/statements?hourly=false`);
  t.equal(lite.status, 200);
  t.notOk('solar_hourly' in lite.json || 'wind_hourly' in lite.json, '?hourly=false omits the arrays');
  t.same(lite.json.kpis, statements.kpis);

  const csvRes = await fetch(`${web.baseUrl}/api/scenarios/${id}/statements?format=csv`, {
    headers: { 'accept-encoding': 'gzip' },
  });
  t.equal(csvRes.status, 200);
  t.match(csvRes.headers.get('content-type'), /^text\/csv/);
  const csv = (await csvRes.text()).trimEnd().split('\n');
  t.equal(csv[0], 'year,hour,timestamp,solar_mwh,wind_mwh');
  t.equal(csv.length, 1 + 25 * 8760);
  const startYear = statements.start_year as number;
  t.equal(csv[1].split(',')[2], `${startYear}-01-01T00:00:00-07:00`);
  t.equal(csv[1 + 8760 + 12].split(',').slice(0, 3).join(','), `2,12,${startYear + 1}-01-01T12:00:00-07:00`);
  const solarHourly = statements.solar_hourly as number[][];
  const windHourly = statements.wind_hourly as number[][];
  for (const row of [1, 4000, 8760 * 7 + 13, 25 * 8760]) {
    const [y, h, , s, w] = csv[row].split(',');
    t.equal(Number(s), solarHourly[Number(y) - 1][Number(h)], `csv solar row ${row}`);
    t.equal(Number(w), windHourly[Number(y) - 1][Number(h)], `csv wind row ${row}`);
  }
  const accepted = await fetch(`${web.baseUrl}/api/scenarios/${id}/statements`, { headers: { accept: 'text/csv' } });
  t.match(accepted.headers.get('content-type'), /^text\/csv/, 'Accept: text/csv selects CSV');
  await accepted.arrayBuffer();
});

t.test('resume: a stream opened with Last-Event-ID gets only the later events', async (t) => {
  const created = await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: 'resume' });
  const id = created.json.id as string;
  const first = follow(`${web.baseUrl}/api/scenarios/${id}/events`);
  const running = await first.until((e) => e.event === 'running');
  first.close(); // disconnect mid-stream
  const second = follow(`${web.baseUrl}/api/scenarios/${id}/events`, { lastEventId: running.id });
  const end = await second.until((e) => e.event === 'succeeded', 60_000);
  t.same(
    second.events.map((e) => e.id),
    Array.from({ length: end.id - running.id }, (_, i) => running.id + 1 + i),
    'exactly the events after Last-Event-ID, contiguous, once each',
  );

  // The same, on a finished scenario, by query parameter: replay and close.
  const replay = follow(`${web.baseUrl}/api/scenarios/${id}/events?last_event_id=${end.id - 2}`);
  await replay.until((e) => e.event === 'succeeded');
  t.same(
    replay.events.map((e) => e.id),
    [end.id - 1, end.id],
  );
});

t.test('a statements request before the calculation is done is a 409 problem', async (t) => {
  await worker.stop();
  const created = await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: 'not yet' });
  const res = await getJson(`${web.baseUrl}/api/scenarios/${created.json.id}/statements`);
  t.equal(res.status, 409);
  t.match(res.headers.get('content-type'), /^application\/problem\+json/);
  t.equal(res.json.scenario_status, 'queued');
  const restarted = await stack.startWorker();
  t.teardown(() => restarted.stop());
  const stream = follow(`${web.baseUrl}/api/scenarios/${created.json.id}/events`);
  await stream.until((e) => e.event === 'succeeded', 60_000);
  const ok = await fetch(`${web.baseUrl}/api/scenarios/${created.json.id}/statements?hourly=false`);
  t.equal(ok.status, 200);
  await ok.arrayBuffer();
});
