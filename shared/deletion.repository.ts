// Deleting what a workspace created: a scenario, or a parent (a sweep, an optimization) with its
// variants, each with its events, results (ON DELETE CASCADE) and pg-boss jobs, in one
// transaction; and the retention sweep that deletes finished resources older than RETENTION_DAYS.
//
// Lock order. A worker that finishes a variant holds the variant's row, then (its trigger) the
// parent's. A delete takes them in the same order: the variants first, the parent last, so the two
// never wait on each other in a circle. An optimization is first marked cancelled in a transaction
// of its own, so no search step writes a round between the variants' delete and the parent's.
//
// A worker mid-calculation of a deleted scenario writes nothing: each of its writes is guarded by
// the scenario's status (worker/scenarios.repository.ts), and a missing row has none; its job is
// gone, so pg-boss neither retries nor completes anything. Open event streams get a NOTIFY and end
// with a `deleted` event (server/sse/event-streams.ts).
import { sql, type Transaction } from 'kysely';
import { fromKysely, type PgBoss } from 'pg-boss';
import { parentChannel, scenarioChannel } from './channels.ts';
import type { Database, DbHandle } from './db.ts';
import { type ParentKind, TERMINAL_STATUSES } from './lifecycle.ts';
import { markCancelling, ownerColumn, parentExists, parentTable } from './parents.repository.ts';
import { CALCULATE_QUEUE } from './queue.ts';
import { unscoped, type WorkspaceDb, withinWorkspace } from './workspace.ts';

type Tx = Transaction<Database>;

/** The NOTIFY payload that tells a stream its resource is gone. */
const DELETED = 'deleted';

/** Removes these scenarios' jobs and tells their streams; the rows themselves are the caller's delete. */
async function forgetScenarios(trx: Tx, boss: PgBoss, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await boss.deleteJob(CALCULATE_QUEUE, [...ids], { db: fromKysely(trx) });
  const channels = ids.map(scenarioChannel);
  await sql`SELECT pg_notify(channel, ${DELETED}) FROM unnest(${sql.val(channels)}::text[]) AS channel`.execute(trx);
}

type ScenarioDelete = { deleted: true } | { deleted: false; variantOf: { kind: ParentKind; id: string } | null };

/**
 * Deletes a single scenario of the workspace with its events, result and job. A sweep's variant or
 * an optimization's evaluation is its parent's: not deleted alone (`variantOf` names the parent).
 */
export async function deleteScenario(ws: WorkspaceDb, boss: PgBoss, id: string): Promise<ScenarioDelete> {
  return unscoped(ws)
    .transaction()
    .execute(async (trx) => {
      const row = await trx
        .selectFrom('scenarios')
        .select(['sweep_id', 'optimization_id'])
        .where('id', '=', id)
        .where('workspace', '=', ws.workspace)
        .forUpdate()
        .executeTakeFirst();
      if (!row) return { deleted: false, variantOf: null };
      if (row.sweep_id) return { deleted: false, variantOf: { kind: 'sweep', id: row.sweep_id } };
      if (row.optimization_id) return { deleted: false, variantOf: { kind: 'optimization', id: row.optimization_id } };
      await trx.deleteFrom('scenarios').where('id', '=', id).execute();
      await forgetScenarios(trx, boss, [id]);
      return { deleted: true };
    });
}

/** Deletes a parent of the workspace with its variants (and theirs: events, results, jobs) and its events; false when there is none. */
export async function deleteParent(ws: WorkspaceDb, boss: PgBoss, kind: ParentKind, id: string): Promise<boolean> {
  if (!(await parentExists(ws, kind, id))) return false;
  const db = unscoped(ws);
  // No search step writes a round after this (it checks the status under the row's lock).
  if (kind === 'optimization') await markCancelling(ws, kind, id);
  return db.transaction().execute(async (trx) => {
    const variants = await trx.deleteFrom('scenarios').where(ownerColumn(kind), '=', id).returning('id').execute();
    await forgetScenarios(
      trx,
      boss,
      variants.map((v) => v.id),
    );
    const parent = await trx
      .deleteFrom(parentTable(kind))
      .where('id', '=', id)
      .where('workspace', '=', ws.workspace)
      .executeTakeFirst();
    await sql`SELECT pg_notify(${parentChannel(kind, id)}, ${DELETED})`.execute(trx);
    return parent.numDeletedRows > 0n;
  });
}

export interface RetentionRun {
  scenarios: number;
  sweeps: number;
  optimizations: number;
}

/**
 * One batch of retention: finished resources (every workspace's) that finished before `before`,
 * at most `limit` single scenarios and one parent of each kind, each deleted as DELETE deletes it.
 * Small transactions, so calculation never waits long on them. Returns what it removed.
 */
export async function deleteExpired(db: DbHandle, boss: PgBoss, before: Date, limit: number): Promise<RetentionRun> {
  const singles = await db
    .selectFrom('scenarios')
    .select(['id', 'workspace'])
    .where('finished_at', '<', before)
    .where('sweep_id', 'is', null)
    .where('optimization_id', 'is', null)
    .where('status', 'in', TERMINAL_STATUSES)
    .orderBy('finished_at')
    .limit(limit)
    .execute();
  let scenarios = 0;
  if (singles.length > 0) {
    scenarios = await db.transaction().execute(async (trx) => {
      const gone = await trx
        .deleteFrom('scenarios')
        .where(
          'id',
          'in',
          singles.map((s) => s.id),
        )
        .where('status', 'in', TERMINAL_STATUSES)
        .returning('id')
        .execute();
      await forgetScenarios(
        trx,
        boss,
        gone.map((g) => g.id),
      );
      return gone.length;
    });
  }
  const oldParent = async (kind: ParentKind) => {
    const table = parentTable(kind);
    const p = await db
      .selectFrom(table)
      .select(['id', 'workspace'])
      .where('finished_at', '<', before)
      .orderBy('finished_at')
      .limit(1)
      .executeTakeFirst();
    // Retention acts within each parent's own workspace.
    return p ? Number(await deleteParent(withinWorkspace(db, p.workspace), boss, kind, p.id)) : 0;
  };
  return { scenarios, sweeps: await oldParent('sweep'), optimizations: await oldParent('optimization') };
}
