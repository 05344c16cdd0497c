import { sql } from 'kysely';
import type pg from 'pg';
import type { Db } from './db.ts';
import { copyRows, uuidLiteral } from './pg.copy.ts';
import { scenarioChannel } from './uuid.ts';

export interface StoredResult {
  scenario_id: string;
  etag: string;
  /** null: the scenario keeps no hourly data (a sweep variant's default). */
  statements_gzip: Buffer | null;
  statements_lite_gzip: Buffer;
}

export async function findResultEtag(db: Db, scenarioId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('scenario_results')
    .select('etag')
    .where('scenario_id', '=', scenarioId)
    .executeTakeFirst();
  return row?.etag;
}

export type ResultPart = 'statements_gzip' | 'statements_lite_gzip';

export interface StatementsRow {
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  error: { code: string; message: string } | null;
  start_year: number;
  timezone_offset_hours: number;
  etag: string | null;
  bytes: Buffer | null;
}

/**
 * The scenario's state and one stored part of its result, in one round trip (the statements hot
 * path). Read by a binary COPY, so the stored gzip arrives as raw bytes: a plain query would get
 * bytea as hex text twice its size and decode it (see shared/pg.copy.ts).
 */
export async function findStatements(
  pool: pg.Pool,
  scenarioId: string,
  part: ResultPart,
): Promise<StatementsRow | undefined> {
  const column = part === 'statements_gzip' ? 'r.statements_gzip' : 'r.statements_lite_gzip';
  const rows = await copyRows(
    pool,
    `SELECT s.status::text, s.error::text,
            (s.inputs->>'start_year')::int::text,
            (s.inputs->'site'->>'timezone_offset_hours')::float8::text,
            r.etag, ${column}
     FROM scenarios s LEFT JOIN scenario_results r ON r.scenario_id = s.id
     WHERE s.id = ${uuidLiteral(scenarioId)}`,
  );
  const row = rows[0];
  if (!row) return undefined;
  const text = (i: number) => row[i]?.toString('utf8') ?? null;
  const error = text(1);
  return {
    status: text(0) as StatementsRow['status'],
    error: error === null ? null : JSON.parse(error),
    start_year: Number(text(2)),
    timezone_offset_hours: Number(text(3)),
    etag: text(4),
    bytes: row[5],
  };
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
  succeeded: { summary: unknown; statements_url: string },
): Promise<number | null> {
  const { rows } = await sql<{ seq: number }>`
    WITH scenario AS (
      UPDATE scenarios
      SET last_seq = last_seq + 1, status = 'succeeded', progress = 1, stage = 'done',
          summary = ${JSON.stringify(succeeded.summary)}, totals = ${JSON.stringify(totals)},
          finished_at = now(), updated_at = now()
      WHERE id = ${r.scenario_id} AND status IN ('queued', 'running')
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
