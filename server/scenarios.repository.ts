// The web's scenario SQL: the create's statements, the reads of one scenario and of its event log,
// the list (a page, or every item by COPY) and cancel. Functions take `db` (or a transaction) first;
// callers choose where a transaction starts. What the worker runs too is in shared/scenarios.repository.ts.
import { sql } from 'kysely';
import pg from 'pg';
import { fromKysely, type PgBoss } from 'pg-boss';
import { scenarioChannel } from '../shared/channels.ts';
import { type Db, type EventRow, precompiled, type ScenarioRow } from '../shared/db.ts';
import { FINAL_STAGE } from '../shared/lifecycle.ts';
import { type CopyRun, copyOut, type RowHandler, uuidLiteral } from '../shared/pg.copy.ts';
import { CALCULATE_QUEUE } from '../shared/queue.ts';
import { SCENARIO_COLUMNS, withEvents } from '../shared/scenarios.repository.ts';
import { transaction } from '../shared/transaction.ts';
import { unscoped, type WorkspaceDb } from '../shared/workspace.ts';

export interface NewScenario {
  id: string;
  name: string;
  inputs: unknown;
  idempotencyKey: string | null;
  requestHash: string | null;
  workspace: string;
}

/** The create's insert, compiled once: the create is the hot path (bench #4). */
const insertScenarioQuery = precompiled((db, s: Omit<NewScenario, 'inputs'> & { inputs: string }) =>
  db
    .with('scenario', (q) =>
      q
        .insertInto('scenarios')
        .values({
          id: s.id,
          name: s.name,
          inputs: s.inputs,
          idempotency_key: s.idempotencyKey,
          request_hash: s.requestHash,
          workspace: s.workspace,
          last_seq: 1,
        })
        .returning('created_at'),
    )
    .with('event', (q) =>
      q.insertInto('scenario_events').values({ scenario_id: s.id, seq: 1, name: 'queued', data: '{}' }),
    )
    .selectFrom('scenario')
    .select('created_at'),
);

/** The scenario and its first event (`queued`, seq 1) in one statement; run in the create transaction (server/scenarios.create.ts). */
export const insertScenario = (db: Db, s: NewScenario) =>
  insertScenarioQuery(db, { ...s, inputs: JSON.stringify(s.inputs) });

/**
 * Fails (division by zero) unless the job exists: with COMMIT sent behind the job insert, this is
 * what keeps a scenario from committing without its job should pg-boss insert nothing. Reads
 * pgboss.job, never writes it; `sql` because pg-boss's tables are pg-boss's, not typed here.
 */
export const jobExists = (queue: string, id: string) =>
  sql<{ ok: number }>`SELECT 1 / count(*)::int AS ok FROM pgboss.job WHERE name = ${queue} AND id = ${id}`;

/** The row insertScenario wrote, without reading it back. */
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
    workspace: s.workspace,
  };
}

