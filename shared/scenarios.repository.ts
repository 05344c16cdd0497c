// Scenario rows and their event log. Functions take `db` (or a transaction) first; callers choose
// where a transaction starts.
import { sql, type Transaction } from 'kysely';
import type { Database, Db, EventRow, ScenarioRow } from './db.ts';
import type { EventData, EventName } from './schemas/events.ts';
import { scenarioChannel } from './uuid.ts';

type Executor = Db | Transaction<Database>;

export interface NewScenario {
  id: string;
  name: string;
  inputs: unknown;
  idempotencyKey: string | null;
  requestHash: string | null;
}

/**
 * Inserts the scenario and its first event (`queued`, seq 1) in one statement (one round trip on
 * the create path). Run it in the create transaction.
 */
export async function insertScenario(trx: Transaction<Database>, s: NewScenario): Promise<ScenarioRow> {
  const { rows } = await sql<{ created_at: Date }>`
    WITH scenario AS (
      INSERT INTO scenarios (id, name, inputs, idempotency_key, request_hash, last_seq)
      VALUES (${s.id}, ${s.name}, ${JSON.stringify(s.inputs)}, ${s.idempotencyKey}, ${s.requestHash}, 1)
      RETURNING created_at
    ), event AS (
      INSERT INTO scenario_events (scenario_id, seq, name, data) VALUES (${s.id}, 1, 'queued', '{}')
    )
    SELECT created_at FROM scenario`.execute(trx);
  const createdAt = rows[0].created_at;
  return {
    id: s.id,
    name: s.name,
    status: 'queued',
    progress: 0,
    stage: null,
    attempt: 0,
    inputs: s.inputs,
    summary: null,
    error: null,
    last_seq: 1,
    idempotency_key: s.idempotencyKey,
    request_hash: s.requestHash,
    created_at: createdAt,
    updated_at: createdAt,
    started_at: null,
    finished_at: null,
  };
}

export async function findScenario(db: Executor, id: string): Promise<ScenarioRow | undefined> {
  return db.selectFrom('scenarios').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findByIdempotencyKey(db: Executor, key: string): Promise<ScenarioRow | undefined> {
  return db.selectFrom('scenarios').selectAll().where('idempotency_key', '=', key).executeTakeFirst();
}

export type ScenarioPatch = Partial<{
  status: ScenarioRow['status'];
  progress: number;
  stage: string | null;
  attempt: number;
  summary: unknown;
  error: { code: string; message: string };
  started_at: Date;
  finished_at: Date;
}>;

/**
 * Appends one event and applies its change to the scenario in the caller's transaction, then
 * NOTIFYs the scenario's channel with the new seq (delivered at commit). Bumping last_seq in the
 * same statement serializes concurrent writers of one scenario, so seqs are gapless.
 */
export async function appendEvent<N extends EventName>(
  trx: Transaction<Database>,
  scenarioId: string,
  name: N,
  data: EventData[N],
  patch: ScenarioPatch = {},
): Promise<number> {
  const { summary, error, ...plain } = patch;
  const updated = await trx
    .updateTable('scenarios')
    .set({
      ...plain,
      ...(summary !== undefined ? { summary: JSON.stringify(summary) } : {}),
      ...(error !== undefined ? { error: JSON.stringify(error) } : {}),
      last_seq: sql<number>`last_seq + 1`,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', scenarioId)
    .returning('last_seq')
    .executeTakeFirstOrThrow();
  const seq = updated.last_seq;
  await trx
    .insertInto('scenario_events')
    .values({ scenario_id: scenarioId, seq, name, data: JSON.stringify(data) })
    .execute();
  await sql`SELECT pg_notify(${scenarioChannel(scenarioId)}, ${String(seq)})`.execute(trx);
  return seq;
}

export async function eventsAfter(db: Executor, scenarioId: string, afterSeq: number): Promise<EventRow[]> {
  return db
    .selectFrom('scenario_events')
    .selectAll()
    .where('scenario_id', '=', scenarioId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .execute();
}

const LIST_COLUMNS = [
  'id',
  'name',
  'status',
  'progress',
  'stage',
  'attempt',
  'summary',
  'error',
  'created_at',
  'updated_at',
  'started_at',
  'finished_at',
] as const;
export type ScenarioListRow = Pick<ScenarioRow, (typeof LIST_COLUMNS)[number]>;

/** One page of the list, newest first, after the keyset cursor `beforeId` (UUIDv7 sorts by time). */
export async function listPage(db: Executor, beforeId: string | null, limit: number): Promise<ScenarioListRow[]> {
  let q = db.selectFrom('scenarios').select(LIST_COLUMNS).orderBy('id', 'desc').limit(limit);
  if (beforeId) q = q.where('id', '<', beforeId);
  return q.execute();
}

export interface ScenarioState {
  status: ScenarioRow['status'];
  error: { code: string; message: string } | null;
  start_year: number;
  timezone_offset_hours: number;
}

/** What the statements route needs, without loading the (possibly large) inputs. */
export async function findState(db: Executor, id: string): Promise<ScenarioState | undefined> {
  return db
    .selectFrom('scenarios')
    .select([
      'status',
      'error',
      sql<number>`(inputs->>'start_year')::int`.as('start_year'),
      sql<number>`(inputs->'site'->>'timezone_offset_hours')::float8`.as('timezone_offset_hours'),
    ])
    .where('id', '=', id)
    .executeTakeFirst();
}
