// The scenario SQL both processes run. The web's own is in server/scenarios.repository.ts, the
// worker's writes in worker/scenarios.repository.ts. Functions take `db` (or a transaction) first;
// callers choose where a transaction starts.
import type { Transaction } from 'kysely';
import type { Database, Db, ScenarioRow } from './db.ts';

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
] as const satisfies ReadonlyArray<keyof ScenarioRow>;

export async function findScenario(db: Db | Transaction<Database>, id: string): Promise<ScenarioRow | undefined> {
  return db.selectFrom('scenarios').select(SCENARIO_COLUMNS).where('id', '=', id).executeTakeFirst();
}
