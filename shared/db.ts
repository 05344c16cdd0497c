// The database: its tables as hand-written kysely types composed into one Database type (kysely's
// example-app style; one interface per table of sql/), the pools, and the one handle a process
// holds (DbHandle): kysely for every query, and the raw pools under it for what kysely cannot send.
import { type ColumnType, type Generated, Kysely, PostgresDialect, type Selectable } from 'kysely';
import pg from 'pg';
import type { OptimizationEventName, ScenarioEventName, ScenarioStatus, Stage, SweepEventName } from './lifecycle.ts';
import { hasQueryInFlight } from './pg.internals.ts';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** A `json` column: read parsed, written as JSON text (so the text is stored as written, key order kept). */
type Json<T> = ColumnType<T, string, string>;
type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;
/** A column with a default or NULL: optional on insert. */
type Optional<T> = ColumnType<T, T | undefined, T>;

export interface ScenariosTable {
  id: string;
  name: string;
  status: Optional<ScenarioStatus>;
  progress: Optional<number>;
  /** Written as a Stage (shared/lifecycle.ts), apart from the status. */
  stage: ColumnType<string | null, Stage | null | undefined, Stage | null>;
  attempt: Optional<number>;
  inputs: Json<unknown>;
  summary: NullableJson<unknown>;
  error: NullableJson<{ code: string; message: string }>;
  last_seq: Optional<number>;
  idempotency_key: Optional<string | null>;
  request_hash: Optional<string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
  /** The stored list item of a finished scenario (sql/0004), JSON text. */
  list_json: Optional<string | null>;
  sweep_id: Optional<string | null>;
  variant_index: Optional<number | null>;
  /** A variant's varied values by JSON Pointer. */
  variant_values: NullableJson<Record<string, unknown>>;
  keep_hourly: Optional<boolean>;
  /** 25-year sums, set with the result. */
  totals: NullableJson<{ solar_mwh: number; wind_mwh: number; curtailed_mwh: number }>;
  optimization_id: Optional<string | null>;
  optimization_round: Optional<number | null>;
}

export interface ScenarioEventsTable {
  scenario_id: string;
  seq: number;
  name: ScenarioEventName;
  data: Json<unknown>;
  created_at: Generated<Date>;
}

export interface ScenarioResultsTable {
  scenario_id: string;
  etag: string;
  /** null: the scenario keeps no hourly data (a sweep variant's default). */
  statements_gzip: Buffer | null;
  statements_lite_gzip: Buffer;
  created_at: Generated<Date>;
}

export interface SweepsTable {
  id: string;
  name: string;
  base: Json<unknown>;
  vary: Json<unknown>;
  combine: 'grid' | 'zip';
  keep_hourly: boolean;
  /** The varied paths (JSON Pointers). */
  parameters: Json<string[]>;
  total: number;
  idempotency_key: Optional<string | null>;
  request_hash: Optional<string | null>;
  last_seq: Optional<number>;
  created_at: Timestamp;
  finished_at: NullableTimestamp;
}

export interface SweepEventsTable {
  sweep_id: string;
  seq: number;
  name: SweepEventName;
  data: Json<unknown>;
  created_at: Generated<Date>;
}

export interface OptimizationsTable {
  id: string;
  name: string;
  request: Json<unknown>;
  status: Optional<'running' | 'succeeded' | 'cancelled'>;
  rounds: Optional<number>;
  best_scenario_id: Optional<string | null>;
  feasible: Optional<boolean>;
  idempotency_key: Optional<string | null>;
  request_hash: Optional<string | null>;
  last_seq: Optional<number>;
  created_at: Timestamp;
  finished_at: NullableTimestamp;
}

export interface OptimizationEventsTable {
  optimization_id: string;
  seq: number;
  name: OptimizationEventName;
  data: Json<unknown>;
  created_at: Generated<Date>;
}

/** The migrations applied (shared/migrate.ts). */
export interface SchemaMigrationsTable {
  id: number;
  name: string;
  applied_at: Generated<Date>;
}

/** Every table of ours (pgboss.* is pg-boss's, and is not here: our SQL never writes there). */
export interface Database {
  scenarios: ScenariosTable;
  scenario_events: ScenarioEventsTable;
  scenario_results: ScenarioResultsTable;
  sweeps: SweepsTable;
  sweep_events: SweepEventsTable;
  optimizations: OptimizationsTable;
  optimization_events: OptimizationEventsTable;
  schema_migrations: SchemaMigrationsTable;
}

/** A scenario as its resource shows it: its own columns (SCENARIO_COLUMNS), not the list item, the totals or a variant's details. */
export type ScenarioRow = Omit<
  Selectable<ScenariosTable>,
  'list_json' | 'variant_values' | 'totals' | 'optimization_round'
>;
export type EventRow = Selectable<ScenarioEventsTable>;
export type Db = Kysely<Database>;

export interface PoolOptions {
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

/** Kysely over a pool the caller owns (kysely's destroy() ends it). */
export function createDb(pool: pg.Pool): Db {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/**
 * The one database handle of a process (the web's route dependencies hold this, and nothing else of
 * the database). Queries and transactions go through `kysely`, or through shared/transaction.ts's
 * `transaction(handle, fn)`; the raw pools are there only for what kysely cannot send.
 */
export interface DbHandle {
  /** Every query: typed tables, over `pool`. */
  readonly kysely: Db;
  /**
   * The connections under `kysely`, raw: for binary COPY (shared/pg.copy.ts: kysely has no COPY
   * protocol) and named statements prepared once per connection (kysely sends unnamed ones).
   */
  readonly pool: pg.Pool;
  /**
   * Connections in node-pg's pipeline mode, for `transaction(handle, fn, { pipelined: true })`;
   * null without `pipelined`. Apart from the main pool because binary COPY needs plain mode.
   */
  readonly pipelinePool: pg.Pool | null;
  /** Ends every pool. */
  close(): Promise<void>;
}

export interface DbOptions extends Omit<PoolOptions, 'pipeline'> {
  /** Also open a pipeline-mode pool (as large as the main one) for pipelined transactions. */
  pipelined?: boolean;
}

export function openDb(connectionString: string, options: DbOptions = {}): DbHandle {
  const { pipelined, ...poolOptions } = options;
  const pool = createPool(connectionString, poolOptions);
  const pipelinePool = pipelined
    ? createPool(connectionString, {
        ...poolOptions,
        applicationName: `${poolOptions.applicationName ?? 'hourglass'}-pipelined`,
        pipeline: true,
      })
    : null;
  const kysely = createDb(pool);
  let closed: Promise<void> | undefined;
  return {
    kysely,
    pool,
    pipelinePool,
    close() {
      // kysely's destroy() ends `pool` only once it has run a query; end it here either way, once.
      closed ??= Promise.all([pool.end(), pipelinePool?.end()]).then(() => {});
      return closed;
    },
  };
}
