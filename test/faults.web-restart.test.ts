// The web process restarts under open SSE clients: their streams end, the clients (a real
// EventSource) reconnect by themselves to the new process with Last-Event-ID, and every later
// event arrives exactly once. Calculations go on in the worker meanwhile.
import t from 'tap';
import { eventLog, scenarioProblems, waitForEvent } from './helpers/faults.ts';
import { DEFAULT_SCENARIO, getJson, postScenario } from './helpers/http.ts';
import { slowEngine } from './helpers/processes.ts';
import type { Follower } from './helpers/sse.ts';
import { startStack } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const stack = await startStack({ web: false });
t.teardown(() => stack.stop());

t.test('SSE clients reconnect to the restarted web with Last-Event-ID and miss nothing', async (t) => {
  // A 1 s grace: the old process ends its streams soon after SIGTERM.
  const webEnv = { SHUTDOWN_GRACE_SECONDS: '1' };
  const first = await stack.startWeb(webEnv);
  // Long enough that the first scenario is still running when the new web is up.
  await stack.startWorker({}, slowEngine(8000));

  const ids: string[] = [];
  for (const name of ['running during the restart', 'queued during the restart']) {
    ids.push((await postScenario(first.baseUrl, { ...DEFAULT_SCENARIO, name })).json.id as string);
  }
  // Two clients per scenario, one from the start, one joined late (it begins after event 1).
  const clients: Array<{ id: string; stream: Follower; from: number; ended: () => number }> = [];
  for (const id of ids) {
    for (const from of [0, 1]) {
      const stream = stack.follow(`/api/scenarios/${id}/events`, from ? { lastEventId: from } : {});
      let errors = 0;
      stream.source.addEventListener('error', () => {
        errors++;
      });
      clients.push({ id, stream, from, ended: () => errors });
    }
  }
  await waitForEvent(stack.pool, ids[0], (e) => e.name === 'progress', 30_000, 'progress');
  await waitUntil(async () => clients.every((c) => c.stream.source.readyState === 1), {
    timeoutMs: 10_000,
    what: 'every stream open',
  });

  t.equal(await first.stop('SIGTERM'), 0, 'the old web exits 0');
  await waitUntil(async () => clients.every((c) => c.ended() > 0), { timeoutMs: 10_000, what: 'every stream to end' });
  t.pass('every stream ended with the old process');
  const seenBefore = clients.map((c) => c.stream.events.length);

  const second = await stack.startWeb({ ...webEnv, PORT: String(first.port) });
  t.equal((await getJson(`${second.baseUrl}/readyz`)).status, 200);

  for (const [i, c] of clients.entries()) {
    const end = await c.stream.until((e) => e.event === 'succeeded' || e.event === 'failed', 90_000);
    t.equal(end.event, 'succeeded');
    t.same(
      c.stream.events.map((e) => e.id),
      Array.from({ length: end.id - c.from }, (_, k) => c.from + k + 1),
      `client ${i}: every event after ${c.from}, once, in order, across the restart (${seenBefore[i]} before it)`,
    );
    const log = await eventLog(stack.pool, c.id);
    t.same(
      c.stream.events.map((e) => e.event),
      log.filter((e) => e.seq > c.from).map((e) => e.name),
      `client ${i}: the same events as the database`,
    );
  }
  t.ok(
    clients.some((c, i) => seenBefore[i] < c.stream.events.length && seenBefore[i] > 1),
    'some client received events both before and after the restart',
  );
  t.same(await scenarioProblems(stack.pool, { ids }), []);

  // A client that was not connected when the events happened resumes from any id.
  const log = await eventLog(stack.pool, ids[0]);
  const mid = log[Math.floor(log.length / 2)].seq;
  // The stack's URL is the first web's, which the second now serves on the same port.
  const late = stack.follow(`/api/scenarios/${ids[0]}/events`, { lastEventId: mid });
  const end = await late.until((e) => e.event === 'succeeded');
  t.same(
    late.events.map((e) => e.id),
    log.filter((e) => e.seq > mid).map((e) => e.seq),
  );
  t.equal(end.id, log.at(-1)?.seq);
});
