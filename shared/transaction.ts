// The one transaction API: `transaction(db, fn)`. Its statements are kysely queries, in one of two
// modes:
// - plain (the default): kysely's own transaction, `fn(trx)` with a Transaction<Database>; each
//   statement waits for its answer, so fn may read before it writes. pg-boss joins it through
//   `fromKysely(trx)`.
// - pipelined (`{ pipelined: true }`, on a DbHandle with a pipeline pool): the same kysely queries,
//   compiled and queued, then sent with BEGIN and COMMIT in one write and answered together: one
//   round trip. Every statement is prepared (named by its text), so a connection parses and plans
//   it once. For the hot path where round trips are most of the cost (the scenario create, bench #4).
//
// Why two modes and not kysely's transaction for both: kysely runs a connection's queries one after
// another (each awaits the last) and awaits BEGIN before fn runs, so it cannot pipeline; and a
// pipelined statement's answer cannot be awaited before commit(). The pipelined mode therefore takes
// kysely's compiled queries and sends them itself; both modes share the table types, the queries,
// the rule that the first failure is thrown and the transaction rolled back, and the rule that a
// connection which cannot end its transaction is closed, not lent out again.
import type { CompiledQuery, Transaction } from 'kysely';
import type pg from 'pg';
import type { Db as BossDb } from 'pg-boss';
import { type Database, type Db, type DbHandle, type Query, statementName } from './db.ts';
import { socketOf } from './pg.internals.ts';

/** A transaction of the plain mode (kysely's). */
export type Tx = Transaction<Database>;

/** A transaction of the pipelined mode: statements are queued, and sent together by commit(). */
export interface PipelinedTx {
  /**
   * Queues a kysely query (or one compiled already: shared/db.ts precompiled); nothing is sent before commit(). Its rows once the batch is answered. A
   * failure is reported by transaction(), so the caller need not handle this promise's rejection.
   */
  execute<R>(query: Query<R> | CompiledQuery<R>): Promise<R[]>;
  /**
   * pg-boss's `db` option: its statement joins the batch. pg-boss awaits that statement's answer
   * before it returns, so whatever must follow it (more statements, commit()) goes in `then`,
   * which runs as soon as the statement is queued.
   */
  boss(then: () => void): BossDb;
  /** Queues COMMIT behind everything queued so far and sends the batch. Later statements are refused. */
  commit(): void;
}

export function transaction<T>(db: Db, fn: (trx: Tx) => Promise<T>): Promise<T>;
export function transaction<T>(
  db: DbHandle,
  fn: (tx: PipelinedTx) => Promise<T>,
  options: { pipelined: true },
): Promise<T>;
/**
 * Runs `fn` in one transaction: COMMIT when it returns, ROLLBACK when it (or a statement) fails, and
 * the first failure thrown. Plain mode: kysely's transaction on a connection of the main pool.
 * Pipelined mode: see pipelined().
 */
export function transaction<T>(
  db: Db | DbHandle,
  // biome-ignore lint/suspicious/noExplicitAny: the overloads above type fn by mode
  fn: (tx: any) => Promise<T>,
  options?: { pipelined: true },
): Promise<T> {
  if (options?.pipelined) {
    const pipelinePool = 'pipelinePool' in db ? db.pipelinePool : null;
    if (!pipelinePool) throw new Error('a pipelined transaction needs a handle opened with { pipelined: true }');
    return pipelined(db, pipelinePool, fn);
  }
  return db.transaction().execute(fn);
}

/**
 * The pipelined mode: BEGIN, the statements `fn` queues and COMMIT go out in one write (on a
 * connection of node-pg's pipeline mode) and are answered together. A statement that fails aborts
 * the transaction, so the COMMIT behind it rolls back (its command tag says ROLLBACK); the first
 * failure in order is thrown (fn's own only when every statement succeeded). When `fn` throws
 * before commit() (or never calls it), the transaction rolls back. fn must not wait for a
 * statement's answer before it calls commit(): nothing is sent until then.
 */
async function pipelined<T>(kysely: Db, pool: pg.Pool, fn: (tx: PipelinedTx) => Promise<T>): Promise<T> {
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
  const queue = (text: string, values: readonly unknown[]) => {
    if (commit) throw new Error('a pipelined transaction takes no statement after commit()');
    return send({ name: statementName(text), text, values: values as unknown[] });
  };
  const tx: PipelinedTx = {
    execute<R>(query: Query<R> | CompiledQuery<R>) {
      const compiled: CompiledQuery<R> = 'sql' in query ? query : query.compile(kysely);
      const rows = queue(compiled.sql, compiled.parameters).then((r) => r.rows as R[]);
      // As for the statement's own promise: its failure is reported by transaction().
      rows.catch(() => {});
      return rows;
    },
    boss: (then) => ({
      executeSql(text, values) {
        const result = queue(text, values ?? []);
        then();
        return result;
      },
    }),
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
