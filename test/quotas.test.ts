// Each workspace's quotas (server/quotas.ts), set by QUOTA_* on real web processes over one
// database: over a quota a create is answered 429 quota_exceeded with Retry-After, the problem
// names the quota, and nothing is written; another workspace is not affected; GET /api/workspace
// shows each quota's limit and use; a bad QUOTA_* setting stops the process at start-up, naming it.
import t, { type Test } from 'tap';
import { getJson, postJson } from './helpers/http.ts';
import { launchWeb, launchWorker, type Web } from './helpers/processes.ts';
import { startStack } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const KEYS = { a: 'quota-key-a-2f81c0', b: 'quota-key-b-6e03d9' };
const API_KEYS = `alpha:${KEYS.a},beta:${KEYS.b}`;
const stack = await startStack({ web: { API_KEYS, QUOTA_QUEUED_VARIANTS: '10', QUOTA_STORED_BYTES: '0' } });
t.teardown(() => stack.stop());
const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const site = { latitude: 35.2, longitude: -101.8 };
const sweepOf = (n: number) => ({
  name: `sweep of ${n}`,
  base: { site },
  vary: [{ path: '/market/ppa_price_per_mwh', from: 30, to: 29 + n, step: 1 }],
});

async function rows(): Promise<{ scenarios: number; sweeps: number; jobs: number }> {
  const { rows } = await stack.pool.query(
    `SELECT (SELECT count(*) FROM scenarios)::int AS scenarios, (SELECT count(*) FROM sweeps)::int AS sweeps,
            (SELECT count(*) FROM pgboss.job WHERE name = 'calculate')::int AS jobs`,
  );
  return rows[0];
}

function refused(t: Test, res: { status: number; headers: Headers; json: Record<string, unknown> }, quota: string) {
  t.equal(res.status, 429, `${quota}: 429`);
  t.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8', `${quota}: problem+json`);
  t.equal(res.json.type, '/problems/quota-exceeded', `${quota}: its type`);
  t.equal(res.json.quota, quota, `${quota}: the problem names the quota`);
  t.match(String(res.json.detail), quota, `${quota}: and says it in words`);
  const retry = Number(res.headers.get('retry-after'));
  t.ok(Number.isInteger(retry) && retry >= 1, `${quota}: Retry-After ${retry}`);
}

const workspace = async (web: Web, key: string) => (await getJson(`${web.baseUrl}/api/workspace`, auth(key))).json;

t.test(
  'queued_variants: a create that would pass it is refused, nothing written; the other workspace goes on',
  async (t) => {
    const web = stack.web.baseUrl;
    t.equal((await postJson(`${web}/api/sweeps`, sweepOf(8), auth(KEYS.a))).status, 201, 'alpha: 8 variants queued');
    const before = await rows();
    refused(t, await postJson(`${web}/api/sweeps`, sweepOf(3), auth(KEYS.a)), 'queued_variants');
    const optimization = {
      name: 'too many',
      base: { site },
      variables: [{ path: '/solar/capacity_mw_dc', min: 0, max: 300, step: 10 }],
      objective: { maximize: 'equity_npv' },
      max_evaluations: 20,
    };
    refused(t, await postJson(`${web}/api/optimizations`, optimization, auth(KEYS.a)), 'queued_variants');
    t.same(await rows(), before, 'nothing written: no scenario, sweep or job');
    t.equal(
      (await postJson(`${web}/api/scenarios`, { name: 'ninth', site }, auth(KEYS.a))).status,
      201,
      'a single fits',
    );
    t.equal(
      (await postJson(`${web}/api/scenarios`, { name: 'tenth', site }, auth(KEYS.a))).status,
      201,
      'the tenth fits',
    );
    refused(t, await postJson(`${web}/api/scenarios`, { name: 'eleventh', site }, auth(KEYS.a)), 'queued_variants');
    t.equal((await postJson(`${web}/api/sweeps`, sweepOf(8), auth(KEYS.b))).status, 201, 'beta: its own quota');
    const alpha = await workspace(stack.web, KEYS.a);
    t.same(alpha.name, 'alpha');
    t.same(
      (alpha.quotas as Record<string, unknown>).queued_variants,
      { limit: 10, used: 10 },
      'GET /api/workspace: 10 of 10',
    );
    t.same((alpha.quotas as Record<string, unknown>).stored_bytes, { limit: null, used: 0 }, 'no stored-bytes limit');
    t.same(
      ((await workspace(stack.web, KEYS.b)).quotas as Record<string, unknown>).queued_variants,
      { limit: 10, used: 8 },
      "beta's use is its own",
    );
  },
);

