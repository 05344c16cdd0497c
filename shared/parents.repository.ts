// A parent of variant scenarios (a sweep, an optimization): its SQL, one repository for both kinds.
// The create (the parent, its variants with their `queued` events and pg-boss jobs, in one
// transaction), the reads (one by id or by Idempotency-Key, a keyset page; the variants' counts
// are counted, never stored), the variants' table, the event log, and the optimization's search
// step (a round, an improvement, the end) and cancel. Every event goes through the database's
// parent_event (sql/0008_parent_events.sql): a variant's by its trigger, the rest from here.
import { type Kysely, sql, type Transaction } from 'kysely';
import { fromKysely, type PgBoss } from 'pg-boss';
import type { Config } from './config.ts';
import type { Database, Db } from './db.ts';
import { firstRound, roundPriority } from './fair.share.ts';
import { type ParentKind, SCENARIO_STATUSES, type ScenarioStatus, UNFINISHED_STATUSES } from './lifecycle.ts';
import { CALCULATE_QUEUE, calculateJobOptions } from './queue.ts';
import { insertResourceUses } from './resources.repository.ts';
import type { StoredInputs } from './schemas/inputs.ts';
import { unscoped, type WorkspaceDb } from './workspace.ts';

type Tx = Transaction<Database>;
type On = Kysely<Database>;

/** A variant scenario to write: its inputs resolved, its values by pointer. */
export interface VariantScenario {
  id: string;
  index: number;
  name: string;
  inputs: StoredInputs;
  values: Record<string, unknown>;
}

/** A point that failed validation: stored failed at once (no job), so every point tried is listed. */
interface InvalidVariant {
  id: string;
  index: number;
  name: string;
  values: Record<string, unknown>;
  error: { code: string; message: string };
}

/** Whose variants these are: a sweep's, or an optimization's round. */
type VariantOwner = { workspace: string } & (
  | { sweepId: string; keepHourly: boolean }
  | { optimizationId: string; round: number }
);

export interface Round {
  optimizationId: string;
  round: number;
  evaluations: VariantScenario[];
  invalid: InvalidVariant[];
}

/** What every parent's row has, whatever its kind. */
export interface ParentRow {
  id: string;
  name: string;
  created_at: Date;
  finished_at: Date | null;
  last_seq: number;
  request_hash: string | null;
  /** How many of its variants are in each status (counted from them). */
  counts: Record<ScenarioStatus, number>;
}

export interface SweepRow extends ParentRow {
  base: unknown;
  vary: unknown;
  combine: 'grid' | 'zip';
  keep_hourly: boolean;
  parameters: string[];
  total: number;
}

interface OptimizationRequestStored {
  name: string;
  base: Record<string, unknown>;
  variables: Array<{ path: string; min: number; max: number; step?: number }>;
  objective: { maximize: string } | { minimize: string };
  constraints: Array<{ kpi: string; min?: number; max?: number }>;
  max_evaluations: number;
  seed: number;
}

export interface OptimizationRow extends ParentRow {
  request: OptimizationRequestStored;
  status: 'running' | 'succeeded' | 'cancelled';
  rounds: number;
  feasible: boolean;
  best: { scenario_id: string; index: number; values: Record<string, number>; kpis: unknown } | null;
}

/** One row of a parent's variants table: a sweep's results, an optimization's evaluations. */
export interface VariantRow {
  index: number;
  /** An optimization's round; null for a sweep's variant. */
  round: number | null;
  scenario_id: string;
  status: ScenarioStatus;
  values: Record<string, unknown>;
  kpis: Record<string, number | null> | null;
  totals: { solar_mwh: number; wind_mwh: number; curtailed_mwh: number } | null;
}

/** The scenarios' column that names a variant's parent of this kind. */
export const ownerColumn = (kind: ParentKind) => (kind === 'sweep' ? 'sweep_id' : 'optimization_id');

/** The table of the parents of this kind. */
export const parentTable = (kind: ParentKind) => (kind === 'sweep' ? 'sweeps' : 'optimizations');

