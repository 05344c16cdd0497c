// The worker's SQL: what one attempt of a calculation writes. Each write appends an event, applies
// its change to the scenario and NOTIFYs the scenario's channel (delivered at commit), and each is
// guarded: it writes only while the scenario is unfinished (or while its attempt is the running
// one), so a stale attempt, a duplicate job or a late dead letter writes nothing.
import { sql, type Transaction } from 'kysely';
import type pg from 'pg';
import { scenarioChannel } from '../shared/channels.ts';
import type { Database, Db, ScenarioRow } from '../shared/db.ts';
import { FINAL_STAGE, STARTING_STAGE, type Stage, UNFINISHED_STATUSES } from '../shared/lifecycle.ts';
import type { EventData, EventName } from '../shared/schemas/events.ts';

type ScenarioPatch = Partial<{
  status: ScenarioRow['status'];
  progress: number;
  stage: Stage | null;
  attempt: number;
  summary: unknown;
  error: { code: string; message: string };
  started_at: Date;
  finished_at: Date;
}>;

/** What a writer expects the scenario to be in; a stale writer (another attempt, a finished scenario) writes nothing. */
interface EventGuard {
  status?: ReadonlyArray<ScenarioRow['status']>;
  attempt?: number;
}

/** `'queued', 'running'`, for the statements' `status IN (…)`. */
const UNFINISHED_SQL = UNFINISHED_STATUSES.map((s) => `'${s}'`).join(', ');

/**
 * Appends one event and applies its change to the scenario in the caller's transaction, only while
 * the scenario matches `expect`; the new seq, or null (and nothing written) when it does not.
 * Bumping last_seq in the same statement serializes concurrent writers of one scenario, so seqs
 * are gapless.
 */
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

/**
 * The `running` event of an attempt as one statement (one round trip, prepared once per
 * connection): only while the scenario is unfinished. $1–$4: id, attempt, event data (JSON text),
 * channel. started_at is the transaction's time, as the event's created_at.
 */
const APPEND_RUNNING_SQL = `
  WITH scenario AS (
    UPDATE scenarios
    SET last_seq = last_seq + 1, status = 'running', attempt = $2, started_at = now(), progress = 0,
        stage = '${STARTING_STAGE}', updated_at = now()
    WHERE id = $1 AND status IN (${UNFINISHED_SQL})
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
 * A retry's start, in one transaction: `queued {attempt, reason: retry}` (the previous attempt did
 * not hand the job back), then `running`; only while the scenario is unfinished. False, and
 * nothing written, when it is finished.
 */
export async function appendRetryRunning(db: Db, scenarioId: string, attempt: number): Promise<boolean> {
  const unfinished = { status: UNFINISHED_STATUSES };
  return db.transaction().execute(async (trx) => {
    const queued = { status: 'queued' } as const;
    const seq = await appendEventIf(trx, scenarioId, 'queued', { attempt, reason: 'retry' }, queued, unfinished);
    if (seq === null) return false;
    const running = await appendEventIf(
      trx,
      scenarioId,
      'running',
      { attempt },
      { status: 'running', attempt, started_at: new Date(), progress: 0, stage: STARTING_STAGE },
      unfinished,
    );
    return running !== null;
  });
}

/**
 * One progress report as one statement (its own transaction): the event row, the scenario's
 * progress and the NOTIFY, only while `attempt` is the scenario's running attempt. Progress is
 * replaceable, so its commit skips the WAL flush wait (synchronous_commit off for this transaction).
 * $1–$6: id, attempt, progress, stage, event data (JSON text), channel.
 */
const APPEND_PROGRESS_SQL = `
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

/** appendEventIf in a transaction of its own: the same arguments, a database instead of a transaction. */
async function appendEventAlone<N extends EventName>(
  db: Db,
  ...args: Parameters<typeof appendEventIf<N>> extends [unknown, ...infer Rest] ? Rest : never
): Promise<number | null> {
  return db.transaction().execute((trx) => appendEventIf(trx, ...args));
}

/** The job went back to the queue: the scenario is queued for the next attempt, if `attempt` is still its running one. */
export async function appendQueuedForRetry(db: Db, scenarioId: string, attempt: number): Promise<void> {
  const data = { attempt: attempt + 1, reason: 'retry' };
  const patch = { status: 'queued', stage: null, progress: 0 } as const;
  await appendEventAlone(db, scenarioId, 'queued', data, patch, { status: ['running'], attempt });
}

/**
 * The scenario fails with `error`, only while it is unfinished, as the succeeded save does: a stale
 * attempt (or a dead letter that arrives late) never writes `failed` after `succeeded` or a second `failed`.
 */
export async function appendFailed(
  db: Db,
  scenarioId: string,
  error: { code: string; message: string },
): Promise<void> {
  const patch = { status: 'failed', error, finished_at: new Date(), stage: FINAL_STAGE.failed } as const;
  await appendEventAlone(db, scenarioId, 'failed', { error }, patch, { status: UNFINISHED_STATUSES });
}

interface StoredResult {
  scenario_id: string;
  etag: string;
  /** null: the scenario keeps no hourly data (a sweep variant's default). */
  statements_gzip: Buffer | null;
  statements_lite_gzip: Buffer;
}

/**
 * Saves the result and appends `succeeded` in one statement (one transaction, one round trip),
 * only while the scenario is unfinished: a stale attempt that finishes after its scenario was
 * failed or already succeeded writes nothing (the UPDATE's status check is re-evaluated after
 * any concurrent writer commits). Returns the event's seq, or null when nothing was written.
 */
export async function saveResultSucceeded(
  db: Db,
  r: StoredResult,
  totals: { solar_mwh: number; wind_mwh: number; curtailed_mwh: number },
  succeeded: EventData['succeeded'],
): Promise<number | null> {
  const { rows } = await sql<{ seq: number }>`
    WITH scenario AS (
      UPDATE scenarios
      SET last_seq = last_seq + 1, status = 'succeeded', progress = 1, stage = ${FINAL_STAGE.succeeded},
          summary = ${JSON.stringify(succeeded.summary)}, totals = ${JSON.stringify(totals)},
          finished_at = now(), updated_at = now()
      WHERE id = ${r.scenario_id} AND status IN (${sql.raw(UNFINISHED_SQL)})
      RETURNING last_seq
    ),
    result AS (
      INSERT INTO scenario_results (scenario_id, etag, statements_gzip, statements_lite_gzip)
      SELECT ${r.scenario_id}, ${r.etag}, ${r.statements_gzip}, ${r.statements_lite_gzip} FROM scenario
      ON CONFLICT (scenario_id) DO NOTHING
      RETURNING scenario_id
    ),
    event AS (
      INSERT INTO scenario_events (scenario_id, seq, name, data)
      SELECT ${r.scenario_id}, last_seq, 'succeeded', ${JSON.stringify(succeeded)} FROM scenario
      RETURNING seq
    )
    SELECT seq, pg_notify(${scenarioChannel(r.scenario_id)}, seq::text) FROM event`.execute(db);
  return rows[0]?.seq ?? null;
}
