// Many streams on one scenario share their reads; each still gets every event once, in order.
import t from 'tap';
import { createTestDatabase } from './helpers/db.ts';
import { DEFAULT_SCENARIO, postScenario } from './helpers/http.ts';
import { startWeb, startWorker } from './helpers/processes.ts';
import { follow } from './helpers/sse.ts';

const db = await createTestDatabase();
const web = await startWeb(db.url);
t.teardown(async () => {
  await web.stop();
  await db.drop();
});

t.test('200 streams on one scenario, opened before and during the calculation', async (t) => {
  const id = (await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: 'fan-out' })).json.id as string;
  const url = `${web.baseUrl}/api/scenarios/${id}/events`;
  const early = Array.from({ length: 150 }, () => follow(url));
  await Promise.all(early.map((s) => s.until((e) => e.event === 'queued')));
  const worker = await startWorker(db.url);
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
