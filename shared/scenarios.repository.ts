// Scenario rows and their event log. Functions take `db` (or a transaction) first; callers choose
// where a transaction starts.
import { sql, type Transaction } from 'kysely';
import type pg from 'pg';
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
 * The scenario and its first event (`queued`, seq 1) in one statement; $1–$5: id, name, inputs
 * (JSON text), idempotency key, request hash. Run it in the create transaction (server/scenarios.create.ts).
 */
export const INSERT_SCENARIO_SQL = `
  WITH scenario AS (
    INSERT INTO scenarios (id, name, inputs, idempotency_key, request_hash, last_seq)
    VALUES ($1, $2, $3, $4, $5, 1)
    RETURNING created_at
  ), event AS (
    INSERT INTO scenario_events (scenario_id, seq, name, data) VALUES ($1, 1, 'queued', '{}')
  )
  SELECT created_at FROM scenario`;

/** The row INSERT_SCENARIO_SQL wrote, without reading it back. */
export function queuedScenarioRow(s: NewScenario, createdAt: Date): ScenarioRow {
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
    sweep_id: null,
    variant_index: null,
    optimization_id: null,
    keep_hourly: true,
  };
}

/** The scenario's own columns (not list_json, the stored list item of a finished scenario). */
const SCENARIO_COLUMNS = [
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

export async function findScenario(db: Executor, id: string): Promise<ScenarioRow | undefined> {
  return db.selectFrom('scenarios').select(SCENARIO_COLUMNS).where('id', '=', id).executeTakeFirst();
}

/** What an event stream needs to open: the status and the newest seq (not the inputs). */
export async function findStreamState(
  db: Executor,
  id: string,
): Promise<Pick<ScenarioRow, 'status' | 'last_seq'> | undefined> {
  return db.selectFrom('scenarios').select(['status', 'last_seq']).where('id', '=', id).executeTakeFirst();
}

export async function findByIdempotencyKey(db: Executor, key: string): Promise<ScenarioRow | undefined> {
  return db.selectFrom('scenarios').select(SCENARIO_COLUMNS).where('idempotency_key', '=', key).executeTakeFirst();
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
  const seq = await appendEventIf(trx, scenarioId, name, data, patch, {});
  if (seq === null) throw new Error(`no scenario ${scenarioId}`);
  return seq;
}

/** What a writer expects the scenario to be in; a stale writer (another attempt, a finished scenario) writes nothing. */
export interface EventGuard {
  status?: ReadonlyArray<ScenarioRow['status']>;
  attempt?: number;
}

/** appendEvent, only while the scenario matches `expect`; null (and nothing written) when it does not. */
export async function appendEventIf<N extends EventName>(
  trx: Transaction<Database>,
  scenarioId: string,
  name: N,
  data: EventData[N],
  patch: ScenarioPatch,
  expect: EventGuard,
): Promise<number | null> {
  const { summary, error, ...plain } = patch;
  let update = trx
    .updateTable('scenarios')
    .set({
      ...plain,
      ...(summary !== undefined ? { summary: JSON.stringify(summary) } : {}),
      ...(error !== undefined ? { error: JSON.stringify(error) } : {}),
      last_seq: sql<number>`last_seq + 1`,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', scenarioId);
  if (expect.status) update = update.where('status', 'in', [...expect.status]);
  if (expect.attempt !== undefined) update = update.where('attempt', '=', expect.attempt);
  const updated = await update.returning('last_seq').executeTakeFirst();
  if (!updated) return null;
  const seq = updated.last_seq;
  await trx
    .insertInto('scenario_events')
    .values({ scenario_id: scenarioId, seq, name, data: JSON.stringify(data) })
    .execute();
  await sql`SELECT pg_notify(${scenarioChannel(scenarioId)}, ${String(seq)})`.execute(trx);
  return seq;
}

/** The arguments of appendEventIf after its transaction. */
type AppendEventIfArgs<N extends EventName> =
  Parameters<typeof appendEventIf<N>> extends [unknown, ...infer Rest] ? Rest : never;

/** appendEventIf as a transaction of its own: the same arguments, a database instead of a transaction. */
export async function appendEventIfAlone<N extends EventName>(
  db: Db,
  ...args: AppendEventIfArgs<N>
): Promise<number | null> {
  return db.transaction().execute((trx) => appendEventIf(trx, ...args));
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

/**
 * The `running` event of an attempt as one statement (one round trip, prepared once per
 * connection): only while the scenario is unfinished. $1–$4: id, attempt, event data (JSON text),
 * channel. started_at is the transaction's time, as the event's created_at.
 */
export const APPEND_RUNNING_SQL = `
  WITH scenario AS (
    UPDATE scenarios
    SET last_seq = last_seq + 1, status = 'running', attempt = $2, started_at = now(), progress = 0,
        stage = 'starting', updated_at = now()
    WHERE id = $1 AND status IN ('queued', 'running')
    RETURNING last_seq
  ),
  event AS (
    INSERT INTO scenario_events (scenario_id, seq, name, data)
    SELECT $1, last_seq, 'running', $3 FROM scenario
    RETURNING seq
  )
  SELECT seq, pg_notify($4, seq::text) FROM event`;

/** APPEND_RUNNING_SQL as a named statement; the seq, or null (nothing written) when the scenario is finished. */
export async function appendRunning(pool: pg.Pool, scenarioId: string, attempt: number): Promise<number | null> {
  const data: EventData['running'] = { attempt };
  const { rows } = await pool.query<{ seq: number }>({
    name: 'hg_append_running',
    text: APPEND_RUNNING_SQL,
    values: [scenarioId, attempt, JSON.stringify(data), scenarioChannel(scenarioId)],
  });
  return rows[0]?.seq ?? null;
}

/**
 * One progress report as one statement (its own transaction): the event row, the scenario's
 * progress and the NOTIFY, only while `attempt` is the scenario's running attempt. Progress is
 * replaceable, so its commit skips the WAL flush wait (synchronous_commit off for this transaction).
 * $1–$6: id, attempt, progress, stage, event data (JSON text), channel.
 */
export const APPEND_PROGRESS_SQL = `
  WITH async_commit AS (SELECT set_config('synchronous_commit', 'off', true)),
  scenario AS (
    UPDATE scenarios
    SET last_seq = last_seq + 1, progress = $3, stage = $4, updated_at = now()
    WHERE id = $1 AND status = 'running' AND attempt = $2
    RETURNING last_seq
  ),
  event AS (
    INSERT INTO scenario_events (scenario_id, seq, name, data)
    SELECT $1, last_seq, 'progress', $5 FROM scenario
    RETURNING seq
  )
  SELECT seq, pg_notify($6, seq::text) FROM event, async_commit`;

/**
 * Runs APPEND_PROGRESS_SQL as a named statement: a calculation writes ~26 of them, so each
 * connection parses and plans it once instead of every time. Returns the seq, or null when the
 * attempt is no longer the scenario's running one (nothing written).
 */
export async function appendProgress(
  pool: pg.Pool,
  scenarioId: string,
  attempt: number,
  data: EventData['progress'],
): Promise<number | null> {
  const { rows } = await pool.query<{ seq: number }>({
    name: 'hg_append_progress',
    text: APPEND_PROGRESS_SQL,
    values: [scenarioId, attempt, data.progress, data.stage, JSON.stringify(data), scenarioChannel(scenarioId)],
  });
  return rows[0]?.seq ?? null;
}
