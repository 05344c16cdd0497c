// Many streams on one scenario share their reads; each still gets every event once, in order.
import t from 'tap';
import { DEFAULT_SCENARIO, postScenario } from './helpers/http.ts';
import { slowEngine } from './helpers/processes.ts';
import { follow } from './helpers/sse.ts';
import { startStack } from './helpers/stack.ts';

const stack = await startStack();
const { web } = stack;
t.teardown(() => stack.stop());

t.test('200 streams on one scenario, opened before and during the calculation', async (t) => {
  const id = (await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: 'fan-out' })).json.id as string;
  const url = `${web.baseUrl}/api/scenarios/${id}/events`;
  const early = Array.from({ length: 150 }, () => follow(url));
  await Promise.all(early.map((s) => s.until((e) => e.event === 'queued')));
  const worker = await stack.startWorker();
  t.teardown(() => worker.stop());
  await early[0].until((e) => e.event === 'running', 60_000);
  const late = Array.from({ length: 50 }, () => follow(url));
  const all = [...early, ...late];
  const ends = await Promise.all(all.map((s) => s.until((e) => e.event === 'succeeded', 60_000)));
  const last = ends[0].id;
  t.ok(
    ends.every((e) => e.id === last),
    'every stream ends on the same event',
  );
  const expected = Array.from({ length: last }, (_, i) => i + 1);
  t.ok(
    all.every((s) => s.events.map((e) => e.id).join() === expected.join()),
    'every stream got every event once, in order',
  );
});

t.test('streams of one scenario resumed from different events each get exactly what follows theirs', async (t) => {
  const id = (await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: 'mixed resume' })).json.id as string;
  const url = `${web.baseUrl}/api/scenarios/${id}/events`;
  // A calculation stretched to a few seconds, so the streams below open while it runs.
  const worker = await stack.startWorker({}, slowEngine(3000));
  t.teardown(() => worker.stop());
  const first = follow(url);
  await first.until((e) => e.event === 'progress' && e.id >= 6, 60_000);
  const froms = [0, 1, 2, 5, 6, 3, 0, 4];
  const resumed = froms.map((from) => ({ from, stream: follow(`${url}?last_event_id=${from}`) }));
  const ends = await Promise.all(
    [first, ...resumed.map((r) => r.stream)].map((s) => s.until((e) => e.event === 'succeeded', 60_000)),
  );
  const last = ends[0].id;
  t.ok(
    ends.every((e) => e.id === last),
    'every stream ends on the same event',
  );
  for (const { from, stream } of resumed) {
    const expected = Array.from({ length: last - from }, (_, i) => from + i + 1);
    t.same(
      stream.events.map((e) => e.id),
      expected,
      `resumed after ${from}: every later event once, in order`,
    );
  }
});
