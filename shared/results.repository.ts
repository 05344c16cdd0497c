import type { Transaction } from 'kysely';
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

export async function findResultPart(
  db: Db,
  scenarioId: string,
  part: ResultPart,
): Promise<{ etag: string; bytes: Buffer } | undefined> {
  const row = await db
    .selectFrom('scenario_results')
    .select(['etag', part])
    .where('scenario_id', '=', scenarioId)
    .executeTakeFirst();
  return row ? { etag: row.etag, bytes: (row as Record<ResultPart, Buffer>)[part] } : undefined;
}
