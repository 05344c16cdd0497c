// An optimization's SQL: the create (the optimization and round 0, with their jobs, in one
// transaction), the reads (counts are counted from the evaluations, never stored), the search
// step's writes (a round, an improvement, the end), and the events.
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import type { Config } from './config.ts';
import { inTransaction } from './transaction.ts';
import { insertVariants, parentReads, type VariantScenario } from './variants.repository.ts';

export interface OptimizationRow {
  id: string;
  name: string;
  request: {
    name: string;
    base: Record<string, unknown>;
    variables: Array<{ path: string; min: number; max: number; step?: number }>;
    objective: { maximize: string } | { minimize: string };
    constraints: Array<{ kpi: string; min?: number; max?: number }>;
    max_evaluations: number;
    seed: number;
  };
  status: 'running' | 'succeeded' | 'cancelled';
  rounds: number;
  feasible: boolean;
  evaluated: number;
  pending: number;
  best: { scenario_id: string; index: number; values: Record<string, number>; kpis: unknown; totals: unknown } | null;
  created_at: Date;
  finished_at: Date | null;
  last_seq: number;
  request_hash: string | null;
}

const OPTIMIZATION_SELECT = `
  SELECT o.id, o.name, o.request, o.status, o.rounds, o.feasible, o.created_at, o.finished_at, o.last_seq,
         o.request_hash,
         (SELECT count(*)::int FROM scenarios s WHERE s.optimization_id = o.id
            AND s.status IN ('succeeded', 'failed', 'cancelled')) AS evaluated,
         (SELECT count(*)::int FROM scenarios s WHERE s.optimization_id = o.id
            AND s.status IN ('queued', 'running')) AS pending,
         (SELECT json_build_object('scenario_id', b.id, 'index', b.variant_index, 'values', b.variant_values,
                                   'kpis', b.summary, 'totals', b.totals)
            FROM scenarios b WHERE b.id = o.best_scenario_id) AS best
  FROM optimizations o`;

/** An evaluation that failed validation: stored failed at once (no job), so every point tried is listed. */
export interface InvalidEvaluation {
  id: string;
  index: number;
  name: string;
  values: Record<string, unknown>;
  error: { code: string; message: string };
}

export interface Round {
  optimizationId: string;
  round: number;
  evaluations: VariantScenario[];
  invalid: InvalidEvaluation[];
}

async function insertRound(client: pg.ClientBase, boss: PgBoss, config: Readonly<Config>, r: Round): Promise<void> {
  await insertVariants(client, boss, config, { optimizationId: r.optimizationId, round: r.round }, r.evaluations);
  if (r.invalid.length === 0) return;
  await client.query(
    `WITH v AS (
       SELECT * FROM json_to_recordset($1::json)
         AS x(id uuid, name text, variant_index int, variant_values json, error json)
     ), scenario AS (
       INSERT INTO scenarios (id, name, inputs, status, stage, error, last_seq, optimization_id, optimization_round,
                              variant_index, variant_values, keep_hourly, finished_at)
       SELECT id, name, '{}', 'failed', 'failed', error, 1, $2, $3, variant_index, variant_values, false, now() FROM v
     )
     INSERT INTO scenario_events (scenario_id, seq, name, data)
     SELECT id, 1, 'failed', json_build_object('error', error) FROM v`,
    [
      JSON.stringify(
        r.invalid.map((e) => ({
          id: e.id,
          name: e.name,
          variant_index: e.index,
          variant_values: e.values,
          error: e.error,
        })),
      ),
      r.optimizationId,
      r.round,
    ],
  );
}

export interface NewOptimization {
  id: string;
  /** Its creation time: every round's inputs are resolved with it, as round 0's are. */
  createdAt: Date;
  name: string;
  request: OptimizationRow['request'];
  round0: Omit<Round, 'optimizationId' | 'round'>;
  idempotencyKey: string | null;
  requestHash: string | null;
}