/** The variants' counts by status, as one JSON object, for the parent row `p` of this kind. */
const countsOf = (kind: ParentKind) =>
  sql<Record<ScenarioStatus, number>>`(SELECT json_build_object(${sql.join(
    SCENARIO_STATUSES.map((s) => sql`${sql.lit(s)}, count(*) FILTER (WHERE s.status = ${sql.lit(s)})`),
  )}) FROM scenarios s WHERE s.${sql.ref(ownerColumn(kind))} = p.id)`;

function sweepsQuery(db: On) {
  return db
    .selectFrom('sweeps as p')
    .select([
      'p.id',
      'p.name',
      'p.base',
      'p.vary',
      'p.combine',
      'p.keep_hourly',
      'p.parameters',
      'p.total',
      'p.created_at',
      'p.finished_at',
      'p.last_seq',
      'p.request_hash',
    ])
    .select(countsOf('sweep').as('counts'));
}

function optimizationsQuery(db: On) {
  return db
    .selectFrom('optimizations as p')
    .select([
      'p.id',
      'p.name',
      'p.request',
      'p.status',
      'p.rounds',
      'p.feasible',
      'p.created_at',
      'p.finished_at',
      'p.last_seq',
      'p.request_hash',
    ])
    .select(countsOf('optimization').as('counts'))
    .select(
      sql<OptimizationRow['best']>`(SELECT json_build_object('scenario_id', b.id, 'index', b.variant_index,
        'values', b.variant_values, 'kpis', b.summary) FROM scenarios b WHERE b.id = p.best_scenario_id)`.as('best'),
    );
}

/** Whether the workspace has this parent: its row only, nothing of its variants counted or read. */
export async function parentExists(ws: WorkspaceDb, kind: ParentKind, id: string): Promise<boolean> {
  const row = await unscoped(ws)
    .selectFrom(parentTable(kind))
    .select((eb) => eb.lit(1).as('one'))
    .where('id', '=', id)
    .where('workspace', '=', ws.workspace)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * One parent kind's reads, each within a workspace (another workspace's parent is not found): by
 * id, by its Idempotency-Key, a keyset page newest first, and whether it exists (no row read).
 */
function parentReads<Row>(
  kind: ParentKind,
  query: (db: On) => ReturnType<typeof sweepsQuery> | ReturnType<typeof optimizationsQuery>,
) {
  // Both kinds' queries read their table as `p`; the where clauses below name only p's common columns.
  const within = (ws: WorkspaceDb) =>
    (query(unscoped(ws)) as ReturnType<typeof sweepsQuery>).where('p.workspace', '=', ws.workspace);
  return {
    find: async (ws: WorkspaceDb, id: string): Promise<Row | undefined> =>
      (await within(ws).where('p.id', '=', id).executeTakeFirst()) as Row | undefined,
    findByKey: async (ws: WorkspaceDb, key: string): Promise<Row | undefined> =>
      (await within(ws).where('p.idempotency_key', '=', key).executeTakeFirst()) as Row | undefined,
    list: async (ws: WorkspaceDb, limit: number, before: string | null): Promise<Row[]> => {
      let q = within(ws);
      if (before !== null) q = q.where('p.id', '<', before);
      return (await q.orderBy('p.id', 'desc').limit(limit).execute()) as Row[];
    },
    exists: (ws: WorkspaceDb, id: string): Promise<boolean> => parentExists(ws, kind, id),
  };
}

export const sweepReads = parentReads<SweepRow>('sweep', sweepsQuery);
export const optimizationReads = parentReads<OptimizationRow>('optimization', optimizationsQuery);

/** Variants as one JSON array of scenario columns, for json_to_recordset. */
/** The most JSON text one insert statement carries: far below V8's string limit (~512 MB) and quick to send. */
const CHUNK_CHARS = 16 * 1024 * 1024;

/**
 * Variants as JSON arrays of scenario columns, for json_to_recordset: one array, or several when the
 * variants are large (each a measured-resource scenario carries its files' text: 340 variants of
 * 1.5 MB would pass V8's string limit as one).
 */
function recordsets<V extends { id: string; name: string; index: number; values: Record<string, unknown> }>(
  variants: readonly V[],
  more: (v: V) => Record<string, unknown>,
): string[] {
  const chunks: string[] = [];
  let rows: string[] = [];
  let chars = 0;
  for (const v of variants) {
    const row = JSON.stringify({
      id: v.id,
      name: v.name,
      variant_index: v.index,
      variant_values: v.values,
      ...more(v),
    });
    if (rows.length > 0 && chars + row.length > CHUNK_CHARS) {
      chunks.push(`[${rows.join(',')}]`);
      rows = [];
      chars = 0;
    }
    rows.push(row);
    chars += row.length + 1;
  }
  if (rows.length > 0) chunks.push(`[${rows.join(',')}]`);
  return chunks;
}

