// The web's scenario SQL: the create's statements, the reads of one scenario and of its event log,
// the list (a page, or every item by COPY) and cancel. Functions take `db` (or a pool) first;
// callers choose where a transaction starts. What the worker runs too is in shared/scenarios.repository.ts.
import pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { scenarioChannel } from '../shared/channels.ts';
import type { Db, EventRow, ScenarioRow } from '../shared/db.ts';
import { FINAL_STAGE } from '../shared/lifecycle.ts';
import { type CopyRun, copyOut, type RowHandler, uuidLiteral } from '../shared/pg.copy.ts';
import { CALCULATE_QUEUE } from '../shared/queue.ts';
import { SCENARIO_COLUMNS } from '../shared/scenarios.repository.ts';
import { bossOn, inTransaction } from '../shared/transaction.ts';

export interface NewScenario {
  id: string;
  name: string;
  inputs: unknown;
  idempotencyKey: string | null;
  requestHash: string | null;
}

/**
 * The scenario and its first event (`queued`, seq 1) in one statement; $1–$5: id, name, inputs
 * (JSON text), idempotency key, request hash. Run in the create transaction (server/scenarios.create.ts).
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

/** The values of INSERT_SCENARIO_SQL. */
export const insertScenarioValues = (s: NewScenario): unknown[] => [
  s.id,
  s.name,
  JSON.stringify(s.inputs),
  s.idempotencyKey,
  s.requestHash,
];

/**
 * Fails (division by zero) unless the job exists: with COMMIT sent behind the job insert, this is
 * what keeps a scenario from committing without its job should pg-boss insert nothing.
 * $1, $2: queue name, job id. Reads pgboss.job, never writes it.
 */
export const JOB_EXISTS_SQL = 'SELECT 1 / count(*)::int AS ok FROM pgboss.job WHERE name = $1 AND id = $2';

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

export async function findByIdempotencyKey(db: Db, key: string): Promise<ScenarioRow | undefined> {
  return db.selectFrom('scenarios').select(SCENARIO_COLUMNS).where('idempotency_key', '=', key).executeTakeFirst();
}

/** What an event stream needs to open: the status and the newest seq (not the inputs). */
export async function findStreamState(
  db: Db,
  id: string,
): Promise<Pick<ScenarioRow, 'status' | 'last_seq'> | undefined> {
  return db.selectFrom('scenarios').select(['status', 'last_seq']).where('id', '=', id).executeTakeFirst();
}

