// The create transaction: the scenario, its `queued` event and its pg-boss job commit together or
// not at all. It is a pipelined transaction (shared/transaction.ts): every statement prepared
// (Postgres parses and plans the scenario insert and pg-boss's 3 kB job insert once per connection
// instead of on every create, which was most of a create's database time), and all of them sent in
// one round trip.
import type { PgBoss } from 'pg-boss';
import type { Config } from '../shared/config.ts';
import type { ScenarioRow } from '../shared/db.ts';
import { CALCULATE_QUEUE, calculateJobOptions } from '../shared/queue.ts';
import { insertResourceUses } from '../shared/resources.repository.ts';
import { transaction } from '../shared/transaction.ts';
import { unscoped, type WorkspaceDb } from '../shared/workspace.ts';
import { insertScenario, jobExists, type NewScenario, queuedScenarioRow } from './scenarios.repository.ts';

/** SQLSTATE division_by_zero: jobExists found no job. */
const NO_JOB = '22012';

/**
 * Inserts the scenario, its first event and its calculation job in one transaction: BEGIN, the
 * scenario insert, pg-boss's job insert, a check that the job exists and COMMIT, in one write on
 * the handle's pipeline pool.
 */
export async function createQueuedScenario(
  ws: WorkspaceDb,
  boss: PgBoss,
  config: Readonly<Config>,
  { resources = [], ...scenario }: Omit<NewScenario, 'workspace'> & { resources?: readonly string[] },
): Promise<ScenarioRow> {
  const db = unscoped(ws);
  const s: NewScenario = { ...scenario, workspace: ws.workspace };
  const notQueued = () => new Error(`the calculation job for ${s.id} could not be queued`);
  try {
    const createdAt = await transaction(
      db,
      async (tx) => {
        const inserted = tx.execute(insertScenario(db, s));
        // The library resources it references: a used resource cannot be deleted (sql/0012).
        const uses = resources.length > 0 ? tx.execute(insertResourceUses(db, resources, { scenario_id: s.id })) : null;
        uses?.catch(() => {});
        // pg-boss's one statement (the job insert), then the check and COMMIT behind it, sent together.
        const bossDb = tx.boss(() => {
          tx.execute(jobExists(CALCULATE_QUEUE, s.id));
          tx.commit();
        });
        const job = await boss.send(
          CALCULATE_QUEUE,
          { scenario_id: s.id },
          { ...calculateJobOptions(config, s.id), db: bossDb },
        );
        // pg-boss inserted nothing (and said so without an error): the check failed, and the COMMIT rolled back.
        if (job !== s.id) throw notQueued();
        await uses;
        return (await inserted)[0].created_at;
      },
      { pipelined: true },
    );
    return queuedScenarioRow(s, createdAt);
  } catch (err) {
    if ((err as { code?: unknown }).code === NO_JOB) throw notQueued();
    throw err;
  }
}