/**
 * Every variant with its first event from one JSON parameter (json_to_recordset: one parameter
 * however many variants; a multi-row VALUES would take ten per variant, 20,000 for 2,000 of them):
 * a variant with its inputs is queued, and its job goes through pg-boss on the same transaction,
 * with a check that each has its own; a point that failed validation is stored failed at once,
 * with its `failed` event (an optimization's evaluation event comes from the trigger).
 */
async function insertVariants(
  trx: Tx,
  boss: PgBoss,
  config: Readonly<Config>,
  owner: VariantOwner,
  variants: readonly (VariantScenario | InvalidVariant)[],
): Promise<void> {
  if (variants.length === 0) return;
  const sweep = 'sweepId' in owner;
  for (const rows of recordsets(variants, (v) => ('error' in v ? { error: v.error } : { inputs: v.inputs }))) {
    await sql`
    WITH v AS (
      SELECT *, x.error IS NULL AS valid FROM json_to_recordset(${rows}::json)
        AS x(id uuid, name text, inputs json, variant_index int, variant_values json, error json)
    ), scenario AS (
      INSERT INTO scenarios (id, name, inputs, status, stage, error, last_seq, sweep_id, optimization_id,
                             optimization_round, variant_index, variant_values, keep_hourly, finished_at, workspace)
      SELECT id, name, COALESCE(inputs, '{}'), CASE WHEN valid THEN 'queued' ELSE 'failed' END,
             CASE WHEN valid THEN NULL ELSE 'failed' END, error, 1, ${sweep ? owner.sweepId : null}::uuid,
             ${sweep ? null : owner.optimizationId}::uuid, ${sweep ? null : owner.round}::int, variant_index,
             variant_values, ${sweep ? owner.keepHourly : false}, CASE WHEN valid THEN NULL ELSE now() END,
             ${owner.workspace}
      FROM v
    )
    INSERT INTO scenario_events (scenario_id, seq, name, data)
    SELECT id, 1, CASE WHEN valid THEN 'queued' ELSE 'failed' END,
           CASE WHEN valid THEN '{}' ELSE json_build_object('error', error) END FROM v`.execute(trx);
  }
  const queued = variants.filter((v) => !('error' in v));
  if (queued.length === 0) return;
  const first = await firstRound(trx, owner.workspace);
  const jobs = queued.map((v, i) => {
    const { id: _id, ...options } = calculateJobOptions(config, v.id);
    return { id: v.id, data: { scenario_id: v.id }, priority: roundPriority(first, i), ...options };
  });
  await boss.insert(CALCULATE_QUEUE, jobs, { db: fromKysely(trx) });
  // pg-boss skips a job whose id exists (ON CONFLICT DO NOTHING): every variant must have its own.
  // pgboss.job is pg-boss's table, not one of ours: read (never written) with kysely's sql.
  const ids = JSON.stringify(queued.map((v) => ({ id: v.id })));
  const { rows: check } = await sql<{ n: string }>`
    SELECT count(*) AS n FROM pgboss.job j JOIN json_to_recordset(${ids}::json) AS v(id uuid) ON v.id = j.id
    WHERE j.name = ${CALCULATE_QUEUE}`.execute(trx);
  if (Number(check[0].n) !== queued.length) {
    throw new Error(`${check[0].n} of ${queued.length} variants' jobs were queued`);
  }
}

async function insertRound(trx: Tx, boss: PgBoss, config: Readonly<Config>, r: Round, workspace: string) {
  const owner = { optimizationId: r.optimizationId, round: r.round, workspace };
  await insertVariants(trx, boss, config, owner, [...r.evaluations, ...r.invalid]);
}

/** The parent's own row, as each kind stores it. */
export type NewParent =
  | {
      kind: 'sweep';
      row: {
        id: string;
        name: string;
        base: unknown;
        vary: unknown;
        combine: 'grid' | 'zip';
        keep_hourly: boolean;
        parameters: string[];
      };
      variants: VariantScenario[];
    }
  | {
      kind: 'optimization';
      row: { id: string; name: string; request: OptimizationRequestStored; created_at: Date };
      round0: Omit<Round, 'optimizationId' | 'round'>;
    };

