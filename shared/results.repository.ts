import { sql, type Transaction } from 'kysely';
import type { Database, Db } from './db.ts';

export interface StoredResult {
  scenario_id: string;
  etag: string;
  statements_gzip: Buffer;
  statements_lite_gzip: Buffer;
}

/** Results are immutable: a second save of the same scenario (a duplicate run) changes nothing. */
export async function insertResult(trx: Transaction<Database>, r: StoredResult): Promise<boolean> {
  const res = await trx
    .insertInto('scenario_results')
    .values(r)
    .onConflict((oc) => oc.column('scenario_id').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) === 1;
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

/** The scenario's state and one stored part of its result, in one round trip (the statements hot path). */
export async function findStatements(db: Db, scenarioId: string, part: ResultPart): Promise<StatementsRow | undefined> {
  const column = part === 'statements_gzip' ? sql.ref('r.statements_gzip') : sql.ref('r.statements_lite_gzip');
  const { rows } = await sql<StatementsRow>`
    SELECT s.status, s.error,
           (s.inputs->>'start_year')::int AS start_year,
           (s.inputs->'site'->>'timezone_offset_hours')::float8 AS timezone_offset_hours,
           r.etag, ${column} AS bytes
    FROM scenarios s LEFT JOIN scenario_results r ON r.scenario_id = s.id
    WHERE s.id = ${scenarioId}`.execute(db);
  return rows[0];
}
