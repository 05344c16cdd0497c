// The engine pool (worker/engine.pool.ts) on real engine threads: a sweep's variant is queued on a
// thread that computes (sent at once, started the moment the one before ends), a third waits, a single
// scenario waits for a thread with nothing under way and no variant is queued while it waits; each
// calculation's messages and result reach its own job; a queued variant's abort leaves the thread
// and the calculation under way alone; a crash under way fails the queued one as a thread failure
// (retried) and the next job gets a new thread. The engine is test/helpers/engine.gate.ts: the real
// one, blocked for a while or made to throw by the scenario's name.
import t from 'tap';
import type { StoredInputs } from '../shared/schemas/inputs.ts';
import { type EngineLease, type EngineOutcome, EnginePool } from '../worker/engine.pool.ts';
import { resolvedInputs } from './fixtures/inputs.ts';

const gate = new URL('./helpers/engine.gate.ts', import.meta.url);
const inputs = (name: string, solarMw = 100) =>
  ({ ...resolvedInputs({ solar: { capacity_mw_dc: solarMw } }), name }) as unknown as StoredInputs;
const id = (i: number) => `01936f3e-0000-7000-8000-${String(i).padStart(12, '0')}`;

/** Whether a promise has settled once everything already queued has run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

/** A variant's lease on a pool whose one thread computes: granted at once (queued), or the test fails now. */
async function queuedLease(pool: EnginePool): Promise<EngineLease> {
  const lease = pool.acquire(undefined, 'variant');
  if (!(await settled(lease))) throw new Error('a variant was not queued behind the calculation under way');
  return lease;
}

const ok = (o: EngineOutcome) => {
  if (!o.ok) throw new Error(`not computed: ${o.code} ${o.message}`);
  return o;
};

t.test(
  'a variant is queued behind the calculation under way; a third waits; a single waits for an idle thread, then a variant queues behind it',
  async (t) => {
    const pool = new EnginePool({ size: 1, engine: gate });
    t.teardown(() => pool.close());
    const first = await pool.acquire(undefined, 'variant');
    const run1 = first.run(id(1), inputs('sleep:600', 50), { keepHourly: false });
    const second = pool.acquire(undefined, 'variant');
    t.ok(await settled(second), 'a second variant gets the thread while the first computes');
    const run2 = (await second).run(id(2), inputs('sleep:300', 100), { keepHourly: false });
    const third = pool.acquire(undefined, 'variant');
    const single = pool.acquire(undefined, 'single');
    t.notOk(await settled(third), 'a third variant waits');
    t.notOk(await settled(single), 'the single waits');
    const o1 = ok(await run1);
    t.notOk(await settled(single), 'the first done, the single still waits: the queued variant is under way');
    t.notOk(await settled(third), 'and the third variant is not queued while the single waits');
    const o2 = ok(await run2);
    const lease = await single;
    const run3 = lease.run(id(3), inputs('sleep:300', 150), { keepHourly: false, onProgress: () => {} });
    t.ok(await settled(third), 'the single under way, the third variant is queued behind it');
    const o3 = ok(await run3);
    const o4 = ok(await (await third).run(id(4), inputs('last', 25), { keepHourly: false }));
    // Each job got its own calculation: more solar energy the more solar capacity (25, 50, 100, 150 MW).
    t.ok(o4.totals.solar_mwh < o1.totals.solar_mwh, 'the last variant got its own result');
    t.ok(o1.totals.solar_mwh < o2.totals.solar_mwh, 'the queued variant got its own result');
    t.ok(o2.totals.solar_mwh < o3.totals.solar_mwh, 'the single got its own result');
  },
);

t.test('a single reports its progress, stage by stage, through a queued variant behind it', async (t) => {
  const pool = new EnginePool({ size: 1, engine: gate });
  t.teardown(() => pool.close());
  const running = await pool.acquire(undefined, 'variant');
  const stages: string[] = [];
  const r1 = running.run(id(11), inputs('sleep:200'), { keepHourly: false, onProgress: (s) => stages.push(`a ${s}`) });
  const queued = await queuedLease(pool);
  const r2 = queued.run(id(12), inputs('queued'), { keepHourly: false });
  ok(await r1);
  ok(await r2);
  t.ok(stages.length > 3, `the first calculation's progress reached its job (${stages.length} reports)`);
});

t.test('without queueing, a second variant waits for the first to end', async (t) => {
  const pool = new EnginePool({ size: 1, engine: gate, queue: false });
  t.teardown(() => pool.close());
  const first = await pool.acquire(undefined, 'variant');
  const run1 = first.run(id(21), inputs('sleep:300'), { keepHourly: false });
  const second = pool.acquire(undefined, 'variant');
  t.notOk(await settled(second), 'the second waits');
  ok(await run1);
  ok(await (await second).run(id(22), inputs('second'), { keepHourly: false }));
});

t.test("a queued variant's abort leaves the thread and the calculation under way alone", async (t) => {
  const pool = new EnginePool({ size: 1, engine: gate });
  t.teardown(() => pool.close());
  const first = await pool.acquire(undefined, 'variant');
  const run1 = first.run(id(31), inputs('sleep:500', 50), { keepHourly: false });
  const second = await queuedLease(pool);
  const abort = new AbortController();
  const run2 = second.run(id(32), inputs('sleep:10000'), { keepHourly: false, signal: abort.signal });
  abort.abort();
  await t.rejects(run2, /aborted/, 'the aborted variant fails (pg-boss retries it)');
  const o1 = ok(await run1);
  t.ok(o1.totals.solar_mwh > 0, 'the calculation under way finished');
  // The thread computes the aborted one too (nobody hears of it), then the next.
  const next = await pool.acquire(undefined, 'variant');
  const o3 = ok(await next.run(id(33), inputs('next', 100), { keepHourly: false }));
  t.ok(o3.totals.solar_mwh > o1.totals.solar_mwh, 'the next job gets its own result (100 MW of solar, not 50)');
});

t.test('a crash under way fails the queued variant as a thread failure; the next job gets a new thread', async (t) => {
  const pool = new EnginePool({ size: 1, engine: gate });
  t.teardown(() => pool.close());
  const first: EngineLease = await pool.acquire(undefined, 'variant');
  const run1 = first.run(id(41), inputs('crash:300'), { keepHourly: false });
  const second = await queuedLease(pool);
  const run2 = second.run(id(42), inputs('queued'), { keepHourly: false });
  const o1 = await run1;
  t.same(o1.ok ? null : o1.code, 'engine_exception', 'the crash is the engine_exception of its own job');
  await t.rejects(run2, /engine thread/, 'the queued variant fails with its thread (pg-boss retries it)');
  const next = await pool.acquire(undefined, 'single');
  const o3 = ok(await next.run(id(43), inputs('after'), { keepHourly: false }));
  t.ok(o3.totals.solar_mwh > 0, 'a new thread calculates the next job');
});