/** One transaction: the parent's row, then its variants (a sweep's all, an optimization's round 0) with their events and jobs. */
export async function insertParent(
  ws: WorkspaceDb,
  boss: PgBoss,
  config: Readonly<Config>,
  p: NewParent,
  idempotency: { key: string | null; hash: string | null },
  resources: readonly string[] = [],
): Promise<void> {
  const { workspace } = ws;
  const keys = { idempotency_key: idempotency.key, request_hash: idempotency.hash, workspace };
  await unscoped(ws)
    .transaction()
    .execute(async (trx) => {
      if (p.kind === 'sweep') {
        const { row } = p;
        await trx
          .insertInto('sweeps')
          .values({
            ...row,
            ...keys,
            base: JSON.stringify(row.base),
            vary: JSON.stringify(row.vary),
            parameters: JSON.stringify(row.parameters),
            total: p.variants.length,
          })
          .execute();
        if (resources.length > 0) await trx.executeQuery(insertResourceUses(trx, resources, { sweep_id: row.id }));
        const owner = { sweepId: row.id, keepHourly: row.keep_hourly, workspace };
        await insertVariants(trx, boss, config, owner, p.variants);
      } else {
        const { row } = p;
        await trx
          .insertInto('optimizations')
          .values({ ...row, ...keys, request: JSON.stringify(row.request) })
          .execute();
        if (resources.length > 0)
          await trx.executeQuery(insertResourceUses(trx, resources, { optimization_id: row.id }));
        await insertRound(trx, boss, config, { optimizationId: row.id, round: 0, ...p.round0 }, workspace);
      }
    });
}

/** The parent's variants in index order: a sweep's results, an optimization's evaluations. */
export async function variantRows(ws: WorkspaceDb, kind: ParentKind, id: string): Promise<VariantRow[]> {
  return (await variantsQuery(unscoped(ws), kind, id).where('workspace', '=', ws.workspace).execute()) as VariantRow[];
}

/** A parent's variants, whoever's it is: the search step's read (it holds the parent's row lock). */
const variantsOf = async (db: On, kind: ParentKind, id: string): Promise<VariantRow[]> =>
  (await variantsQuery(db, kind, id).execute()) as VariantRow[];

function variantsQuery(db: On, kind: ParentKind, id: string) {
  return db
    .selectFrom('scenarios')
    .select([
      'variant_index as index',
      'optimization_round as round',
      'id as scenario_id',
      'status',
      'variant_values as values',
      'summary as kpis',
      'totals',
    ])
    .where(ownerColumn(kind), '=', id)
    .orderBy('variant_index');
}

/** At most this many events per read: a stream that got a full page reads again at once. */
export const PARENT_EVENTS_PAGE = 1000;

/**
 * The parent's events after seq `after`, in order, at most PARENT_EVENTS_PAGE of them: its stream's,
 * opened once the parent was found in the workspace (the event tables have no workspace of their own).
 */
export async function parentEventsAfter(
  ws: WorkspaceDb,
  kind: ParentKind,
  id: string,
  after: number,
): Promise<Array<{ seq: number; name: string; data: unknown }>> {
  const db = unscoped(ws);
  const q =
    kind === 'sweep'
      ? db.selectFrom('sweep_events').where('sweep_id', '=', id)
      : db.selectFrom('optimization_events').where('optimization_id', '=', id);
  return (q as ReturnType<typeof db.selectFrom<'sweep_events'>>)
    .select(['seq', 'name', 'data'])
    .where('seq', '>', after)
    .orderBy('seq')
    .limit(PARENT_EVENTS_PAGE)
    .execute();
}

/** Appends one event to the parent's log, with its NOTIFY (sql/0008's parent_event). */
async function appendEvent(trx: Tx, kind: ParentKind, id: string, name: string, data: unknown): Promise<void> {
  await sql`SELECT parent_event(${kind}, ${id}::uuid, ${name}, ${JSON.stringify(data)}::json)`.execute(trx);
}

