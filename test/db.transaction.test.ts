// The one transaction API (shared/transaction.ts `transaction`): in its plain mode (kysely's
// transaction) and its pipelined mode (kysely queries compiled, prepared and sent in one write) it
// commits what its function wrote or rolls all of it back, throws the first failure in order, and
// gives its connection back in step.
import { sql } from 'kysely';
import t from 'tap';
import { openDb, precompiled } from '../shared/db.ts';
import { transaction } from '../shared/transaction.ts';
import { createTestDatabase } from './helpers/db.ts';

const db = await createTestDatabase();
const handle = openDb(db.url, { max: 1, applicationName: 'hourglass-transaction-test', pipelined: true });
const plainOnly = openDb(db.url, { max: 1, applicationName: 'hourglass-transaction-test' });
t.teardown(async () => {
  await handle.close();
  await plainOnly.close();
  await db.drop();
});
await db.pool.query('CREATE TABLE tx_probe (id int PRIMARY KEY)');

const insert = (id: number) => sql<{ id: number }>`INSERT INTO tx_probe VALUES (${id}) RETURNING id`;
const ids = async () =>
  (await db.pool.query<{ id: number }>('SELECT id FROM tx_probe ORDER BY id')).rows.map((r) => r.id);
/** The one connection of a max-1 pool is usable and outside any transaction. */
const inStep = async (p: typeof db.pool) =>
  (await p.query<{ idle: boolean }>('SELECT now() = statement_timestamp() AS idle')).rows[0].idle;
const pipelinePool = handle.pipelinePool as NonNullable<typeof handle.pipelinePool>;

t.beforeEach(async () => {
  await db.pool.query('TRUNCATE tx_probe');
});

t.test('plain: commits what fn wrote and returns its value', async (t) => {
  const value = await transaction(handle, async (trx) => {
    await insert(1).execute(trx);
    return 'done';
  });
  t.equal(value, 'done');
  await transaction(handle, (trx) => insert(2).execute(trx));
  t.same(await ids(), [1, 2]);
  t.ok(await inStep(handle.pool), 'the connection is back, outside a transaction');
});

t.test('plain: rolls everything back when fn throws, and rethrows its error', async (t) => {
  const thrown = new Error('refused after the insert');
  await t.rejects(
    transaction(handle, async (trx) => {
      await insert(3).execute(trx);
      throw thrown;
    }),
    thrown,
  );
  t.same(await ids(), []);
  t.ok(await inStep(handle.pool));
});

t.test('plain: a failed statement rolls back the statements before it', async (t) => {
  await t.rejects(
    transaction(handle, async (trx) => {
      await insert(4).execute(trx);
      await insert(4).execute(trx);
    }),
    { code: '23505' },
  );
  t.same(await ids(), []);
});

t.test('pipelined: commits its statements, prepared, and returns fn’s value', async (t) => {
  const value = await transaction(
    handle,
    async (tx) => {
      const first = tx.execute(insert(7));
      tx.execute(insert(8));
      tx.commit();
      return (await first)[0].id;
    },
    { pipelined: true },
  );
  t.equal(value, 7);
  t.same(await ids(), [7, 8]);
  t.ok(await inStep(pipelinePool));
  const { rows } = await pipelinePool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'hg\\_%' AND statement LIKE 'INSERT INTO tx_probe%'`,
  );
  t.equal(rows[0].n, 1, 'the insert is one prepared statement on the connection, used twice');
});

t.test('pipelined: reports the first failure in order and commits nothing', async (t) => {
  await t.rejects(
    transaction(
      handle,
      async (tx) => {
        tx.execute(insert(9));
        tx.execute(insert(9));
        tx.execute(sql`SELECT 1 / 0`);
        tx.commit();
      },
      { pipelined: true },
    ),
    { code: '23505' },
  );
  t.same(await ids(), []);
  t.ok(await inStep(pipelinePool), 'the COMMIT became a ROLLBACK; the connection is in step');
});

t.test('pipelined: rolls back when fn throws before commit()', async (t) => {
  const thrown = new Error('gave up before commit');
  await t.rejects(
    transaction(
      handle,
      async (tx) => {
        tx.execute(insert(10));
        throw thrown;
      },
      { pipelined: true },
    ),
    thrown,
  );
  t.same(await ids(), []);
  t.ok(await inStep(pipelinePool));
});

t.test('pipelined: refuses a statement after commit()', async (t) => {
  await t.rejects(
    transaction(
      handle,
      async (tx) => {
        tx.commit();
        tx.execute(insert(11));
      },
      { pipelined: true },
    ),
    /no statement after commit/,
  );
  t.same(await ids(), []);
});

t.test('pipelined: a precompiled query is compiled once and bound to each call’s values', async (t) => {
  let builds = 0;
  const probe = precompiled((_db, a: { id: number }) => {
    builds++;
    return sql<{ id: number }>`INSERT INTO tx_probe VALUES (${a.id}) RETURNING id`;
  });
  const first = probe(handle, { id: 14 });
  const second = probe(handle, { id: 15 });
  t.equal(builds, 1, 'built once for this Db');
  t.equal(first.sql, second.sql);
  t.same([first.parameters, second.parameters], [[14], [15]]);
  const value = await transaction(
    handle,
    async (tx) => {
      const rows = tx.execute(first);
      tx.execute(second);
      tx.commit();
      return (await rows)[0].id;
    },
    { pipelined: true },
  );
  t.equal(value, 14);
  t.same(await ids(), [14, 15]);
  const serializedInside = precompiled((_db, a: { v: unknown }) => sql`SELECT ${JSON.stringify(a.v)}`);
  t.throws(() => serializedInside(handle, { v: 1 }), /did not reach the query as a parameter/);
});

t.test('pipelined: pg-boss’s statement joins the batch, and `then` queues what follows it', async (t) => {
  const value = await transaction(
    handle,
    async (tx) => {
      const bossDb = tx.boss(() => {
        tx.execute(insert(13));
        tx.commit();
      });
      const { rows } = await bossDb.executeSql('INSERT INTO tx_probe VALUES ($1) RETURNING id', [12]);
      return rows[0].id;
    },
    { pipelined: true },
  );
  t.equal(value, 12);
  t.same(await ids(), [12, 13]);
});

t.test('pipelined: refused on a handle without a pipeline pool', async (t) => {
  t.throws(() => transaction(plainOnly, async (tx) => tx.commit(), { pipelined: true }), /pipelined: true/);
});
