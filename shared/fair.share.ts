// Fair share between workspaces: each variant's pg-boss priority is its round, so that pg-boss's
// own order (priority, then age) serves the workspaces with queued variants in turn, one variant
// each per round, and a single scenario (priority 0) still goes ahead of every round.
//
// Round r is priority −r (r ≥ 1). A workspace's new variants take the rounds after its own last
// queued one, but never a round already served: they start at the queue's head (its lowest queued
// round), so a workspace that arrives behind another's 2,000 variants shares every round from then
// on instead of waiting for them, and cannot jump ahead of what the other has waited for either.
// Read inside the create's transaction; two creates of one workspace at the same moment may share
// rounds (they then interleave with each other), which costs fairness nothing between workspaces.
import { sql, type Transaction } from 'kysely';
import type { Database } from './db.ts';
import { CALCULATE_QUEUE } from './queue.ts';

/** The first round for `workspace`'s next variants: after its queued ones, and not before the head. */
export async function firstRound(trx: Transaction<Database>, workspace: string): Promise<number> {
  // pgboss.job is pg-boss's table, not one of ours: read (never written) with kysely's sql.
  const { rows } = await sql<{ head: number | null; tail: number | null }>`
    SELECT
      (SELECT -max(j.priority) FROM pgboss.job j
        WHERE j.name = ${CALCULATE_QUEUE} AND j.state < 'active' AND j.priority < 0) AS head,
      (SELECT -min(j.priority) + 1 FROM scenarios s JOIN pgboss.job j ON j.id = s.id AND j.name = ${CALCULATE_QUEUE}
        WHERE s.workspace = ${workspace} AND s.status = 'queued' AND j.state < 'active' AND j.priority < 0) AS tail`.execute(
    trx,
  );
  return Math.max(1, rows[0].head ?? 1, rows[0].tail ?? 1);
}

/** The pg-boss priority of the variant `offset` places after the first round. */
export const roundPriority = (first: number, offset: number): number => -(first + offset);