export async function eventsAfter(db: Db, scenarioId: string, afterSeq: number): Promise<EventRow[]> {
  return db
    .selectFrom('scenario_events')
    .selectAll()
    .where('scenario_id', '=', scenarioId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .execute();
}

/** Queued scenarios become `cancelled` with a `cancelled` event; $1 the scenario's id, or the sweep's. */
const cancelQueuedSql = (by: 'id' | 'sweep_id' | 'optimization_id') => `
  WITH cancelled AS (
    UPDATE scenarios SET status = 'cancelled', stage = '${FINAL_STAGE.cancelled}', finished_at = now(), updated_at = now(),
           last_seq = last_seq + 1
    WHERE ${by} = $1 AND status = 'queued'
    RETURNING id, last_seq
  ), event AS (
    INSERT INTO scenario_events (scenario_id, seq, name, data)
    SELECT id, last_seq, 'cancelled', '{}' FROM cancelled
  )
  SELECT id, last_seq AS seq FROM cancelled`;
const CANCEL_QUEUED_SCENARIO_SQL = cancelQueuedSql('id');
const CANCEL_QUEUED_VARIANTS_SQL = cancelQueuedSql('sweep_id');
const CANCEL_QUEUED_EVALUATIONS_SQL = cancelQueuedSql('optimization_id');

/** NOTIFYs each channel with its seq; $1: [{channel, seq}] as JSON. */
const NOTIFY_EACH_SQL = `
  SELECT pg_notify(channel, seq::text) FROM json_to_recordset($1::json) AS x(channel text, seq int)`;

/**
 * Cancels queued scenarios (one, or a sweep's) with their jobs, in one transaction: each becomes
 * `cancelled` with a `cancelled` event, and pg-boss cancels its job. A scenario a worker has
 * started is not queued any more and is left to finish; a worker that claimed a job just before
 * finds its scenario cancelled when it writes `running` (which needs queued or running) and
 * writes nothing. Returns the ids cancelled.
 */
export async function cancelQueued(
  pool: pg.Pool,
  boss: PgBoss,
  where: { scenarioId: string } | { sweepId: string } | { optimizationId: string },
): Promise<string[]> {
  return inTransaction(pool, async (client) => {
    const [text, value] =
      'scenarioId' in where
        ? [CANCEL_QUEUED_SCENARIO_SQL, where.scenarioId]
        : 'sweepId' in where
          ? [CANCEL_QUEUED_VARIANTS_SQL, where.sweepId]
          : [CANCEL_QUEUED_EVALUATIONS_SQL, where.optimizationId];
    const { rows } = await client.query<{ id: string; seq: number }>(text, [value]);
    if (rows.length > 0) {
      await boss.cancel(
        CALCULATE_QUEUE,
        rows.map((r) => r.id),
        { db: bossOn(client) },
      );
      const notes = rows.map((r) => ({ channel: scenarioChannel(r.id), seq: r.seq }));
      await client.query(NOTIFY_EACH_SQL, [JSON.stringify(notes)]);
    }
    return rows.map((r) => r.id);
  });
}

/** The list's filters and page, every value checked by the list route's query schema. */
export interface ListQuery {
  limit: number | null;
  /** The id after which the page starts (exclusive), newest first. */
  after: string | null;
  /** Scenario statuses (SCENARIO_STATUSES); each is quoted as a literal all the same. */
  statuses: string[] | null;
  sweepId: string | null;
  q: string | null;
}

/** `name ILIKE '%q%'` with q's own % and _ taken literally. */
function nameContains(q: string): string {
  const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return `s.name ILIKE ${pg.escapeLiteral(pattern)}`;
}

/**
 * The list query: list items as JSON text (the stored list_json of a finished scenario, else built
 * by scenario_list_json, sql/0004), newest first, every value a literal (COPY takes no parameters).
 * A page also selects each row's id, for its cursor, and one row more than it shows.
 */
function listItemsSql(query: ListQuery): string {
  const where: string[] = [];
  if (query.statuses) where.push(`s.status IN (${query.statuses.map((s) => pg.escapeLiteral(s)).join(', ')})`);
  // `none`: single scenarios, neither a sweep's variants nor an optimization's evaluations.
  if (query.sweepId === 'none') where.push('s.sweep_id IS NULL AND s.optimization_id IS NULL');
  else if (query.sweepId) where.push(`s.sweep_id = ${uuidLiteral(query.sweepId)}`);
  if (query.q !== null) where.push(nameContains(query.q));
  if (query.after) where.push(`s.id < ${uuidLiteral(query.after)}`);
  return `SELECT COALESCE(s.list_json, scenario_list_json(s))${query.limit !== null ? ', s.id::text' : ''}
    FROM scenarios s ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY s.id DESC${query.limit !== null ? ` LIMIT ${query.limit + 1}` : ''}`;
}

/** One page of the list (query.limit set): up to limit + 1 items with their ids, newest first. */
export async function listPage(
  pool: pg.Pool,
  query: ListQuery & { limit: number },
): Promise<Array<{ item: string; id: string }>> {
  const result = await pool.query<[string, string]>({ text: listItemsSql(query), rowMode: 'array' });
  return result.rows.map(([item, id]) => ({ item, id }));
}

/**
 * Every item of the list (query.limit null) from one binary COPY, in a read-only transaction of
 * its own with `timeoutMs` as its statement timeout (a slow client holds the COPY open). `start`
 * gets the COPY's pause/resume before the first row arrives; onRow gets each item's JSON bytes.
 */
export async function copyListItems(
  pool: pg.Pool,
  query: ListQuery,
  timeoutMs: number,
  start: (copy: CopyRun) => void,
  onRow: RowHandler,
): Promise<void> {
  await inTransaction(
    pool,
    async (client) => {
      const copy = copyOut(client, listItemsSql({ ...query, limit: null }), onRow, { timeoutMs: timeoutMs + 1000 });
      start(copy);
      await copy.done;
    },
    { readOnly: true, statementTimeoutMs: timeoutMs },
  );
}
