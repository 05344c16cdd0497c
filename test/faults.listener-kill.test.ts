// The web's one listening connection is killed (pg_terminate_backend) three times while 100 event
// streams are open and calculations run: every stream still delivers every event, once, in order.
import t from 'tap';
import { scenarioProblems, waitForEvent } from './helpers/faults.ts';
import { DEFAULT_SCENARIO, getJson, postScenario } from './helpers/http.ts';
import { slowEngine } from './helpers/processes.ts';
import type { Follower } from './helpers/sse.ts';
import { startStack } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const SCENARIOS = 20;
const STREAMS_PER_SCENARIO = 5;

const stack = await startStack({ web: false });
const streams: Array<{ id: string; stream: Follower }> = [];
t.teardown(() => stack.stop());

const listenerPids = async () =>
  (
    await stack.pool.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'hourglass-web-listen'`,
    )
  ).rows.map((r) => r.pid);

t.test('100 streams survive three kills of the listening connection', async (t) => {
  const web = await stack.startWeb();
  const ids: string[] = [];
  for (let i = 0; i < SCENARIOS; i++) {
    ids.push((await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: `stream ${i}` })).json.id as string);
  }
  for (const id of ids) {
    for (let k = 0; k < STREAMS_PER_SCENARIO; k++) {
      streams.push({ id, stream: stack.follow(`/api/scenarios/${id}/events`) });
    }
  }
  await Promise.all(streams.map((s) => s.stream.until((e) => e.event === 'queued')));
  const ready = await getJson(`${web.baseUrl}/readyz`);
  t.match(ready.json.sse, { streams: SCENARIOS * STREAMS_PER_SCENARIO, channels: SCENARIOS }, '100 streams open');

  // Slowed a little, so the kills land while events flow.
  await stack.startWorker({}, slowEngine(400));
  const killed: number[] = [];
  for (const at of [0, 6, 13]) {
    await waitForEvent(stack.pool, ids[at], (e) => e.name === 'progress', 60_000, 'progress');
    const pids = await waitUntil(
      async () => {
        const p = await listenerPids();
        return p.length === 1 && !killed.includes(p[0]) ? p : null;
      },
      { timeoutMs: 15_000, what: 'a (new) listening connection' },
    );
    const { rows } = await stack.pool.query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [pids[0]]);
    t.equal(rows[0].ok, true, `listening connection killed while scenario ${at} runs`);
    killed.push(pids[0]);
  }

  for (const [i, { id, stream }] of streams.entries()) {
    const end = await stream.until((e) => e.event === 'succeeded' || e.event === 'failed', 120_000);
    const ok =
      end.event === 'succeeded' &&
      stream.events.map((e) => e.id).join() === Array.from({ length: end.id }, (_, k) => k + 1).join();
    if (!ok) t.fail(`stream ${i} of ${id}: ${stream.events.map((e) => `${e.id}:${e.event}`).join(' ')}`);
  }
  t.pass(`all ${streams.length} streams got every event once, in order`);
  t.same(await scenarioProblems(stack.pool, { ids }), []);
  const after = await waitUntil(
    async () => {
      const p = await listenerPids();
      return p.length === 1 && !killed.includes(p[0]) ? p : null;
    },
    { timeoutMs: 15_000, what: 'one listening connection again' },
  );
  t.equal(after.length, 1, 'one listening connection, a new one');
});
