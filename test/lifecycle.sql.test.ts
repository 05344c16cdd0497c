// The SQL's lists and the TypeScript's are one: each CHECK constraint on a status or an event name,
// as the migrated database holds it, accepts exactly the values of its list in shared/lifecycle.ts.
// A value added on one side only fails here, not in production.
import t from 'tap';
import {
  OPTIMIZATION_EVENTS,
  OPTIMIZATION_STATUSES,
  SCENARIO_EVENTS,
  SCENARIO_STATUSES,
  SWEEP_EVENTS,
} from '../shared/lifecycle.ts';
import { createTestDatabase } from './helpers/db.ts';

const db = await createTestDatabase();
t.teardown(() => db.drop());

/** The values a table's CHECK constraints allow in `column` (`column IN (…)`, as Postgres prints it). */
async function allowed(table: string, column: string): Promise<string[]> {
  const { rows } = await db.pool.query<{ def: string }>(
    `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint
     WHERE conrelid = $1::regclass AND contype = 'c'`,
    [table],
  );
  const mine = rows.map((r) => r.def).filter((def) => new RegExp(`\\(${column}\\s*=\\s*ANY`).test(def));
  t.equal(mine.length, 1, `${table}.${column} has one list constraint`);
  return [...(mine[0] ?? '').matchAll(/'([^']*)'::text/g)].map((m) => m[1]).sort();
}

const cases: Array<[string, string, readonly string[]]> = [
  ['scenarios', 'status', SCENARIO_STATUSES],
  ['scenario_events', 'name', SCENARIO_EVENTS],
  ['sweep_events', 'name', SWEEP_EVENTS],
  ['optimizations', 'status', OPTIMIZATION_STATUSES],
  ['optimization_events', 'name', OPTIMIZATION_EVENTS],
];

for (const [table, column, list] of cases) {
  t.test(`${table}.${column}: the SQL allows exactly shared/lifecycle.ts's list`, async (t) => {
    t.same(await allowed(table, column), [...list].sort());
  });
}