export async function findByIdempotencyKey(ws: WorkspaceDb, key: string): Promise<ScenarioRow | undefined> {
  return unscoped(ws)
    .selectFrom('scenarios')
    .select(SCENARIO_COLUMNS)
    .where('workspace', '=', ws.workspace)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/** What an event stream needs to open, or a cancel's 409: the status and the newest seq (not the inputs). */
export async function findStreamState(
  ws: WorkspaceDb,
  id: string,
): Promise<Pick<ScenarioRow, 'status' | 'last_seq'> | undefined> {
  return unscoped(ws)
    .selectFrom('scenarios')
    .select(['status', 'last_seq'])
    .where('id', '=', id)
    .where('workspace', '=', ws.workspace)
    .executeTakeFirst();
}

/** The scenario's events after `afterSeq`: its stream's, opened once findStreamState found it in the workspace. */
export async function eventsAfter(ws: WorkspaceDb, scenarioId: string, afterSeq: number): Promise<EventRow[]> {
  return unscoped(ws)
    .selectFrom('scenario_events')
    .selectAll()
    .where('scenario_id', '=', scenarioId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .execute();
}

/**
 * Which queued scenarios a cancel takes: one, a sweep's variants or an optimization's evaluations,
 * of the workspace only (another workspace's scenario is not cancelled).
 */
export type CancelTarget = { scenarioId: string } | { sweepId: string } | { optimizationId: string };

/**
 * Cancels queued scenarios (one, or a sweep's) with their jobs, in one transaction: each becomes
 * `cancelled` with a `cancelled` event, and pg-boss cancels its job. A scenario a worker has
 * started is not queued any more and is left to finish; a worker that claimed a job just before
 * finds its scenario cancelled when it writes `running` (which needs queued or running) and
 * writes nothing. Returns the ids cancelled.
 */
export async function cancelQueued(ws: WorkspaceDb, boss: PgBoss, where: CancelTarget): Promise<string[]> {
  const [column, value] =
    'scenarioId' in where
      ? (['id', where.scenarioId] as const)
      : 'sweepId' in where
        ? (['sweep_id', where.sweepId] as const)
        : (['optimization_id', where.optimizationId] as const);
  return transaction(unscoped(ws), async (trx) => {
    const cancel = trx
      .updateTable('scenarios')
      .set({
        status: 'cancelled',
        stage: FINAL_STAGE.cancelled,
        finished_at: sql`now()`,
        updated_at: sql`now()`,
        last_seq: sql`last_seq + 1`,
      })
      .where(column, '=', value)
      .where('workspace', '=', ws.workspace)
      .where('status', '=', 'queued')
      .returning(['id', 'last_seq']);
    const rows = await withEvents(trx, 'cancelled', '{}', cancel)
      .selectFrom('event')
      .select(['scenario_id as id', 'seq'])
      .execute();
    if (rows.length > 0) {
      const ids = rows.map((r) => r.id);
      await boss.cancel(CALCULATE_QUEUE, ids, { db: fromKysely(trx) });
      // `sql`: a set-returning function with a column list, which kysely's builder does not type.
      const notes = JSON.stringify(rows.map((r) => ({ channel: scenarioChannel(r.id), seq: r.seq })));
      await sql`SELECT pg_notify(channel, seq::text) FROM json_to_recordset(${notes}::json) AS x(channel text, seq int)`.execute(
        trx,
      );
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
 * by scenario_list_json, sql/0011), newest first. Text with every value a literal, not a kysely
 * builder: it is also run by binary COPY, which takes no bind parameters; the page runs the same
 * text, so both read the same items. A page also selects each row's id, for its cursor, and one
 * row more than it shows.
 */
function listItemsSql(query: ListQuery, workspace: string): string {
  const where: string[] = [`s.workspace = ${pg.escapeLiteral(workspace)}`];
  if (query.statuses) where.push(`s.status IN (${query.statuses.map((s) => pg.escapeLiteral(s)).join(', ')})`);
  // `none`: single scenarios, neither a sweep's variants nor an optimization's evaluations.
  if (query.sweepId === 'none') where.push('s.sweep_id IS NULL AND s.optimization_id IS NULL');
  else if (query.sweepId) where.push(`s.sweep_id = ${uuidLiteral(query.sweepId)}`);
  if (query.q !== null) where.push(nameContains(query.q));
  if (query.after) where.push(`s.id < ${uuidLiteral(query.after)}`);
  return `SELECT COALESCE(s.list_json, scenario_list_json(s)) AS item${query.limit !== null ? ', s.id::text AS id' : ''}
    FROM scenarios s WHERE ${where.join(' AND ')}
    ORDER BY s.id DESC${query.limit !== null ? ` LIMIT ${query.limit + 1}` : ''}`;
}

/** One page of the list (query.limit set): up to limit + 1 items with their ids, newest first. */
export async function listPage(
  ws: WorkspaceDb,
  query: ListQuery & { limit: number },
): Promise<Array<{ item: string; id: string }>> {
  const { rows } = await sql.raw<{ item: string; id: string }>(listItemsSql(query, ws.workspace)).execute(unscoped(ws));
  return rows;
}

/**
 * Every item of the list (query.limit null) from one binary COPY on a connection of `pool`,
 * read-only, with `timeoutMs` as its statement timeout (a slow client holds the COPY open).
 * `start` gets the COPY's pause/resume before the first row arrives; onRow gets each item's JSON bytes.
 */
export async function copyListItems(
  ws: WorkspaceDb,
  query: ListQuery,
  timeoutMs: number,
  start: (copy: CopyRun) => void,
  onRow: RowHandler,
): Promise<void> {
  const client = await unscoped(ws).pool.connect();
  try {
    const copy = copyOut(client, listItemsSql({ ...query, limit: null }, ws.workspace), onRow, {
      timeoutMs: timeoutMs + 1000,
      statementTimeoutMs: timeoutMs,
      readOnly: true,
    });
    start(copy);
    await copy.done;
  } finally {
    client.release();
  }
}
