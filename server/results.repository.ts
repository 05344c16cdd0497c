// The web's reads of a stored result (the worker saves it: worker/scenarios.repository.ts saveResultSucceeded).
import pg from 'pg';
import type { ScenarioStatus } from '../shared/lifecycle.ts';
import { copyRows, uuidLiteral } from '../shared/pg.copy.ts';
import { unscoped, type WorkspaceDb } from '../shared/workspace.ts';

export async function findResultEtag(ws: WorkspaceDb, scenarioId: string): Promise<string | undefined> {
  const row = await unscoped(ws)
    .selectFrom('scenario_results as r')
    .innerJoin('scenarios as s', 's.id', 'r.scenario_id')
    .select('r.etag')
    .where('r.scenario_id', '=', scenarioId)
    .where('s.workspace', '=', ws.workspace)
    .executeTakeFirst();
  return row?.etag;
}

export type ResultPart = 'statements_gzip' | 'statements_lite_gzip';

interface StatementsRow {
  status: ScenarioStatus;
  error: { code: string; message: string } | null;
  start_year: number;
  timezone_offset_hours: number;
  etag: string | null;
  bytes: Buffer | null;
}

/**
 * The scenario's state and one stored part of its result, in one round trip (the statements hot
 * path). Read by a binary COPY, so the stored gzip arrives as raw bytes: a plain query would get
 * bytea as hex text twice its size and decode it (see shared/pg.copy.ts). `headBytes`: only the
 * part's first bytes (enough to tell its form), for a read that may be answered from the web's
 * cache (server/answer.cache.ts) without the rest.
 */
export async function findStatements(
  ws: WorkspaceDb,
  scenarioId: string,
  part: ResultPart,
  headBytes?: number,
): Promise<StatementsRow | undefined> {
  const stored = part === 'statements_gzip' ? 'r.statements_gzip' : 'r.statements_lite_gzip';
  const column = headBytes === undefined ? stored : `substring(${stored} from 1 for ${Math.trunc(headBytes)})`;
  const rows = await copyRows(
    unscoped(ws).pool,
    `SELECT s.status::text, s.error::text,
            (s.inputs->>'start_year')::int::text,
            (s.inputs->'site'->>'timezone_offset_hours')::float8::text,
            r.etag, ${column}
     FROM scenarios s LEFT JOIN scenario_results r ON r.scenario_id = s.id
     WHERE s.id = ${uuidLiteral(scenarioId)} AND s.workspace = ${pg.escapeLiteral(ws.workspace)}`,
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
