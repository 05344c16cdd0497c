// sql/0011_kpis.sql: a scenario's key figures are `kpis` everywhere. What a database stored before
// it (a finished scenario's list item, its `succeeded` event) says `summary`; after it, both say
// `kpis`, with the same figures, and every other field as it was. Run again, it changes nothing.
import t from 'tap';
import { applyMigration, createTestDatabase } from './helpers/db.ts';

const db = await createTestDatabase();
t.teardown(() => db.drop());

const ID = '01936f3e-0000-7000-8000-0000000000d1';
const KPIS = { equity_npv: 12.5, equity_irr: 0.0812, lcoe_real_per_mwh: 31.25 };

const migrate = () => applyMigration(db.pool, '0011_kpis.sql');

async function stored(): Promise<{ item: Record<string, unknown>; event: Record<string, unknown> }> {
  const { rows } = await db.pool.query<{ list_json: string; data: Record<string, unknown> }>(
    `SELECT s.list_json, e.data FROM scenarios s JOIN scenario_events e ON e.scenario_id = s.id AND e.name = 'succeeded'
      WHERE s.id = $1`,
    [ID],
  );
  return { item: JSON.parse(rows[0].list_json), event: rows[0].data };
}

t.test('a stored list item and succeeded event say kpis after the migration', async (t) => {
  await db.pool.query(
    `INSERT INTO scenarios (id, name, status, progress, attempt, inputs, summary, last_seq, workspace,
                            started_at, finished_at)
     VALUES ($1, 'stored before 0011', 'succeeded', 1, 1, '{}', $2, 2, 'default',
             '2026-11-01T10:00:00.123Z', '2026-11-01T10:00:02.5Z')`,
    [ID, JSON.stringify(KPIS)],
  );
  await db.pool.query(
    `INSERT INTO scenario_events (scenario_id, seq, name, data)
     VALUES ($1, 1, 'queued', '{}'), ($1, 2, 'succeeded', $2)`,
    [ID, JSON.stringify({ summary: KPIS, statements_url: `/api/scenarios/${ID}/statements` })],
  );
  // The list item as sql/0005's scenario_list_json stored it: `summary` where 0011 says `kpis`.
  const now = JSON.parse((await db.pool.query<{ j: string }>('SELECT list_json AS j FROM scenarios')).rows[0].j);
  const { kpis, ...rest } = now;
  const before = { ...rest, summary: kpis };
  await db.pool.query(
    `BEGIN; SET LOCAL session_replication_role = replica;
     UPDATE scenarios SET list_json = '${JSON.stringify(before)}' WHERE id = '${ID}'; COMMIT`,
  );
  t.same((await stored()).item, before, 'the database holds the old list item');
  t.same((await stored()).event.summary, KPIS, 'and the old succeeded event');

  await migrate();
  const after = await stored();
  t.same(after.item, { ...rest, kpis: KPIS }, 'the list item: kpis, every other field as it was');
  t.notOk('summary' in after.item, 'no summary in the list item');
  t.equal(after.item.started_at, '2026-11-01T10:00:00.123Z', 'timestamps as toISOString writes them');
  t.equal(after.item.finished_at, '2026-11-01T10:00:02.500Z');
  t.same(
    after.event,
    { kpis: KPIS, statements_url: `/api/scenarios/${ID}/statements` },
    'the succeeded event: kpis, and its link',
  );

  await migrate();
  t.same(await stored(), after, 'run again, it changes nothing');
});
