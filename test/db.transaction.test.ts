// The two ways to run node-pg statements as a transaction (shared/transaction.ts): inTransaction
// commits what its function wrote or rolls all of it back, honours READ ONLY and its own statement
// timeout, and gives its connection back in step; inPipelinedTransaction does the same in one
// write, reports the first failure in order, and rolls back when COMMIT was never sent.
import t from 'tap';
import { createPool } from '../shared/db.ts';
import { inPipelinedTransaction, inTransaction } from '../shared/transaction.ts';
import { createTestDatabase } from './helpers/db.ts';

const db = await createTestDatabase();
const pool = createPool(db.url, { max: 1, applicationName: 'hourglass-transaction-test' });
const pipelined = createPool(db.url, { max: 1, applicationName: 'hourglass-transaction-test', pipeline: true });
t.teardown(async () => {
  await pool.end();
  await pipelined.end();
  await db.drop();
});
await db.pool.query('CREATE TABLE tx_probe (id int PRIMARY KEY)');

const ids = async () =>
  (await db.pool.query<{ id: number }>('SELECT id FROM tx_probe ORDER BY id')).rows.map((r) => r.id);
/** The one connection of a max-1 pool is usable and outside any transaction. */
const inStep = async (p: typeof pool) =>
  (await p.query<{ idle: boolean }>('SELECT now() = statement_timestamp() AS idle')).rows[0].idle;

t.beforeEach(async () => {
  await db.pool.query('TRUNCATE tx_probe');
});

t.test('inTransaction commits what fn wrote and returns its value', async (t) => {
  const value = await inTransaction(pool, async (tx) => {
    await tx.query('INSERT INTO tx_probe VALUES (1), (2)');
    return 'done';
  });
  t.equal(value, 'done');
  t.same(await ids(), [1, 2]);
  t.ok(await inStep(pool), 'the connection is back, outside a transaction');
});

t.test('inTransaction rolls everything back when fn throws, and rethrows its error', async (t) => {
  const thrown = new Error('refused after the insert');
  await t.rejects(
    inTransaction(pool, async (tx) => {
      await tx.query('INSERT INTO tx_probe VALUES (3)');
      throw thrown;
    }),
    thrown,
  );
  t.same(await ids(), []);
  t.ok(await inStep(pool));
});

t.test('inTransaction: a failed statement rolls back the statements before it', async (t) => {
  await t.rejects(
    inTransaction(pool, async (tx) => {
      await tx.query('INSERT INTO tx_probe VALUES (4)');
      await tx.query('INSERT INTO tx_probe VALUES (4)');
    }),
    { code: '23505' },
  );
  t.same(await ids(), []);
});

t.test('inTransaction { readOnly } refuses a write', async (t) => {
  await t.rejects(
    inTransaction(pool, (tx) => tx.query('INSERT INTO tx_probe VALUES (5)'), { readOnly: true }),
    { code: '25006' },
  );
  t.same(await ids(), []);
});

t.test('inTransaction { statementTimeoutMs } applies to its statements only', async (t) => {
  await t.rejects(
    inTransaction(pool, (tx) => tx.query('SELECT pg_sleep(2)'), { statementTimeoutMs: 100 }),
    { code: '57014' },
  );
  const { rows } = await pool.query<{ statement_timeout: string }>('SHOW statement_timeout');
  t.equal(rows[0].statement_timeout, '0', 'the connection keeps its own timeout afterwards');
});

t.test('inTransaction on a client the caller holds leaves it connected', async (t) => {
  const client = await pool.connect();
  try {
    await inTransaction(client, (tx) => tx.query('INSERT INTO tx_probe VALUES (6)'));
    t.same(await ids(), [6]);
    t.equal((await client.query<{ one: number }>('SELECT 1 AS one')).rows[0].one, 1);
  } finally {
    client.release();
  }
});

t.test('inPipelinedTransaction commits its statements and returns fn’s value', async (t) => {
  const value = await inPipelinedTransaction(pipelined, async (tx) => {
    const first = tx.query<{ id: number }>('INSERT INTO tx_probe VALUES ($1) RETURNING id', [7]);
    tx.query('INSERT INTO tx_probe VALUES ($1)', [8]);
    tx.commit();
    return (await first).rows[0].id;
  });
  t.equal(value, 7);
  t.same(await ids(), [7, 8]);
  t.ok(await inStep(pipelined));
});

t.test('inPipelinedTransaction reports the first failure in order and commits nothing', async (t) => {
  await t.rejects(
    inPipelinedTransaction(pipelined, async (tx) => {
      tx.query('INSERT INTO tx_probe VALUES ($1)', [9]);
      tx.query('INSERT INTO tx_probe VALUES ($1)', [9]);
      tx.query('SELECT 1 / 0');
      tx.commit();
    }),
    { code: '23505' },
  );
  t.same(await ids(), []);
  t.ok(await inStep(pipelined), 'the COMMIT became a ROLLBACK; the connection is in step');
});

t.test('inPipelinedTransaction rolls back when fn throws before commit()', async (t) => {
  const thrown = new Error('gave up before commit');
  await t.rejects(
    inPipelinedTransaction(pipelined, async (tx) => {
      tx.query('INSERT INTO tx_probe VALUES ($1)', [10]);
      throw thrown;
    }),
    thrown,
  );
  t.same(await ids(), []);
  t.ok(await inStep(pipelined));
});

t.test('inPipelinedTransaction refuses a statement after commit()', async (t) => {
  await t.rejects(
    inPipelinedTransaction(pipelined, async (tx) => {
      tx.commit();
      tx.query('INSERT INTO tx_probe VALUES ($1)', [11]);
    }),
    /no statement after commit/,
  );
  t.same(await ids(), []);
});
