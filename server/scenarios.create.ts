// The create transaction: the scenario, its `queued` event and its pg-boss job commit together or
// not at all. It runs on one pooled connection with every statement prepared (named): Postgres
// parses and plans the scenario insert and pg-boss's 3 kB job insert once per connection instead
// of on every create, which was most of a create's database time; and in one round trip.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Db as BossDb, PgBoss } from 'pg-boss';
import type { Config } from '../shared/config.ts';
import type { ScenarioRow } from '../shared/db.ts';
import { socketOf } from '../shared/pg.internals.ts';
import { CALCULATE_QUEUE, calculateJobOptions } from '../shared/queue.ts';
import { INSERT_SCENARIO_SQL, type NewScenario, queuedScenarioRow } from '../shared/scenarios.repository.ts';

/** Prepared-statement names by statement text (pg-boss builds the same text for a queue each time). */
const names = new Map<string, string>();

let last = { text: '', name: '' };

function statementName(text: string): string {
  // The same text as last time is the common case: a string compare, not hashing 3 kB again.
  if (text === last.text) return last.name;
  let name = names.get(text);
  if (!name) {
    name = `hg_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    if (names.size > 100) names.clear();
    names.set(text, name);
  }
  last = { text, name };
  return name;
}

/** pg-boss's `db` option (what fromKysely adapts): its SQL on our connection, as named statements. */
export function preparedOn(client: pg.PoolClient): BossDb {
  return {
    executeSql: (text, values) => client.query({ name: statementName(text), text, values }),
  };
}

/**
 * Fails (division by zero) unless the job exists: with COMMIT sent behind the job insert, this is
 * what keeps a scenario from committing without its job should pg-boss insert nothing.
 * $1, $2: queue name, job id. Reads pgboss.job, never writes it.
 */
const JOB_EXISTS_SQL = 'SELECT 1 / count(*)::int AS ok FROM pgboss.job WHERE name = $1 AND id = $2';

/**
 * Inserts the scenario, its first event and its calculation job in one transaction.
 *
 * On a client in node-pg's pipeline mode (the web's create pool), BEGIN, the scenario insert,
 * pg-boss's job insert, a check that the job exists and COMMIT go out in one write and are answered
 * together: one round trip instead of four. A statement that fails aborts the transaction, so the
 * COMMIT behind it rolls back (its command tag says ROLLBACK) and the first failure is reported.
 * On any other client the same statements simply run one after another.
 */
export async function createQueuedScenario(
  pool: pg.Pool,
  boss: PgBoss,
  config: Readonly<Config>,
  s: NewScenario,
): Promise<ScenarioRow> {
  const client = await pool.connect();
  const socket = socketOf(client);
  let corked = false;
  const uncork = () => {
    if (corked) {
      corked = false;
      socket.uncork();
    }
  };
  // Set once COMMIT is on its way: the transaction then ends either way (committed or rolled back).
  let commit: Promise<pg.QueryResult> | undefined;
  let broken: Error | undefined;
  try {
    socket.cork();
    corked = true;
    const begin = client.query('BEGIN');
    const insert = client.query<{ created_at: Date }>({
      name: statementName(INSERT_SCENARIO_SQL),
      text: INSERT_SCENARIO_SQL,
      values: [s.id, s.name, JSON.stringify(s.inputs), s.idempotencyKey, s.requestHash],
    });
    // Settled below, in order, after pg-boss's send; until then a rejection must not count as unhandled.
    begin.catch(() => {});
    insert.catch(() => {});
    let check: Promise<pg.QueryResult> | undefined;
    const db: BossDb = {
      executeSql(text, values) {
        const result = client.query({ name: statementName(text), text, values });
        if (!commit) {
          check = client.query({ name: 'hg_job_exists', text: JOB_EXISTS_SQL, values: [CALCULATE_QUEUE, s.id] });
          commit = client.query('COMMIT');
          check.catch(() => {});
          commit.catch(() => {});
        }
        uncork();
        return result;
      },
    };
    // pg-boss may fail before it sends anything: uncork then too, or BEGIN would never go out.
    const job = boss
      .send(CALCULATE_QUEUE, { scenario_id: s.id }, { ...calculateJobOptions(config, s.id), db })
      .finally(uncork);
    // Wait for all: after a failed statement the rest fail too ("transaction is aborted"), and the
    // first failure in order is the one to report (the route looks for a unique violation).
    // pg-boss sends its insert (and with it the check and COMMIT) only after an await of its own.
    await job.then(
      () => {},
      () => {},
    );
    const settled = await Promise.allSettled([begin, insert, job, check, commit]);
    for (const r of settled.slice(0, 3)) if (r.status === 'rejected') throw r.reason;
    const notQueued = new Error(`the calculation job for ${s.id} could not be queued`);
    // pg-boss inserted nothing: the check failed, and the COMMIT rolled back.
    if ((settled[2] as PromiseFulfilledResult<string | null>).value !== s.id) throw notQueued;
    for (const r of settled.slice(3)) if (r.status === 'rejected') throw r.reason;
    if ((settled[4] as PromiseFulfilledResult<pg.QueryResult | undefined>).value?.command !== 'COMMIT') throw notQueued;
    const createdAt = (settled[1] as PromiseFulfilledResult<pg.QueryResult<{ created_at: Date }>>).value.rows[0]
      .created_at;
    return queuedScenarioRow(s, createdAt);
  } finally {
    uncork();
    if (!commit) {
      // A connection that cannot even roll back is closed rather than lent out again.
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
