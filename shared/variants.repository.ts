// What a sweep's variants and an optimization's evaluations share: ordinary scenarios with their
// `queued` events and their pg-boss jobs at the variants' priority, written in one transaction
// (INSERT … SELECT FROM json_to_recordset, and pg-boss's bulk insert over the same connection),
// then a check that each has its job.
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import type { Config } from './config.ts';
import { CALCULATE_QUEUE, calculateJobOptions, VARIANT_PRIORITY } from './queue.ts';
import type { ResolvedInputs } from './schemas/inputs.ts';
import { bossOn } from './transaction.ts';

export interface VariantScenario {
  id: string;
  index: number;
  name: string;
  inputs: ResolvedInputs;
  values: Record<string, unknown>;
}

/** Whose variants these are: a sweep's, or an optimization's round. */
export type VariantOwner = { sweepId: string; keepHourly: boolean } | { optimizationId: string; round: number };

/** Every variant and its `queued` event from one JSON parameter: $1 the variants, $2 the sweep, $3 the optimization, $4 its round, $5 keep_hourly. */
const INSERT_VARIANTS_SQL = `
  WITH v AS (
    SELECT * FROM json_to_recordset($1::json)
      AS x(id uuid, name text, inputs json, variant_index int, variant_values json)
  ), scenario AS (
    INSERT INTO scenarios (id, name, inputs, last_seq, sweep_id, optimization_id, optimization_round,
                           variant_index, variant_values, keep_hourly)
    SELECT id, name, inputs, 1, $2, $3, $4, variant_index, variant_values, $5 FROM v
  )
  INSERT INTO scenario_events (scenario_id, seq, name, data) SELECT id, 1, 'queued', '{}' FROM v`;

/** How many of these variants have their job: $1 the queue, $2 the ids. Reads pgboss.job, never writes it. */
const COUNT_VARIANT_JOBS_SQL = `
  SELECT count(*) AS n FROM pgboss.job j JOIN json_to_recordset($2::json) AS v(id uuid) ON v.id = j.id
  WHERE j.name = $1`;

/** Inserts the variants, their `queued` events and their jobs on `client` (inside the caller's transaction). */
export async function insertVariants(
  client: pg.ClientBase,
  boss: PgBoss,
  config: Readonly<Config>,
  owner: VariantOwner,
  variants: readonly VariantScenario[],
): Promise<void> {
  if (variants.length === 0) return;
  const rows = variants.map((v) => ({
    id: v.id,
    name: v.name,
    inputs: v.inputs,
    variant_index: v.index,
    variant_values: v.values,
  }));
  const sweep = 'sweepId' in owner;
  await client.query(INSERT_VARIANTS_SQL, [
    JSON.stringify(rows),
    sweep ? owner.sweepId : null,
    sweep ? null : owner.optimizationId,
    sweep ? null : owner.round,
    sweep ? owner.keepHourly : false,
  ]);
  const jobs = variants.map((v) => {
    const { id: _id, ...options } = calculateJobOptions(config, v.id);
    return { id: v.id, data: { scenario_id: v.id }, priority: VARIANT_PRIORITY, ...options };
  });
  await boss.insert(CALCULATE_QUEUE, jobs, { db: bossOn(client) });
  // pg-boss skips a job whose id exists (ON CONFLICT DO NOTHING): every variant must have its own.
  const { rows: check } = await client.query<{ n: string }>(COUNT_VARIANT_JOBS_SQL, [
    CALCULATE_QUEUE,
    JSON.stringify(variants.map((v) => ({ id: v.id }))),
  ]);
  if (Number(check[0].n) !== variants.length) {
    throw new Error(`${check[0].n} of ${variants.length} variants' jobs were queued`);
  }
}

/**
 * The reads of a parent of variant scenarios (a sweep, an optimization): one by id, one by its
 * Idempotency-Key, and a keyset page newest first. `select` reads the parent's table as `alias`.
 */
export function parentReads<Row>(select: string, alias: string) {
  return {
    find: async (pool: pg.Pool, id: string): Promise<Row | undefined> =>
      (await pool.query<Row & pg.QueryResultRow>(`${select} WHERE ${alias}.id = $1`, [id])).rows[0],
    findByKey: async (pool: pg.Pool, key: string): Promise<Row | undefined> =>
      (await pool.query<Row & pg.QueryResultRow>(`${select} WHERE ${alias}.idempotency_key = $1`, [key])).rows[0],
    list: async (pool: pg.Pool, limit: number, before: string | null): Promise<Row[]> =>
      (
        await pool.query<Row & pg.QueryResultRow>(
          `${select} WHERE ($1::uuid IS NULL OR ${alias}.id < $1) ORDER BY ${alias}.id DESC LIMIT $2`,
          [before, limit],
        )
      ).rows,
  };
}