t.test('stored_bytes: once the results reach it, creates are refused', async (t) => {
  // Alpha's queue drains first (a worker), then a web with a stored-bytes limit below what it stored.
  const worker = await stack.startWorker();
  await waitUntil(
    async () => {
      const { rows } = await stack.pool.query(
        `SELECT count(*)::int AS n FROM scenarios WHERE status IN ('queued', 'running')`,
      );
      return rows[0].n === 0;
    },
    { timeoutMs: 120_000, what: 'the queue to drain' },
  );
  await worker.stop();
  const { rows: stored } = await stack.pool.query(
    `SELECT sum(octet_length(statements_gzip) + octet_length(statements_lite_gzip))::bigint AS bytes
     FROM scenario_results r JOIN scenarios s ON s.id = r.scenario_id WHERE s.workspace = 'alpha'`,
  );
  const bytes = Number(stored[0].bytes);
  const limited = await stack.startWeb({ API_KEYS, QUOTA_STORED_BYTES: String(bytes - 1) });
  const before = await rows();
  refused(
    t,
    await postJson(`${limited.baseUrl}/api/scenarios`, { name: 'no room', site }, auth(KEYS.a)),
    'stored_bytes',
  );
  refused(t, await postJson(`${limited.baseUrl}/api/sweeps`, sweepOf(2), auth(KEYS.a)), 'stored_bytes');
  t.same(await rows(), before, 'nothing written');
  const use = (await workspace(limited, KEYS.a)).quotas as Record<string, { limit: number; used: number }>;
  t.same(use.stored_bytes, { limit: bytes - 1, used: bytes }, 'GET /api/workspace: the bytes its results store');
  t.equal(
    (await postJson(`${limited.baseUrl}/api/scenarios`, { name: 'beta', site }, auth(KEYS.b))).status,
    201,
    'beta may',
  );
});

t.test('requests_per_minute: the next request is refused until the minute ends; per workspace', async (t) => {
  const limited = await stack.startWeb({ API_KEYS, QUOTA_REQUESTS_PER_MINUTE: '5' });
  for (let i = 0; i < 5; i++) {
    t.equal((await getJson(`${limited.baseUrl}/api/scenarios?limit=1`, auth(KEYS.a))).status, 200, `request ${i + 1}`);
  }
  const over = await getJson(`${limited.baseUrl}/api/scenarios?limit=1`, auth(KEYS.a));
  refused(t, over, 'requests_per_minute');
  t.ok(Number(over.headers.get('retry-after')) <= 60, 'Retry-After: within the minute');
  const before = await rows();
  refused(
    t,
    await postJson(`${limited.baseUrl}/api/scenarios`, { name: 'x', site }, auth(KEYS.a)),
    'requests_per_minute',
  );
  t.same(await rows(), before, 'nothing written');
  t.equal((await getJson(`${limited.baseUrl}/api/scenarios?limit=1`, auth(KEYS.b))).status, 200, 'beta is not refused');
  t.equal((await getJson(`${limited.baseUrl}/healthz`)).status, 200, 'the health probe is not an API request');
});

t.test('a QUOTA_* setting that is not a number, or is negative, stops start-up naming it', async (t) => {
  const cases: Array<[string, string]> = [
    ['QUOTA_QUEUED_VARIANTS', 'many'],
    ['QUOTA_STORED_BYTES', '-1'],
    ['QUOTA_REQUESTS_PER_MINUTE', '1.5'],
  ];
  for (const [name, value] of cases) {
    for (const launch of [launchWeb, launchWorker]) {
      const proc = launch(stack.url, { [name]: value });
      const code = await proc.exited;
      t.equal(code, 1, `${name}=${value}: exits 1`);
      t.match(proc.output(), new RegExp(`configuration error: ${name} must be an integer`), `${name}: named`);
    }
  }
});
