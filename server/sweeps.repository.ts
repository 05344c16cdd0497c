// A sweep's SQL: the create transaction (the sweep, its variants, their `queued` events and their
// pg-boss jobs, all or nothing, in a few round trips whatever the number of variants), the reads
// (counts are counted from the variants, never stored), the results table and cancel.
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import type { Config } from '../shared/config.ts';
import { CALCULATE_QUEUE } from '../shared/queue.ts';
import type { ResolvedInputs } from '../shared/schemas/inputs.ts';
import { insertVariants, inTransaction } from '../shared/variants.repository.ts';

import type { SweepPlan } from './sweeps.expand.ts';

export interface NewSweep {
  id: string;
  plan: SweepPlan;
  variants: Array<{ id: string; index: number; name: string; inputs: ResolvedInputs; values: Record<string, unknown> }>;
  idempotencyKey: string | null;
  requestHash: string | null;
}

export interface SweepRow {
  id: string;
  name: string;
  base: unknown;
  vary: unknown;
  combine: 'grid' | 'zip';
  keep_hourly: boolean;
  parameters: string[];
  total: number;
  created_at: Date;
  finished_at: Date | null;
  last_seq: number;
  request_hash: string | null;
  counts: { queued: number; running: number; succeeded: number; failed: number; cancelled: number };
}

const SWEEP_SELECT = `
  SELECT w.id, w.name, w.base, w.vary, w.combine, w.keep_hourly, w.parameters, w.total, w.created_at,
         w.finished_at, w.last_seq, w.request_hash,
         (SELECT json_build_object(
            'queued', count(*) FILTER (WHERE status = 'queued'),
            'running', count(*) FILTER (WHERE status = 'running'),
            'succeeded', count(*) FILTER (WHERE status = 'succeeded'),
            'failed', count(*) FILTER (WHERE status = 'failed'),
            'cancelled', count(*) FILTER (WHERE status = 'cancelled'))
          FROM scenarios s WHERE s.sweep_id = w.id) AS counts
  FROM sweeps w`;

/**
 * One transaction: the sweep row, then its variants with their events and jobs (insertVariants).
 * Five round trips for any size.
 */
export async function insertSweep(pool: pg.Pool, boss: PgBoss, config: Readonly<Config>, s: NewSweep): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query(
      `INSERT INTO sweeps (id, name, base, vary, combine, keep_hourly, parameters, total, idempotency_key, request_hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        s.id,
        s.plan.name,
        JSON.stringify(s.plan.base),
        JSON.stringify(s.plan.vary),
        s.plan.combine,
        s.plan.keepHourly,
        JSON.stringify(s.plan.parameters.map((p) => p.path)),
        s.variants.length,
        s.idempotencyKey,
        s.requestHash,
      ],
    );
    await insertVariants(client, boss, config, { sweepId: s.id, keepHourly: s.plan.keepHourly }, s.variants);
  });
}

export async function findSweep(pool: pg.Pool, id: string): Promise<SweepRow | undefined> {
  const { rows } = await pool.query<SweepRow>(`${SWEEP_SELECT} WHERE w.id = $1`, [id]);
  return rows[0];
}

export async function findSweepByKey(pool: pg.Pool, key: string): Promise<SweepRow | undefined> {
  const { rows } = await pool.query<SweepRow>(`${SWEEP_SELECT} WHERE w.idempotency_key = $1`, [key]);
  return rows[0];
}

export async function listSweeps(pool: pg.Pool, limit: number, before: string | null): Promise<SweepRow[]> {
  const { rows } = await pool.query<SweepRow>(
    `${SWEEP_SELECT} WHERE ($1::uuid IS NULL OR w.id < $1) ORDER BY w.id DESC LIMIT $2`,
    [before, limit],
  );
  return rows;
}

export interface VariantRow {
  index: number;
  scenario_id: string;
  status: string;
  values: Record<string, unknown>;
  kpis: Record<string, number | null> | null;
  totals: { solar_mwh: number; wind_mwh: number; curtailed_mwh: number } | null;
}

export async function sweepVariants(pool: pg.Pool, id: string): Promise<VariantRow[]> {
  const { rows } = await pool.query<VariantRow>(
    `SELECT variant_index AS index, id AS scenario_id, status, variant_values AS values,
            summary AS kpis, totals
     FROM scenarios WHERE sweep_id = $1 ORDER BY variant_index`,
    [id],
  );
  return rows;
}

export interface SweepEventRow {
  seq: number;
  name: string;
  data: unknown;
}

/** The most sweep events one read returns; a full batch is read again at once. */
export const SWEEP_EVENTS_BATCH = 1000;

export async function sweepEventsAfter(pool: pg.Pool, id: string, after: number): Promise<SweepEventRow[]> {
  const { rows } = await pool.query<SweepEventRow>(
    'SELECT seq, name, data FROM sweep_events WHERE sweep_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
    [id, after, SWEEP_EVENTS_BATCH],
  );
  return rows;
}

/**
 * Cancels queued scenarios (one, or a sweep's) with their jobs, in one transaction: each becomes
 * `cancelled` with a `cancelled` event, and pg-boss cancels its job. A scenario a worker has
 * started is not queued any more and is left to finish; a worker that claimed a job just before
 * finds its scenario cancelled when it writes `running` (which needs queued or running) and
 * writes nothing. Returns the ids cancelled.
 */
export async function cancelQueued(
  pool: pg.Pool,
  boss: PgBoss,
  where: { scenarioId: string } | { sweepId: string } | { optimizationId: string },
): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const [filter, value] =
      'scenarioId' in where
        ? ['id = $1', where.scenarioId]
        : 'sweepId' in where
          ? ['sweep_id = $1', where.sweepId]
          : ['optimization_id = $1', where.optimizationId];
    const { rows } = await client.query<{ id: string; seq: number }>(
      `WITH cancelled AS (
         UPDATE scenarios SET status = 'cancelled', stage = 'cancelled', finished_at = now(), updated_at = now(),
                last_seq = last_seq + 1
         WHERE ${filter} AND status = 'queued'
         RETURNING id, last_seq
       ), event AS (
         INSERT INTO scenario_events (scenario_id, seq, name, data)
         SELECT id, last_seq, 'cancelled', '{}' FROM cancelled
       )
       SELECT id, last_seq AS seq FROM cancelled`,
      [value],
    );
    if (rows.length > 0) {
      const ids = rows.map((r) => r.id);
      await boss.cancel(CALCULATE_QUEUE, ids, { db: { executeSql: (text, values) => client.query(text, values) } });
      await client.query(
        `SELECT pg_notify('scenario_' || replace(id::text, '-', ''), seq::text)
         FROM json_to_recordset($1::json) AS x(id uuid, seq int)`,
        [JSON.stringify(rows.map((r) => ({ id: r.id, seq: r.seq })))],
      );
    }
    await client.query('COMMIT');
    return rows.map((r) => r.id);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
