// Transactions of node-pg statements, the two ways there are (kysely statements use kysely's
// `db.transaction()`): inTransaction runs BEGIN, the caller's statements and COMMIT one after
// another (ROLLBACK when they throw); inPipelinedTransaction sends them all in one write, for the
// hot path where a transaction's round trips are most of its cost (the scenario create).
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Db as BossDb } from 'pg-boss';
import { socketOf } from './pg.internals.ts';

interface TransactionOptions {
  /** BEGIN READ ONLY: a read that must not write (a long list). */
  readOnly?: boolean;
  /** This transaction's statement_timeout (SET LOCAL), instead of the pool's. */
  statementTimeoutMs?: number;
}

/**
 * Runs `fn` in one transaction on a connection of `pool` (released afterwards), or on a client
 * the caller holds. A pooled connection that cannot even roll back is closed rather than lent out
 * again (one given back with a query still in flight is closed by the pool; see shared/db.ts).
 */
export async function inTransaction<T>(
  on: pg.Pool | pg.ClientBase,
  fn: (client: pg.ClientBase) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  const pooled = 'totalCount' in on;
  const client = pooled ? await on.connect() : on;
  let broken: Error | undefined;
  try {
    await client.query(options.readOnly ? 'BEGIN READ ONLY' : 'BEGIN');
    if (options.statementTimeoutMs !== undefined) {
      await client.query(`SET LOCAL statement_timeout = ${Math.round(options.statementTimeoutMs)}`);
    }
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackErr: Error) => {
      broken = rollbackErr;
    });
    throw err;
  } finally {
    if (pooled) (client as pg.PoolClient).release(broken);
  }
}

/** pg-boss's `db` option on a connection in a transaction: its SQL joins the caller's transaction. */
export const bossOn = (client: pg.ClientBase): BossDb => ({
  executeSql: (text, values) => client.query(text, values),
});

/** A transaction whose statements are queued and sent together (inPipelinedTransaction). */
interface Pipeline {
  /**
   * Queues a statement; nothing is sent before commit(). It is prepared (named by its text), so a
   * connection parses and plans it once. Settled in order once the batch is answered; a failure
   * is reported by inPipelinedTransaction, so the caller need not handle this promise's rejection.
   */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  /** Queues COMMIT behind everything queued so far and sends the batch. Later queries are refused. */
  commit(): void;
}

/** Prepared-statement names by statement text (pg-boss builds the same text for a queue each time). */
const statementNames = new Map<string, string>();
let lastStatement = { text: '', name: '' };

function statementName(text: string): string {
  // The same text as last time is the common case: a string compare, not hashing 3 kB again.
  if (text === lastStatement.text) return lastStatement.name;
  let name = statementNames.get(text);
  if (!name) {
    name = `hg_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    if (statementNames.size > 100) statementNames.clear();
    statementNames.set(text, name);
  }
  lastStatement = { text, name };
  return name;
}

/**
 * A transaction in one round trip: BEGIN, the statements `fn` queues and COMMIT go out in one
 * write (on a connection of node-pg's pipeline mode; on any other they run one after another) and
 * are answered together. A statement that fails aborts the transaction, so the COMMIT behind it
 * rolls back (its command tag says ROLLBACK); the first failure in order is thrown (fn's own only
 * when every statement succeeded). When `fn` throws before commit() (or never calls it), the
 * transaction rolls back. fn must not wait for a statement's answer before it calls commit():
 * nothing is sent until then.
 *
 * Why not inTransaction: its statements wait for each other, a round trip each; the create's hot
 * path (bench #4) sends its five in one.
 */
export async function inPipelinedTransaction<T>(pool: pg.Pool, fn: (tx: Pipeline) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const socket = socketOf(client);
  socket.cork();
  let corked = true;
  const uncork = () => {
    if (corked) {
      corked = false;
      socket.uncork();
    }
  };
  const sent: Array<Promise<pg.QueryResult>> = [];
  const send = (config: pg.QueryConfig) => {
    const result = client.query(config);
    // Settled below, in order; until then a rejection must not count as unhandled.
    result.catch(() => {});
    sent.push(result);
    return result;
  };
  // Set once COMMIT is on its way: the transaction then ends either way (committed or rolled back).
  let commit: Promise<pg.QueryResult> | undefined;
  const tx: Pipeline = {
    query(text, values) {
      if (commit) throw new Error('a pipelined transaction takes no statement after commit()');
      return send({ name: statementName(text), text, values }) as Promise<pg.QueryResult<never>>;
    },
    commit() {
      commit ??= send({ text: 'COMMIT' });
      uncork();
    },
  };
  let broken: Error | undefined;
  try {
    send({ text: 'BEGIN' });
    const outcome = await fn(tx).then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    // fn may have failed before it sent anything: uncork then too, or BEGIN would never go out.
    uncork();
    // The first failure in order is the one to report: after a failed statement the rest fail too
    // ("current transaction is aborted"), and so may whatever fn awaited.
    for (const r of await Promise.allSettled(sent)) if (r.status === 'rejected') throw r.reason;
    if (!outcome.ok) throw outcome.error;
    if (!commit) throw new Error('a pipelined transaction ended without commit()');
    if ((await commit).command !== 'COMMIT') throw new Error('the transaction rolled back');
    return outcome.value;
  } finally {
    uncork();
    if (!commit) {
      // A connection that cannot even roll back is closed rather than lent out again.
      await Promise.allSettled(sent);
      await client.query('ROLLBACK').catch((err: Error) => {
        broken = err;
      });
    } else {
      // Whatever happened, the COMMIT (or the ROLLBACK it became) ended the transaction; a
      // connection whose COMMIT got no answer is out of step and is closed.
      await commit.catch((err: Error & { code?: unknown }) => {
        // A server's error answer (a SQLSTATE) leaves the connection usable; anything else does not.
        if (typeof err.code !== 'string') broken = err;
      });
    }
    client.release(broken);
  }
}