/** One transaction: the optimization, round 0's evaluations, their events and jobs. */
export async function insertOptimization(
  pool: pg.Pool,
  boss: PgBoss,
  config: Readonly<Config>,
  o: NewOptimization,
): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query(
      `INSERT INTO optimizations (id, name, request, idempotency_key, request_hash, created_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [o.id, o.name, JSON.stringify(o.request), o.idempotencyKey, o.requestHash, o.createdAt],
    );
    await insertRound(client, boss, config, { optimizationId: o.id, round: 0, ...o.round0 });
  });
}

export const {
  find: findOptimization,
  findByKey: findOptimizationByKey,
  list: listOptimizations,
} = parentReads<OptimizationRow>(OPTIMIZATION_SELECT, 'o');

export interface EvaluationRow {
  index: number;
  round: number;
  scenario_id: string;
  status: string;
  values: Record<string, number>;
  kpis: Record<string, number | null> | null;
  totals: { solar_mwh: number; wind_mwh: number; curtailed_mwh: number } | null;
}

export async function optimizationEvaluations(db: pg.Pool | pg.ClientBase, id: string): Promise<EvaluationRow[]> {
  const { rows } = await db.query<EvaluationRow>(
    `SELECT variant_index AS index, optimization_round AS round, id AS scenario_id, status,
            variant_values AS values, summary AS kpis, totals
     FROM scenarios WHERE optimization_id = $1 ORDER BY variant_index`,
    [id],
  );
  return rows;
}

/** The most events one read returns; a full batch is read again at once. */
export const OPTIMIZATION_EVENTS_BATCH = 1000;

export async function optimizationEventsAfter(
  pool: pg.Pool,
  id: string,
  after: number,
): Promise<Array<{ seq: number; name: string; data: unknown }>> {
  const { rows } = await pool.query(
    'SELECT seq, name, data FROM optimization_events WHERE optimization_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
    [id, after, OPTIMIZATION_EVENTS_BATCH],
  );
  return rows;
}

/** The optimization whose round this finished evaluation ended (running, nothing of it left queued or running), or null. */
export async function roundEndedBy(pool: pg.Pool, scenarioId: string): Promise<string | null> {
  const { rows } = await pool.query<{ id: string }>(
    `SELECT o.id FROM scenarios s JOIN optimizations o ON o.id = s.optimization_id
     WHERE s.id = $1 AND o.status = 'running' AND NOT EXISTS (
       SELECT 1 FROM scenarios u WHERE u.optimization_id = o.id AND u.status IN ('queued', 'running'))`,
    [scenarioId],
  );
  return rows[0]?.id ?? null;
}

/** What a search step decided, written by `writeStep` under the optimization's row lock. */
export type StepOutcome = { kind: 'round'; round: Round } | { kind: 'finished'; data: unknown } | { kind: 'nothing' };

export interface StepState {
  row: {
    status: string;
    rounds: number;
    best_scenario_id: string | null;
    request: OptimizationRow['request'];
    created_at: Date;
  };
  evaluations: EvaluationRow[];
}

/**
 * One search step in one transaction: the optimization's row is locked (a second step for the same
 * round waits, then finds the next round written and does nothing); `decide` sees the evaluations
 * as committed and returns the best so far and what to write.
 */
export async function runStep(
  pool: pg.Pool,
  boss: PgBoss,
  config: Readonly<Config>,
  id: string,
  decide: (state: StepState) => {
    best: { scenarioId: string; feasible: boolean; data: unknown } | null;
    outcome: StepOutcome;
  },
): Promise<StepOutcome['kind']> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<StepState['row']>(
      'SELECT status, rounds, best_scenario_id, request, created_at FROM optimizations WHERE id = $1 FOR UPDATE',
      [id],
    );
    if (rows.length === 0 || rows[0].status !== 'running') return 'nothing';
    const evaluations = await optimizationEvaluations(client, id);
    if (evaluations.some((e) => e.status === 'queued' || e.status === 'running')) return 'nothing';
    const { best, outcome } = decide({ row: rows[0], evaluations });
    if (best && best.scenarioId !== rows[0].best_scenario_id) {
      await client.query('UPDATE optimizations SET best_scenario_id = $2, feasible = $3 WHERE id = $1', [
        id,
        best.scenarioId,
        best.feasible,
      ]);
      await client.query(`SELECT optimization_event($1, 'improved', $2)`, [id, JSON.stringify(best.data)]);
    }
    if (outcome.kind === 'round') {
      await client.query('UPDATE optimizations SET rounds = rounds + 1 WHERE id = $1', [id]);
      await insertRound(client, boss, config, outcome.round);
    } else if (outcome.kind === 'finished') {
      await client.query(`UPDATE optimizations SET status = 'succeeded', finished_at = now() WHERE id = $1`, [id]);
      await client.query(`SELECT optimization_event($1, 'finished', $2)`, [id, JSON.stringify(outcome.data)]);
    }
    return outcome.kind;
  });
}

/** Marks a running optimization cancelled with its `finished` event; false when it was not running. */
export async function markCancelled(pool: pg.Pool, id: string): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const { rowCount } = await client.query(
      `UPDATE optimizations SET status = 'cancelled', finished_at = now() WHERE id = $1 AND status = 'running'`,
      [id],
    );
    if (!rowCount) return false;
    await client.query(`SELECT optimization_event($1, 'finished', json_build_object('status', 'cancelled'))`, [id]);
    return true;
  });
}
