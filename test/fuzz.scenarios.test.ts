// Property-based fuzzing of POST /api/scenarios with fast-check: random JSON documents, random
// mutations of a valid scenario, random bytes, random Idempotency-Keys. Never a 5xx, never a hang
// (every answer within 10 s), never a row for a rejected request: rows = 201s. And whatever is
// accepted is stored with inputs that are themselves accepted when posted again.
//
// The seed is fixed so CI is deterministic; HOURGLASS_FUZZ_SEED=<n> explores others and
// HOURGLASS_FUZZ_RUNS=<n> sets the runs per property (default 800; four properties).
import fc from 'fast-check';
import t from 'tap';
import { startStack } from './helpers/stack.ts';

const SEED = Number(process.env.HOURGLASS_FUZZ_SEED) || 20_261_121;
const RUNS = Number(process.env.HOURGLASS_FUZZ_RUNS) || 800;
const ANSWERS = new Set([201, 400, 409, 413, 415]);

const stack = await startStack({ web: { BODY_LIMIT_BYTES: String(1024 * 1024) } });
const { web } = stack;
t.teardown(() => stack.stop());
t.comment(`fast-check seed ${SEED}, ${RUNS} runs per property`);

let created = 0;

/** One POST; throws (failing the property) on a 5xx, an unexpected status, or no answer in 10 s. */
async function post(body: string, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${web.baseUrl}/api/scenarios`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (!ANSWERS.has(res.status)) throw new Error(`${res.status} for ${body.slice(0, 300)}: ${text.slice(0, 300)}`);
  if (res.status !== 201 && !/^application\/problem\+json/.test(res.headers.get('content-type') ?? '')) {
    throw new Error(`${res.status} without a problem+json body`);
  }
  if (res.status === 201) {
    if (res.headers.get('idempotent-replayed') !== 'true') created++;
    const scenario = JSON.parse(text) as { inputs: Record<string, unknown> };
    // What was stored is valid input: posting it again is accepted too.
    const again = await fetch(`${web.baseUrl}/api/scenarios`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(scenario.inputs),
      signal: AbortSignal.timeout(10_000),
    });
    const againText = await again.text();
    if (again.status !== 201) throw new Error(`stored inputs rejected (${again.status}): ${againText.slice(0, 300)}`);
    created++;
  }
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

// Values that find edges: boundaries, huge and tiny numbers, enum words, odd strings, long arrays.
const oddString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({
    unit: fc.constantFrom('\u0000', '\ud800', '\udfff', '\u202e', '\u0085', '😀', "'", '"', '\\', '<'),
    maxLength: 8,
  }),
  fc.constantFrom('synthetic', 'supplied', 'sam_csv', 'dscr', 'fraction', 'macrs_5', 'two_axis', 'USD', ''),
);
const oddNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, -1, 1, 0.5, 90, -90, 180, 360, 8760, 2 ** 32, 2 ** 53, 1e21, 1e308, -1e308, 5e-324),
);
const oddValue = fc.oneof(
  { weight: 3, arbitrary: oddNumber },
  { weight: 2, arbitrary: oddString },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  fc.constantFrom(null, true, false, [], {}),
  fc.constantFrom(12, 24, 8760).chain((n) => fc.array(oddNumber, { minLength: n, maxLength: n })),
);

const VALID = {
  name: 'fuzz',
  site: { latitude: 35.2, longitude: -101.8, elevation_m: 1100 },
  seed: 7,
  solar: { capacity_mw_dc: 80, dc_ac_ratio: 1.3, array_type: 'fixed_open_rack', losses_breakdown: { soiling: 2 } },
  wind: {
    capacity_mw: 60,
    turbine: {
      power_curve: [
        [3, 0],
        [12, 3000],
        [25, 3000],
      ],
    },
  },
  grid: { export_limit_mw: 120 },
  market: { ppa_share: 0.8, merchant_hour_of_day_multipliers: Array.from({ length: 24 }, () => 1) },
  finance: { debt: { sizing: 'dscr', target_dscr: 1.4 }, depreciation: { method: 'straight_line', years: 20 } },
  weather: { source: 'synthetic', climate: { clearness_index: 0.6, wind_mean_ms: 7 } },
};

type Node = Record<string, unknown> | unknown[];
function paths(value: unknown, prefix: string[] = [], out: string[][] = []): string[][] {
  if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      out.push([...prefix, k]);
      if (!(Array.isArray(v) && v.length > 3)) paths(v, [...prefix, k], out);
    }
  }
  return out;
}
const VALID_PATHS = paths(VALID);

interface Mutation {
  op: 'delete' | 'set' | 'add';
  at: number;
  key: string;
  value: unknown;
}

function mutate(mutations: Mutation[]): unknown {
  const doc = structuredClone(VALID) as Record<string, unknown>;
  for (const m of mutations) {
    const path = VALID_PATHS[m.at % VALID_PATHS.length];
    let parent: Node = doc;
    for (const k of path.slice(0, -1)) {
      const next = (parent as Record<string, unknown>)[k];
      if (typeof next !== 'object' || next === null) break;
      parent = next as Node;
    }
    const last = path[path.length - 1];
    const target = parent as Record<string, unknown>;
    if (m.op === 'delete') delete target[last];
    else if (m.op === 'set') target[last] = m.value;
    else target[m.key] = m.value;
  }
  return doc;
}

const mutation = fc.record({
  op: fc.constantFrom<Mutation['op']>('delete', 'set', 'set', 'add'),
  at: fc.nat(),
  key: fc.oneof(fc.constantFrom('tilt_deg', 'seed', 'name', 'text', 'ghi', '__proto__', 'constructor'), fc.string()),
  value: oddValue,
});

t.test('random JSON documents: never a 5xx, never a hang', async () => {
  await fc.assert(
    fc.asyncProperty(fc.jsonValue({ maxDepth: 6 }), async (doc) => {
      await post(JSON.stringify(doc));
    }),
    { seed: SEED, numRuns: RUNS },
  );
});

t.test('random mutations of a valid scenario: never a 5xx; what is accepted is stored valid', async (t) => {
  t.equal((await post(JSON.stringify(VALID))).status, 201, 'the unmutated scenario is valid');
  let accepted = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 4 }), async (mutations) => {
      if ((await post(JSON.stringify(mutate(mutations)))).status === 201) accepted++;
    }),
    { seed: SEED + 1, numRuns: RUNS },
  );
  t.ok(accepted > 0, `some mutations are still valid scenarios (${accepted} of ${RUNS})`);
});

t.test('random bytes and broken JSON text: never a 5xx', async () => {
  const valid = JSON.stringify(VALID);
  const text = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 200 }),
    // A valid document cut, or with one character replaced: mostly malformed JSON.
    fc
      .tuple(fc.nat(valid.length), fc.string({ unit: 'binary', maxLength: 3 }))
      .map(([i, s]) => valid.slice(0, i) + s + valid.slice(i + 1)),
    fc.nat(valid.length).map((i) => valid.slice(0, i)),
    fc.constantFrom('NaN', 'Infinity', '-1e400', '1e400').map((n) => valid.replace('35.2', n)),
  );
  await fc.assert(
    fc.asyncProperty(text, async (body) => {
      await post(body);
    }),
    { seed: SEED + 2, numRuns: RUNS },
  );
});

t.test('random Idempotency-Keys: 201, 400 or 409, never a 5xx; a key never makes two rows', async (t) => {
  const key = fc.string({ unit: 'binary-ascii', minLength: 0, maxLength: 300 });
  await fc.assert(
    fc.asyncProperty(key, fc.boolean(), async (k, sameBody) => {
      const body = JSON.stringify(sameBody ? VALID : { ...VALID, name: `key ${k.length}` });
      try {
        await post(body, { 'idempotency-key': k });
      } catch (err) {
        // fetch refuses header values with CR, LF or NUL before sending anything: not our case.
        const reason = `${(err as Error).message} ${(err as { cause?: { message?: string } }).cause?.message ?? ''}`;
        if (err instanceof TypeError && /header/i.test(reason)) return;
        throw err;
      }
    }),
    { seed: SEED + 3, numRuns: RUNS },
  );
  const { rows } = await stack.pool.query<{ dupes: number }>(
    `SELECT count(*)::int AS dupes FROM (SELECT idempotency_key FROM scenarios WHERE idempotency_key IS NOT NULL
     GROUP BY 1 HAVING count(*) > 1) d`,
  );
  t.equal(rows[0].dupes, 0, 'no Idempotency-Key on two rows');
});

t.test('rows: exactly one per 201 (replays excluded), one job each', async (t) => {
  const { rows } = await stack.pool.query<{ scenarios: number; jobs: number }>(
    `SELECT (SELECT count(*)::int FROM scenarios) AS scenarios,
            (SELECT count(*)::int FROM pgboss.job WHERE name = 'calculate') AS jobs`,
  );
  t.same(rows[0], { scenarios: created, jobs: created }, `${created} created`);
});
