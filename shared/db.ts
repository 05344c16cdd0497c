// Hand-written table types composed into one Database type (kysely's example-app style).
import { type ColumnType, type Generated, Kysely, PostgresDialect, type Selectable } from 'kysely';
import pg from 'pg';
import type { OptimizationStatus, ScenarioEventName, ScenarioStatus, Stage } from './lifecycle.ts';
import { hasQueryInFlight } from './pg.internals.ts';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string, string>;

interface ScenariosTable {
  id: string;
  name: string;
  status: ColumnType<ScenarioStatus, ScenarioStatus | undefined, ScenarioStatus>;
  progress: ColumnType<number, number | undefined, number>;
  /** Written as a Stage (shared/lifecycle.ts), apart from the status. */
  stage: ColumnType<string | null, Stage | null | undefined, Stage | null>;
  attempt: ColumnType<number, number | undefined, number>;
  inputs: Json<unknown>;
  summary: Json<unknown> | null;
  error: Json<{ code: string; message: string }> | null;
  last_seq: ColumnType<number, number | undefined, number>;
  idempotency_key: string | null;
  request_hash: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  started_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  finished_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  sweep_id: ColumnType<string | null, string | null | undefined, string | null>;
  variant_index: ColumnType<number | null, number | null | undefined, number | null>;
  optimization_id: ColumnType<string | null, string | null | undefined, string | null>;
  keep_hourly: ColumnType<boolean, boolean | undefined, boolean>;
  variant_values: ColumnType<unknown, string | null | undefined, string | null>;
  optimization_round: ColumnType<number | null, number | null | undefined, number | null>;
  /** 25-year sums: solar_mwh, wind_mwh, curtailed_mwh (set with the result). */
  totals: ColumnType<unknown, string | null | undefined, string | null>;
}

interface ScenarioEventsTable {
  scenario_id: string;
  seq: number;
  name: ScenarioEventName;
  data: Json<unknown>;
  created_at: Generated<Date>;
}

interface ScenarioResultsTable {
  scenario_id: string;
  etag: string;
  statements_gzip: Buffer | null;
  statements_lite_gzip: Buffer;
  created_at: Generated<Date>;
}

/** What a sweep and an optimization (the parents of variant scenarios) have in common. */
interface ParentColumns {
  id: string;
  name: string;
  idempotency_key: string | null;
  request_hash: string | null;
  last_seq: ColumnType<number, number | undefined, number>;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  finished_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

interface SweepsTable extends ParentColumns {
  base: Json<unknown>;
  vary: Json<unknown>;
  combine: 'grid' | 'zip';
  keep_hourly: boolean;
  parameters: Json<string[]>;
  total: number;
}

interface OptimizationsTable extends ParentColumns {
  request: Json<unknown>;
  status: ColumnType<OptimizationStatus, OptimizationStatus | undefined, OptimizationStatus>;
  rounds: ColumnType<number, number | undefined, number>;
  best_scenario_id: ColumnType<string | null, string | null | undefined, string | null>;
  feasible: ColumnType<boolean, boolean | undefined, boolean>;
}

interface ParentEventColumns {
  seq: number;
  name: string;
  data: Json<unknown>;
  created_at: Generated<Date>;
}

export interface Database {
  scenarios: ScenariosTable;
  scenario_events: ScenarioEventsTable;
  scenario_results: ScenarioResultsTable;
  sweeps: SweepsTable;
  sweep_events: ParentEventColumns & { sweep_id: string };
  optimizations: OptimizationsTable;
  optimization_events: ParentEventColumns & { optimization_id: string };
}

/** A scenario as the scenario routes read it (a variant's values, round and totals are its parent's reads). */
export type ScenarioRow = Omit<Selectable<ScenariosTable>, 'variant_values' | 'optimization_round' | 'totals'>;
export type EventRow = Selectable<ScenarioEventsTable>;
export type Db = Kysely<Database>;

interface PoolOptions {
  max?: number;
  statementTimeoutMs?: number;
  applicationName?: string;
  /** node-pg pipeline mode: a client sends queued queries without waiting for earlier answers. */
  pipeline?: boolean;
}

export function createPool(connectionString: string, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'hourglass',
    // A Postgres outage must surface as a fast error, not a request that hangs.
    connectionTimeoutMillis: 3000,
    ...(options.pipeline ? { pipeline: true } : {}),
    ...(options.statementTimeoutMs
      ? {
          statement_timeout: options.statementTimeoutMs,
          // statement_timeout needs a server that answers; a frozen server or a lost network would
          // leave a request on an open connection waiting for good. This gives up on the client.
          query_timeout: options.statementTimeoutMs + 1000,
        }
      : {}),
  });
  // An idle client that loses its server emits 'error' on the pool; without a listener it crashes the process.
  pool.on('error', () => {});
  // A client lent out (pool.connect) has no pool listener: when its server goes away between two of
  // its queries (Postgres stopping sends every backend a FATAL 57P01), its 'error' would be
  // unhandled and crash the process (seen once in 20 runs of faults.postgres-restart). The failure
  // still reaches the query in flight or the next one, and the pool drops the client on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  // A client handed back with a query still in flight gave up waiting (query_timeout): it is out of
  // step with its server (maybe inside a transaction whose ROLLBACK never went out). Close it
  // instead of lending it to the next request; the pool sees it ending and drops it.
  pool.on('release', (err, client) => {
    if (!err && hasQueryInFlight(client)) void client.end().catch(() => {});
  });
  return pool;
}

export function createDb(pool: pg.Pool): Db {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
