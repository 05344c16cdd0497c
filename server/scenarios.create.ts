// The create transaction: the scenario, its `queued` event and its pg-boss job commit together or
// not at all. It is a pipelined transaction (shared/transaction.ts inPipelinedTransaction): every
// statement prepared (Postgres parses and plans the scenario insert and pg-boss's 3 kB job insert
// once per connection instead of on every create, which was most of a create's database time),
// and all of them sent in one round trip.
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import type { Config } from '../shared/config.ts';
import type { ScenarioRow } from '../shared/db.ts';
import { CALCULATE_QUEUE, calculateJobOptions } from '../shared/queue.ts';
import { inPipelinedTransaction } from '../shared/transaction.ts';
import {
  INSERT_SCENARIO_SQL,
  insertScenarioValues,
  JOB_EXISTS_SQL,
  type NewScenario,
  queuedScenarioRow,
} from './scenarios.repository.ts';

/** SQLSTATE division_by_zero: JOB_EXISTS_SQL found no job. */
const NO_JOB = '22012';

/**
 * Inserts the scenario, its first event and its calculation job in one transaction: BEGIN, the
 * scenario insert, pg-boss's job insert, a check that the job exists and COMMIT, in one write on
 * the web's create pool (node-pg's pipeline mode).
 */
export async function createQueuedScenario(
  pool: pg.Pool,
  boss: PgBoss,
  config: Readonly<Config>,
  s: NewScenario,
): Promise<ScenarioRow> {
  const notQueued = () => new Error(`the calculation job for ${s.id} could not be queued`);
  try {
    const createdAt = await inPipelinedTransaction(pool, async (tx) => {
      const insert = tx.query<{ created_at: Date }>(INSERT_SCENARIO_SQL, insertScenarioValues(s));
      const db = {
        // pg-boss's one statement (the job insert), then the check and COMMIT behind it, sent together.
        executeSql(text: string, values?: unknown[]) {
          const result = tx.query(text, values);
          tx.query(JOB_EXISTS_SQL, [CALCULATE_QUEUE, s.id]);
          tx.commit();
          return result;
        },
      };
      const job = await boss.send(CALCULATE_QUEUE, { scenario_id: s.id }, { ...calculateJobOptions(config, s.id), db });
      // pg-boss inserted nothing (and said so without an error): the check failed, and the COMMIT rolled back.
      if (job !== s.id) throw notQueued();
      return (await insert).rows[0].created_at;
    });
    return queuedScenarioRow(s, createdAt);
  } catch (err) {
    if ((err as { code?: unknown }).code === NO_JOB) throw notQueued();
    throw err;
  }
}