/**
 * Marks an unfinished parent as being cancelled; false when it has finished. An optimization is
 * marked cancelled with its `finished` event, so no search step follows. A sweep's status is its
 * variants', so nothing of it is stored: cancelling its queued variants (the caller's next
 * statement, server/scenarios.repository.ts cancelQueued) is the whole cancel, and its `finished`
 * event follows its last variant's.
 */
export async function markCancelling(ws: WorkspaceDb, kind: ParentKind, id: string): Promise<boolean> {
  const db = unscoped(ws);
  if (kind === 'sweep') {
    const open = await db
      .selectFrom('sweeps')
      .select('id')
      .where('id', '=', id)
      .where('workspace', '=', ws.workspace)
      .where('finished_at', 'is', null)
      .executeTakeFirst();
    return open !== undefined;
  }
  return db.transaction().execute(async (trx) => {
    const marked = await trx
      .updateTable('optimizations')
      .set({ status: 'cancelled', finished_at: sql<Date>`now()` })
      .where('id', '=', id)
      .where('workspace', '=', ws.workspace)
      .where('status', '=', 'running')
      .executeTakeFirst();
    if (marked.numUpdatedRows === 0n) return false;
    await appendEvent(trx, kind, id, 'finished', { status: 'cancelled' });
    return true;
  });
}

/** The optimization whose round this finished evaluation ended (running, nothing of it left queued or running), or null. */
export async function roundEndedBy(db: Db, scenarioId: string): Promise<string | null> {
  const row = await db
    .selectFrom('scenarios as s')
    .innerJoin('optimizations as o', 'o.id', 's.optimization_id')
    .select('o.id')
    .where('s.id', '=', scenarioId)
    .where('o.status', '=', 'running')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('scenarios as u')
            .select('u.id')
            .whereRef('u.optimization_id', '=', 'o.id')
            .where('u.status', 'in', UNFINISHED_STATUSES),
        ),
      ),
    )
    .executeTakeFirst();
  return row?.id ?? null;
}

/** What a search step decided, written by `runStep` under the optimization's row lock. */
export type StepOutcome = { kind: 'round'; round: Round } | { kind: 'finished'; data: unknown } | { kind: 'nothing' };

export interface StepState {
  row: {
    status: string;
    rounds: number;
    best_scenario_id: string | null;
    request: OptimizationRequestStored;
    created_at: Date;
  };
  evaluations: VariantRow[];
}

/**
 * One search step in one transaction: the optimization's row is locked (a second step for the same
 * round waits, then finds the next round written and does nothing); `decide` sees the evaluations
 * as committed and returns the best so far and what to write.
 */
export async function runStep(
  db: Db,
  boss: PgBoss,
  config: Readonly<Config>,
  id: string,
  decide: (state: StepState) => {
    best: { scenarioId: string; feasible: boolean; data: unknown } | null;
    outcome: StepOutcome;
  },
): Promise<StepOutcome['kind']> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('optimizations')
      .select(['status', 'rounds', 'best_scenario_id', 'request', 'created_at', 'workspace'])
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (row?.status !== 'running') return 'nothing';
    const evaluations = await variantsOf(trx, 'optimization', id);
    if (evaluations.some((e) => (UNFINISHED_STATUSES as readonly string[]).includes(e.status))) return 'nothing';
    const state = { row: row as StepState['row'], evaluations };
    const { best, outcome } = decide(state);
    if (best && best.scenarioId !== row.best_scenario_id) {
      await trx
        .updateTable('optimizations')
        .set({ best_scenario_id: best.scenarioId, feasible: best.feasible })
        .where('id', '=', id)
        .execute();
      await appendEvent(trx, 'optimization', id, 'improved', best.data);
    }
    if (outcome.kind === 'round') {
      await trx
        .updateTable('optimizations')
        .set((eb) => ({ rounds: eb('rounds', '+', 1) }))
        .where('id', '=', id)
        .execute();
      await insertRound(trx, boss, config, outcome.round, row.workspace);
    } else if (outcome.kind === 'finished') {
      await trx
        .updateTable('optimizations')
        .set({ status: 'succeeded', finished_at: sql<Date>`now()` })
        .where('id', '=', id)
        .execute();
      await appendEvent(trx, 'optimization', id, 'finished', outcome.data);
    }
    return outcome.kind;
  });
}
