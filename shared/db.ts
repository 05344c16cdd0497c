// The database: its tables as hand-written kysely types composed into one Database type (kysely's
// example-app style; one interface per table of sql/), the pools, and the one handle a process
// holds (DbHandle): the kysely instance for every query, with the raw pools under it for what kysely
// cannot send.
import { createHash } from 'node:crypto';
import {
  type ColumnType,
  type Compilable,
  type CompiledQuery,
  type Generated,
  Kysely,
  PostgresDialect,
  type RawBuilder,
  type Selectable,
} from 'kysely';
import pg from 'pg';
import type { OptimizationStatus, ScenarioEventName, ScenarioStatus, Stage } from './lifecycle.ts';
import { hasQueryInFlight } from './pg.internals.ts';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** A `json` column: read parsed, written as JSON text (so the text is stored as written, key order kept). */
type Json<T> = ColumnType<T, string, string>;
type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;
/** A column with a default or NULL: optional on insert. */
type Optional<T> = ColumnType<T, T | undefined, T>;

interface ScenariosTable {
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
  /** Whose row it is (sql/0010): another workspace's is answered as unknown. */
  workspace: string;
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
  /** null: the scenario keeps no hourly data (a sweep variant's default). */
  statements_gzip: Buffer | null;
  statements_lite_gzip: Buffer;
  created_at: Generated<Date>;
}

/** What a sweep and an optimization (the parents of variant scenarios) have in common. */
interface ParentColumns {
  id: string;
  workspace: string;
  name: string;
  idempotency_key: string | null;
  request_hash: string | null;
  last_seq: Optional<number>;
  created_at: Timestamp;
  finished_at: NullableTimestamp;
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
  status: Optional<OptimizationStatus>;
  rounds: Optional<number>;
  best_scenario_id: Optional<string | null>;
  feasible: Optional<boolean>;
}

interface ParentEventColumns {
  seq: number;
  name: string;
  data: Json<unknown>;
  created_at: Generated<Date>;
}

/** A file or hourly series of a workspace's library (sql/0012), stored once by its SHA-256. */
interface ResourcesTable {
  id: string;
  workspace: string;
  name: string;
  kind: 'weather' | 'wind_resource' | 'hourly_series';
  format: string;
  sha256: string;
  bytes: number;
  content: Buffer;
  metadata: Json<Record<string, unknown>>;
  created_at: Generated<Date>;
}

/** One user of a resource: exactly one of the three ids is set. */
interface ResourceUsesTable {
  resource_id: string;
  scenario_id: string | null;
  sweep_id: string | null;
  optimization_id: string | null;
}

/** The migrations applied (shared/migrate.ts). */
interface SchemaMigrationsTable {
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
  sweep_events: ParentEventColumns & { sweep_id: string };
  optimizations: OptimizationsTable;
  optimization_events: ParentEventColumns & { optimization_id: string };
  schema_migrations: SchemaMigrationsTable;
  resources: ResourcesTable;
  resource_uses: ResourceUsesTable;
}

/** A scenario as its resource shows it: its own columns (SCENARIO_COLUMNS), not the list item, the totals or a variant's details. */
export type ScenarioRow = Omit<
  Selectable<ScenariosTable>,
  'list_json' | 'variant_values' | 'totals' | 'optimization_round'
>;
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

/** Kysely over a pool the caller owns (kysely's destroy() ends it). */
export function createDb(pool: pg.Pool): Db {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/**
 * The one database handle of a process (the web's route dependencies hold this, as `deps.db`, and
 * nothing else of the database). It is the kysely instance (a `Db`: every query, and
 * shared/transaction.ts's `transaction(db, fn)`), with the raw pools under it for what kysely
 * cannot send.
 */
export type DbHandle = Db & {
  /**
   * The connections under the kysely instance, raw: for binary COPY (shared/pg.copy.ts: kysely has
   * no COPY protocol) and named statements prepared once per connection (kysely sends unnamed ones).
   */
  readonly pool: pg.Pool;
  /**
   * Connections in node-pg's pipeline mode, for `transaction(db, fn, { pipelined: true })`; null
   * without `pipelined`. Apart from the main pool because binary COPY needs plain mode.
   */
  readonly pipelinePool: pg.Pool | null;
  /** Ends every pool (instead of kysely's destroy(), which ends only the main one, once used). */
  close(): Promise<void>;
};

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
  let closed: Promise<void> | undefined;
  return Object.assign(createDb(pool), {
    pool,
    pipelinePool,
    close() {
      closed ??= Promise.all([pool.end(), pipelinePool?.end()]).then(() => {});
      return closed;
    },
  });
}

/** A kysely query: a builder, or an `sql` template. */
export type Query<R> = Compilable<R> | RawBuilder<R>;

/**
 * A kysely query compiled once (per Db), for a statement on a hot path: `build` runs once, with a
 * stand-in for each value of `args` it reads, and each call puts the values where the stand-ins
 * are (kysely takes ~30 µs to build and compile the create's insert, ~5 % of a create's web CPU).
 * `build` must pass each value of `args` into the query as it is: the text is fixed, so nothing
 * may depend on a value (serialize JSON before, not inside).
 */
export function precompiled<A extends object, R>(
  build: (db: Db, args: A) => Query<R>,
): (db: Db, args: A) => CompiledQuery<R> {
  const binders = new WeakMap<Db, (args: A) => CompiledQuery<R>>();
  const compile = (db: Db) => {
    const standIns = new Map<unknown, keyof A>();
    const args = new Proxy({} as A, {
      get(_, key) {
        const standIn = { standIn: key };
        standIns.set(standIn, key as keyof A);
        return standIn;
      },
    });
    const template = build(db, args).compile(db);
    const slots = template.parameters.map((p) => standIns.get(p));
    if (slots.filter((k) => k !== undefined).length !== standIns.size) {
      throw new Error('precompiled: a value of args did not reach the query as a parameter');
    }
    return (values: A): CompiledQuery<R> => ({
      ...template,
      parameters: slots.map((k, i) => (k === undefined ? template.parameters[i] : values[k])),
    });
  };
  return (db, args) => {
    let bind = binders.get(db);
    if (!bind) {
      bind = compile(db);
      binders.set(db, bind);
    }
    return bind(args);
  };
}

/** Prepared-statement names by statement text. */
const statementNames = new Map<string, string>();

/** The name a statement is prepared under on every connection: its text's hash. */
export function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `hg_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    if (statementNames.size > 100) statementNames.clear();
    statementNames.set(text, name);
  }
  return name;
}

/**
 * Runs a kysely query as a named statement on the handle's pool: each connection parses and plans
 * it once instead of on every run. For the statements a process runs most (a calculation's
 * progress); raw on the pool only because kysely sends unnamed statements.
 */
export async function executePrepared<R>(db: DbHandle, query: Query<R> | CompiledQuery<R>): Promise<R[]> {
  const { sql, parameters } = 'sql' in query ? query : query.compile(db);
  const { rows } = await db.pool.query({ name: statementName(sql), text: sql, values: parameters as unknown[] });
  return rows as R[];
}
