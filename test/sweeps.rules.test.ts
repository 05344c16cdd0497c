// The rules of a sweep's create: 30 bad bodies each get the right 4xx naming the field and write
// nothing; an error injected in the middle of the create transaction leaves no sweep, scenario or
// job; and a single scenario posted behind 500 queued variants starts before any of them that was
// still waiting.
import t from 'tap';
import { getJson, postScenario } from './helpers/http.ts';
import { startStack, withProcessLogs } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const stack = await startStack({ web: { MAX_SWEEP_VARIANTS: '600' } });
t.teardown(() => stack.stop());

const site = { latitude: 35.2, longitude: -101.8 };
const base = { site };
const post = async (payload: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
  const res = await fetch(`${stack.web.baseUrl}/api/sweeps`, {
    method: 'POST',
    headers,
    body: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
  const text = await res.text();
  return {
    status: res.status,
    json: text ? (JSON.parse(text) as { errors?: Array<{ path: string; message: string }> }) : {},
  };
};
const rows = async () => {
  const { rows } = await stack.pool.query<{ sweeps: string; scenarios: string; jobs: string }>(
    `SELECT (SELECT count(*) FROM sweeps) AS sweeps, (SELECT count(*) FROM scenarios) AS scenarios,
            (SELECT count(*) FROM pgboss.job WHERE name = 'calculate') AS jobs`,
  );
  return rows[0];
};
const cap = { path: '/solar/capacity_mw_dc', values: [10, 20] };

t.test('bad sweep bodies: the right 4xx, the field named, no row written', async (t) => {
  const before = await rows();
  const cases: Array<[string, unknown, number, string]> = [
    ['not an object', [1, 2], 400, '/'],
    ['no name', { base, vary: [cap] }, 400, '/name'],
    ['empty name', { name: '', base, vary: [cap] }, 400, '/name'],
    ['no base', { name: 'x', vary: [cap] }, 400, '/base'],
    ['base not an object', { name: 'x', base: 3, vary: [cap] }, 400, '/base'],
    ['no vary', { name: 'x', base }, 400, '/vary'],
    ['empty vary', { name: 'x', base, vary: [] }, 400, '/vary'],
    ['nine parameters', { name: 'x', base, vary: Array.from({ length: 9 }, () => cap) }, 400, '/vary'],
    ['an unknown field', { name: 'x', base, vary: [cap], colour: 1 }, 400, '/colour'],
    ['bad combine', { name: 'x', base, vary: [cap], combine: 'cross' }, 400, '/combine'],
    ['keep_hourly as text', { name: 'x', base, vary: [cap], keep_hourly: 'yes' }, 400, '/keep_hourly'],
    ['a parameter not an object', { name: 'x', base, vary: [5] }, 400, '/vary/0'],
    ['a path that is no pointer', { name: 'x', base, vary: [{ path: 'solar', values: [1] }] }, 400, '/vary/0/path'],
    ['a path into no input', { name: 'x', base, vary: [{ path: '/solar/colour', values: [1] }] }, 400, '/vary/0/path'],
    ['a path under a number', { name: 'x', base, vary: [{ path: '/seed/x', values: [1] }] }, 400, '/vary/0/path'],
    ['the name', { name: 'x', base, vary: [{ path: '/name', values: ['a'] }] }, 400, '/vary/0/path'],
    [
      'an item of an array the base does not give',
      { name: 'x', base, vary: [{ path: '/market/merchant_hour_of_day_multipliers/18', values: [1, 2] }] },
      400,
      '/vary/0/path',
    ],
    ['a duplicate path', { name: 'x', base, vary: [cap, cap] }, 400, '/vary/1/path'],
    ['an overlapping path', { name: 'x', base, vary: [{ path: '/solar', values: [{}] }, cap] }, 400, '/vary/1/path'],
    ['empty values', { name: 'x', base, vary: [{ path: '/seed', values: [] }] }, 400, '/vary/0/values'],
    [
      'values and a range',
      { name: 'x', base, vary: [{ path: '/seed', values: [1], from: 1, to: 2, step: 1 }] },
      400,
      '/vary/0',
    ],
    ['step 0', { name: 'x', base, vary: [{ path: '/seed', from: 1, to: 2, step: 0 }] }, 400, '/vary/0/step'],
    ['negative step', { name: 'x', base, vary: [{ path: '/seed', from: 1, to: 2, step: -1 }] }, 400, '/vary/0/step'],
    ['from after to', { name: 'x', base, vary: [{ path: '/seed', from: 5, to: 2, step: 1 }] }, 400, '/vary/0/from'],
    [
      'a range bound as text',
      { name: 'x', base, vary: [{ path: '/seed', from: '1', to: 2, step: 1 }] },
      400,
      '/vary/0/from',
    ],
    ['an unknown parameter field', { name: 'x', base, vary: [{ ...cap, unit: 'MW' }] }, 400, '/vary/0/unit'],
    [
      'zip of unequal lengths',
      { name: 'x', base, combine: 'zip', vary: [cap, { path: '/seed', values: [1, 2, 3] }] },
      400,
      '/vary',
    ],
    ['too many variants', { name: 'x', base, vary: [{ path: '/seed', from: 0, to: 1e9, step: 1 }] }, 400, '/vary'],
    [
      'a value of the wrong type',
      { name: 'x', base, vary: [{ path: '/solar/capacity_mw_dc', values: [10, 'big'] }] },
      400,
      '/vary/0/values/1',
    ],
    [
      'a value out of bounds',
      { name: 'x', base, vary: [{ path: '/site/latitude', values: [30, 95] }] },
      400,
      '/vary/0/values/1',
    ],
    [
      'a bad base field',
      { name: 'x', base: { site, solar: { dc_ac_ratio: 0 } }, vary: [cap] },
      400,
      '/base/solar/dc_ac_ratio',
    ],
    ['a base without a site', { name: 'x', base: {}, vary: [cap] }, 400, '/base/site'],
  ];
  for (const [what, body, status, path] of cases) {
    const r = await post(body);
    t.equal(r.status, status, `${what}: ${status}`);
    const paths = (r.json.errors ?? []).map((e) => e.path);
    t.ok(paths.includes(path), `${what}: names ${path || 'the body'} (${JSON.stringify(paths).slice(0, 120)})`);
  }
  const variantError = await post({ name: 'x', base, vary: [{ path: '/site/latitude', values: [30, 95] }] });
  t.match(variantError.json.errors?.[0]?.message, /^variant 1: /, 'the message names the variant');
  t.equal((await post('{"name":', { 'content-type': 'application/json' })).status, 400, 'malformed JSON: 400');
  t.equal(
    (await post({ name: 'x', base, vary: [cap] }, { 'content-type': 'text/plain' })).status,
    415,
    'not JSON: 415',
  );
  t.same(await rows(), before, 'nothing written by any of them');
});

t.test('all or nothing: an error in the middle of the create transaction leaves nothing', async (t) => {
  const before = await rows();
  // pg-boss's job insert fails for this sweep's jobs, after the sweep and its variants were inserted.
  await stack.pool.query(`
    CREATE FUNCTION fail_sweep_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.priority < 0 THEN RAISE EXCEPTION 'injected failure'; END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER fail_sweep_jobs BEFORE INSERT ON pgboss.job FOR EACH ROW EXECUTE FUNCTION fail_sweep_jobs();`);
  const r = await post({ name: 'doomed', base, vary: [{ path: '/seed', from: 1, to: 30, step: 1 }] });
  t.equal(r.status, 500, 'the create fails');
  t.same(await rows(), before, 'no sweep, no scenario, no job');
  await stack.pool.query('DROP TRIGGER fail_sweep_jobs ON pgboss.job; DROP FUNCTION fail_sweep_jobs()');
  const ok = await post({ name: 'fine', base, vary: [{ path: '/seed', from: 1, to: 30, step: 1 }] });
  t.equal(ok.status, 201, 'the same sweep without the failure is created');
  await fetch(`${stack.web.baseUrl}/api/sweeps/${(ok.json as { id: string }).id}/cancel`, { method: 'POST' });
});

t.test('a cancel that finishes every variant at once writes finished after all their variant events', async (t) => {
  // No worker runs yet: one statement cancels all eight variants, and the sweep's event trigger
  // runs once per row after it (0006).
  const r = await post({ name: 'cancel all', base, vary: [{ path: '/seed', from: 1, to: 8, step: 1 }] });
  t.equal(r.status, 201);
  const id = (r.json as { id: string }).id;
  t.equal((await fetch(`${stack.web.baseUrl}/api/sweeps/${id}/cancel`, { method: 'POST' })).status, 200);
  const { rows: events } = await stack.pool.query<{ seq: number; name: string }>(
    'SELECT seq, name FROM sweep_events WHERE sweep_id = $1 ORDER BY seq',
    [id],
  );
  t.same(
    events.map((e) => e.name),
    [...Array(8).fill('variant'), 'finished'],
    'eight variant events, then finished',
  );
  t.same(
    events.map((e) => e.seq),
    Array.from({ length: 9 }, (_, i) => i + 1),
  );
});

t.test('a scenario posted behind 500 queued variants starts before every variant still waiting', async (t) => {
  await withProcessLogs(t, stack, async () => {
    // Variants that each take a while (their own weather, and a battery to dispatch behind a limit:
    // ~100 ms of engine), so that the few ms between the single's claim and its place in the queue
    // for the thread cannot see more than the one variant already starting.
    const sweep = await post({
      name: 'backlog',
      base: {
        site,
        grid: { export_limit_mw: 120 },
        market: { merchant_hour_of_day_multipliers: Array.from({ length: 24 }, (_, h) => (h >= 17 && h < 21 ? 2 : 1)) },
        storage: { power_mw: 50, energy_mwh: 200 },
      },
      vary: [{ path: '/seed', from: 1, to: 500, step: 1 }],
    });
    t.equal(sweep.status, 201);
    const id = (sweep.json as { id: string }).id;
    await stack.startWorker();
    const count = async (status: string) =>
      Number(
        (
          await stack.pool.query('SELECT count(*) AS n FROM scenarios WHERE sweep_id = $1 AND status = $2', [
            id,
            status,
          ])
        ).rows[0].n,
      );
    await waitUntil(async () => (await count('succeeded')) >= 5, { timeoutMs: 60_000, what: 'five variants done' });
    // Post the single just after the worker claimed a batch: three claimed variants wait for the
    // thread, so without its place ahead of them the single would start after them.
    await waitUntil(
      async () => {
        const { rows } = await stack.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pgboss.job j JOIN scenarios s ON s.id = j.id
            WHERE s.sweep_id = $1 AND j.state = 'active' AND s.status = 'queued'`,
          [id],
        );
        return rows[0].n >= 3;
      },
      { timeoutMs: 60_000, everyMs: 5, what: 'three claimed variants waiting for the thread' },
    );
    const single = await postScenario(stack.web.baseUrl, { name: 'urgent', site });
    await stack.follow(`/api/scenarios/${single.json.id}/events`).until((e) => e.event === 'running', 60_000);
    // Variants are claimed in batches, so some are claimed (and waiting for the engine thread) when
    // the single arrives: once the single is claimed it goes ahead of all of them. One variant may
    // still start after the claim: its turn came just before it, or in the moment between the claim
    // and the single's place in the queue. (With variants of a few ms each, reusing the profiles,
    // a loaded machine once saw two.)
    const { rows: started } = await stack.pool.query<{ since_claim: string; since_create: string }>(
      `SELECT count(*) FILTER (WHERE v.started_at > j.started_on) AS since_claim,
              count(*) AS since_create
         FROM scenarios v, scenarios s JOIN pgboss.job j ON j.id = s.id
        WHERE v.sweep_id = $1 AND s.id = $2 AND v.started_at > s.created_at AND v.started_at < s.started_at`,
      [id, single.json.id],
    );
    t.ok(
      Number(started[0].since_claim) <= 1,
      `variants that started after the single was claimed: ${started[0].since_claim} (at most the one already starting)`,
    );
    t.comment(`variants that started between the single's commit and its start: ${started[0].since_create}`);
    t.ok((await count('queued')) > 300, 'most variants were still queued behind it');
    await fetch(`${stack.web.baseUrl}/api/sweeps/${id}/cancel`, { method: 'POST' });
    await waitUntil(async () => (await getJson(`${stack.web.baseUrl}/api/sweeps/${id}`)).json.finished_at, {
      timeoutMs: 60_000,
      what: 'the sweep to end',
    });
  });
});
