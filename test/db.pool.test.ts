// The pools of both processes (shared/db.ts createPool): a client lent out whose server connection
// is terminated between two of its queries must not crash the process with an unhandled 'error'
// (Postgres stopping sends every backend FATAL 57P01); the next query fails, and the pool drops the
// client when it comes back.
import t from 'tap';
import { createPool } from '../shared/db.ts';
import { createTestDatabase } from './helpers/db.ts';

const db = await createTestDatabase();
t.teardown(() => db.drop());

t.test('a lent client whose backend is terminated: no crash, the next query fails, the pool recovers', async (t) => {
  const pool = createPool(db.url, { max: 2, applicationName: 'hourglass-pool-test' });
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);
  process.on('uncaughtException', onUncaught);
  try {
    const client = await pool.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await db.pool.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    // The FATAL arrives while no query runs on the client.
    await new Promise((r) => setTimeout(r, 300));
    t.same(uncaught, [], 'no uncaught error');
    await t.rejects(client.query('SELECT 1'), 'the next query on it fails');
    client.release();
    const again = await pool.query<{ one: number }>('SELECT 1 AS one');
    t.equal(again.rows[0].one, 1, 'the pool gives a working client afterwards');
  } finally {
    process.off('uncaughtException', onUncaught);
    await pool.end();
  }
});
