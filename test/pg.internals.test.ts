// node-pg's internals that shared/pg.internals.ts names, against a real Postgres and the pinned
// `pg`: each must still be where it was, or this fails before production code misbehaves quietly.
import { Socket } from 'node:net';
import pg from 'pg';
import t from 'tap';
import { hasQueryInFlight, type PgConnection, socketOf, submit } from '../shared/pg.internals.ts';
import { createTestDatabase } from './helpers/db.ts';

const db = await createTestDatabase();
t.teardown(() => db.drop());

t.test('pg is the pinned version', async (t) => {
  const pkg = (await import('../package.json', { with: { type: 'json' } })).default as {
    dependencies: Record<string, string>;
  };
  const installed = (await import('../node_modules/pg/package.json', { with: { type: 'json' } })).default as {
    version: string;
  };
  t.match(pkg.dependencies.pg, /^\d+\.\d+\.\d+$/, 'an exact version, no range');
  t.equal(installed.version, pkg.dependencies.pg, 'the installed pg is the pinned one');
});

t.test('hasQueryInFlight: true while a query runs, false once it is answered', async (t) => {
  const client = await db.pool.connect();
  try {
    t.equal(hasQueryInFlight(client), false, 'idle');
    const running = client.query('SELECT pg_sleep(0.3)');
    t.equal(hasQueryInFlight(client), true, 'sent, not answered');
    await running;
    t.equal(hasQueryInFlight(client), false, 'answered');
  } finally {
    client.release();
  }
});

t.test('socketOf: the connected socket; corked, a query waits until uncork', async (t) => {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const socket = socketOf(client);
    t.ok(socket instanceof Socket, 'a net.Socket');
    t.equal(socket.remotePort, Number(new URL(db.url).port || 5432), 'connected to the server');
    socket.cork();
    const answer = client.query('SELECT 1 AS one');
    t.ok(socket.writableLength > 0, 'the query is held in the corked socket');
    socket.uncork();
    t.same((await answer).rows, [{ one: 1 }], 'sent on uncork, answered');
  } finally {
    await client.end();
  }
});

t.test('submit: node-pg drives a submittable through its messages', async (t) => {
  const client = await db.pool.connect();
  try {
    const seen: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const query = {
        submit(connection: PgConnection) {
          t.ok(connection.stream instanceof Socket, 'submit() gets the connection, its socket as stream');
          connection.query("SELECT 'x' AS v");
        },
        handleRowDescription: () => seen.push('row description'),
        handleDataRow: () => seen.push('data row'),
        handleCommandComplete: () => seen.push('command complete'),
        handleReadyForQuery: () => resolve(),
        handleError: (err: Error) => reject(err),
        handleEmptyQuery: () => {},
        handlePortalSuspended: () => {},
      };
      submit(client, query);
    });
    await done;
    t.same(seen, ['row description', 'data row', 'command complete'], 'each message handed over, in order');
    t.same((await client.query('SELECT 2 AS two')).rows, [{ two: 2 }], 'the client is usable afterwards');
  } finally {
    client.release();
  }
});
