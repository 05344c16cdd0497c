// The scenario SQL both processes run. The web's own is in server/scenarios.repository.ts, the
// worker's writes in worker/scenarios.repository.ts. Functions take `db` (or a transaction) first;
// callers choose where a transaction starts.
import { sql, type Transaction, type UpdateQueryBuilder } from 'kysely';
import type { Database, Db, ScenarioRow } from './db.ts';
import type { ScenarioEventName } from './lifecycle.ts';
import { unscoped, type WorkspaceDb } from './workspace.ts';

/** The scenario's own columns (not list_json, the stored list item of a finished scenario). */
export const SCENARIO_COLUMNS = [
  'id',
  'name',
  'status',
  'progress',
  'stage',
  'attempt',
  'inputs',
  'summary',
  'error',
  'last_seq',
  'idempotency_key',
  'request_hash',
  'created_at',
  'updated_at',
  'started_at',
  'finished_at',
  'sweep_id',
  'variant_index',
  'optimization_id',
  'keep_hourly',
  'workspace',
] as const satisfies ReadonlyArray<keyof ScenarioRow>;

/** One scenario of the workspace: another workspace's is answered as missing. */
export async function findScenario(ws: WorkspaceDb, id: string): Promise<ScenarioRow | undefined> {
  return scenarioById(unscoped(ws), id).where('workspace', '=', ws.workspace).executeTakeFirst();
}

/** One scenario by its id alone, whoever's it is: the worker's read (a route reads by findScenario). */
export async function findScenarioById(db: Db | Transaction<Database>, id: string): Promise<ScenarioRow | undefined> {
  return scenarioById(db, id).executeTakeFirst();
}

const scenarioById = (db: Db | Transaction<Database>, id: string) =>
  db.selectFrom('scenarios').select(SCENARIO_COLUMNS).where('id', '=', id);

/**
 * One statement that appends an event to each scenario `update` changes: the update (returning each
 * scenario's id and new last_seq; bumping it serializes the writers of one scenario) as CTE
 * `scenario`, and an event row at that seq as CTE `event`, returning its scenario_id and seq. The
 * caller selects from `event`; nothing is written where the update matches no row.
 */
export function withEvents(
  db: Db | Transaction<Database>,
  name: ScenarioEventName,
  data: string,
  update: UpdateQueryBuilder<Database, 'scenarios', 'scenarios', { id: string; last_seq: number }>,
) {
  return db
    .with('scenario', () => update)
    .with('event', (q) =>
      q
        .insertInto('scenario_events')
        .columns(['scenario_id', 'seq', 'name', 'data'])
        .expression((eb) =>
          eb.selectFrom('scenario').select(['id', 'last_seq', sql.val(name).as('name'), sql.val(data).as('data')]),
        )
        .returning(['scenario_id', 'seq']),
    );
}
