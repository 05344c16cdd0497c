// The create transaction: the scenario, its `queued` event and its pg-boss job commit together or
// not at all. It runs on one pooled connection with every statement prepared (named): Postgres
// parses and plans the scenario insert and pg-boss's 3 kB job insert once per connection instead
// of on every create, which was most of a create's database time.
import { createHash } from 'node:crypto';
import type { Socket } from 'node:net';
import type pg from 'pg';
import type { Db as BossDb, PgBoss } from 'pg-boss';
import type { Config } from './config.ts';
import type { ScenarioRow } from './db.ts';
import { CALCULATE_QUEUE, calculateJobOptions } from './queue.ts';
import { INSERT_SCENARIO_SQL, type NewScenario, queuedScenarioRow } from './scenarios.repository.ts';

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

export interface CreateOptions {
  /** Called just before COMMIT is sent (the bench times commits from here). */
  beforeCommit?: () => void;
}

/**
 * Inserts the scenario, its first event and its calculation job in one transaction.
 *
 * On a client in node-pg's pipeline mode (the web's create pool), BEGIN, the scenario insert and
 * pg-boss's job insert go out in one write and are answered together, then COMMIT: two round
 * trips instead of four. On any other client the same statements simply run one after another.
 */
export async function createQueuedScenario(
  pool: pg.Pool,
  boss: PgBoss,
  config: Readonly<Config>,
  s: NewScenario,
  options: CreateOptions = {},
): Promise<ScenarioRow> {
  const client = await pool.connect();
  const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
  let corked = false;
  const uncork = () => {
    if (corked) {
      corked = false;
      socket.uncork();
    }
  };
  let committed = false;
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
    const db: BossDb = {
      executeSql(text, values) {
        const result = client.query({ name: statementName(text), text, values });
        uncork();
        return result;
      },
    };
    // pg-boss may fail before it sends anything: uncork then too, or BEGIN would never go out.
    const job = boss
      .send(CALCULATE_QUEUE, { scenario_id: s.id }, { ...calculateJobOptions(config, s.id), db })
      .finally(uncork);
    // Wait for all three: after a failed statement the rest fail too ("transaction is aborted"),
    // and the first failure in order is the one to report (the route looks for a unique violation).
    const [began, inserted, sent] = await Promise.allSettled([begin, insert, job]);
    for (const r of [began, inserted, sent]) if (r.status === 'rejected') throw r.reason;
    const createdAt = (inserted as PromiseFulfilledResult<pg.QueryResult<{ created_at: Date }>>).value.rows[0]
      .created_at;
    const jobId = (sent as PromiseFulfilledResult<string | null>).value;
    if (jobId !== s.id) throw new Error(`the calculation job for ${s.id} could not be queued`);
    options.beforeCommit?.();
    await client.query('COMMIT');
    committed = true;
    return queuedScenarioRow(s, createdAt);
  } finally {
    uncork();
    if (!committed) {
      // A connection that cannot even roll back is closed rather than lent out again.
      await client.query('ROLLBACK').catch((err: Error) => {
        broken = err;
      });
    }
    client.release(broken);
  }
}
