// The web process's one listening connection: killed from SQL during calculations, every stream
// still delivers every event, and the process holds exactly one such connection.
import t from 'tap';
import { DEFAULT_SCENARIO, postScenario } from './helpers/http.ts';
import { follow } from './helpers/sse.ts';
import { startStack } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const stack = await startStack();
const { web } = stack;
t.teardown(() => stack.stop());

const listeners = async () =>
  (
    await stack.pool.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'hourglass-web-listen'`,
    )
  ).rows;

t.test('streams survive pg_terminate_backend of the listening connection', async (t) => {
  // Queue several scenarios before the worker starts, so calculations run before and after the kill.
  const ids: string[] = [];
  for (let i = 0; i < 6; i++)
    ids.push((await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: `s${i}` })).json.id as string);
  const streams = ids.map((id) => follow(`${web.baseUrl}/api/scenarios/${id}/events`));
  await Promise.all(streams.map((s) => s.until((e) => e.event === 'queued')));
  t.equal((await listeners()).length, 1, 'one listening connection for all streams');

  const worker = await stack.startWorker();
  t.teardown(() => worker.stop());
  // Kill it mid-calculation: the first scenario is running, the others are still queued.
  await streams[0].until((e) => e.event === 'running', 60_000);
  const [{ pid }] = await listeners();
  const killed = await stack.pool.query('SELECT pg_terminate_backend($1) AS ok', [pid]);
  t.equal(killed.rows[0].ok, true, 'listening connection terminated');

  for (const [i, s] of streams.entries()) {
    const end = await s.until((e) => e.event === 'succeeded', 90_000);
    t.same(
      s.events.map((e) => e.id),
      Array.from({ length: end.id }, (_, k) => k + 1),
      `stream ${i}: every event, in order, once`,
    );
  }
  const after = await waitUntil(
    async () => {
      const rows = await listeners();
      return rows.length === 1 && rows[0].pid !== pid ? rows : null;
    },
    { timeoutMs: 10_000, what: 'a new listening connection' },
  );
  t.equal(after.length, 1, 'exactly one listening connection again, a new one');
});
