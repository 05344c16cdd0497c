// Sweeps under faults: cancels that race two workers claiming variants, and a worker SIGKILLed in the
// middle of a sweep. Every variant ends in exactly one terminal state, a cancelled one never ran and
// has a cancelled job, a killed one is retried and succeeds once, and the sweep's event log has one
// `variant` event per variant and one `finished`.
import t, { type Test } from 'tap';
import { isTerminal } from '../shared/lifecycle.ts';
import { HEARTBEAT } from './helpers/faults.ts';
import { getJson } from './helpers/http.ts';
import { slowEngine } from './helpers/processes.ts';
import { startStack, withProcessLogs } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const stack = await startStack({ web: HEARTBEAT });
t.teardown(() => stack.stop());
const site = { latitude: 35.2, longitude: -101.8 };

async function createSweep(count: number, name: string): Promise<string> {
  const res = await fetch(`${stack.web.baseUrl}/api/sweeps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name,
      base: { site, seed: 3 },
      vary: [{ path: '/grid/export_limit_mw', from: 1, to: count, step: 1 }],
    }),
  });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** How many of the sweep's variants have that status. */
const variantsIn = async (id: string, status: string): Promise<number> =>
  Number(
    (await stack.pool.query(`SELECT count(*) AS n FROM scenarios WHERE sweep_id = $1 AND status = $2`, [id, status]))
      .rows[0].n,
  );

const finished = (id: string) =>
  waitUntil(async () => (await getJson(`${stack.web.baseUrl}/api/sweeps/${id}`)).json.finished_at, {
    timeoutMs: 180_000,
    what: 'the sweep to finish',
  });

/** The invariants every sweep keeps, whatever happened to it. */
async function audit(t: Test, id: string, total: number): Promise<Record<string, number>> {
  const { rows } = await stack.pool.query<{
    status: string;
    variant_index: number;
    events: string[];
    results: string;
    job_state: string | null;
    started_at: Date | null;
  }>(
    `SELECT s.status, s.variant_index, s.started_at,
            (SELECT array_agg(e.name ORDER BY e.seq) FROM scenario_events e WHERE e.scenario_id = s.id) AS events,
            (SELECT count(*) FROM scenario_results r WHERE r.scenario_id = s.id) AS results,
            (SELECT j.state::text FROM pgboss.job j WHERE j.id = s.id) AS job_state
     FROM scenarios s WHERE s.sweep_id = $1 ORDER BY s.variant_index`,
    [id],
  );
  t.equal(rows.length, total, 'every variant is there');
  const bad: string[] = [];
  const counts: Record<string, number> = {};
  for (const r of rows) {
    counts[r.status] = (counts[r.status] ?? 0) + 1;
    const terminal = r.events.filter(isTerminal);
    if (terminal.length !== 1 || terminal[0] !== r.status || r.events.at(-1) !== r.status) {
      bad.push(`#${r.variant_index}: ${r.status} with events ${r.events.join(',')}`);
    }
    if (r.status === 'cancelled') {
      if (r.events.includes('running') || r.started_at) bad.push(`#${r.variant_index}: cancelled after it ran`);
      if (r.job_state !== 'cancelled') bad.push(`#${r.variant_index}: cancelled, its job ${r.job_state}`);
      if (r.results !== '0') bad.push(`#${r.variant_index}: cancelled with a result`);
    } else if (r.status === 'succeeded' && r.results !== '1') {
      bad.push(`#${r.variant_index}: ${r.results} results`);
    } else if (r.status !== 'succeeded') {
      bad.push(`#${r.variant_index}: ended ${r.status}`);
    }
  }
  t.same(bad.slice(0, 10), [], 'each variant: one terminal state, its last event; cancelled ones never ran');
  const { rows: events } = await stack.pool.query<{ name: string; index: number | null; seq: number }>(
    `SELECT name, (data->>'index')::int AS index, seq FROM sweep_events WHERE sweep_id = $1 ORDER BY seq`,
    [id],
  );
  const indexes = events.filter((e) => e.name === 'variant').map((e) => e.index);
  t.equal(new Set(indexes).size, total, 'one variant event per variant');
  t.equal(indexes.length, total, '… and no more');
  t.same(events.filter((e) => e.name === 'finished').length, 1, 'one finished event');
  t.equal(events.at(-1)?.name, 'finished', 'and it is the last');
  t.same(
    events.map((e) => e.seq),
    events.map((_, i) => i + 1),
    'seqs without gaps',
  );
  return counts;
}

t.test('cancels racing two workers that claim variants', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const id = await createSweep(150, 'race');
    const workers = [await stack.startWorker(HEARTBEAT), await stack.startWorker(HEARTBEAT)];
    await waitUntil(async () => (await variantsIn(id, 'succeeded')) >= 8, {
      timeoutMs: 60_000,
      what: 'eight variants done',
    });
    // Three cancels at once, while both workers keep claiming.
    const answers = await Promise.all(
      [0, 1, 2].map(() =>
        fetch(`${stack.web.baseUrl}/api/sweeps/${id}/cancel`, { method: 'POST' }).then((r) => r.status),
      ),
    );
    t.ok(
      answers.every((s) => s === 200 || s === 409),
      `cancel answers: ${answers.join(', ')}`,
    );
    await finished(id);
    const counts = await audit(t, id, 150);
    t.ok((counts.cancelled ?? 0) > 50, `most were cancelled (${JSON.stringify(counts)})`);
    const sweep = (await getJson(`${stack.web.baseUrl}/api/sweeps/${id}`)).json as { status: string };
    t.equal(sweep.status, 'cancelled');
    for (const w of workers) await w.stop();
  });
});

t.test('a worker SIGKILLed in the middle of a sweep: every variant finishes exactly once', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const id = await createSweep(12, 'killed');
    const doomed = await stack.startWorker(HEARTBEAT, slowEngine(1500));
    await waitUntil(async () => (await variantsIn(id, 'succeeded')) >= 2 && (await variantsIn(id, 'running')) >= 1, {
      timeoutMs: 60_000,
      what: 'a variant running after two done',
    });
    t.equal(await doomed.stop('SIGKILL'), null, 'killed mid-calculation');
    await stack.startWorker(HEARTBEAT);
    await finished(id);
    const counts = await audit(t, id, 12);
    t.same(counts, { succeeded: 12 }, 'all twelve succeeded');
    const { rows } = await stack.pool.query(`SELECT count(*) AS n FROM scenarios WHERE sweep_id = $1 AND attempt = 2`, [
      id,
    ]);
    t.ok(Number(rows[0].n) >= 1, 'the killed variant was retried');
  });
});
