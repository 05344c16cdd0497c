// A sweep's SQL: the create transaction (the sweep, its variants, their `queued` events and their
// pg-boss jobs, all or nothing, in a few round trips whatever the number of variants), the reads
// (counts are counted from the variants, never stored), the results table and the event log.
// Cancelling a sweep's variants is a scenario statement (server/scenarios.repository.ts cancelQueued).
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import type { Config } from '../shared/config.ts';
import { SCENARIO_STATUSES, type ScenarioStatus, type SweepEventName } from '../shared/lifecycle.ts';
import type { ResolvedInputs } from '../shared/schemas/inputs.ts';
import { inTransaction } from '../shared/transaction.ts';
import { insertVariants, parentReads } from '../shared/variants.repository.ts';
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
  /** How many of its variants are in each status. */
  counts: Record<ScenarioStatus, number>;
}

/** One count per status, as a JSON object keyed by status. */
const COUNTS_BY_STATUS = SCENARIO_STATUSES.map((s) => `'${s}', count(*) FILTER (WHERE status = '${s}')`).join(', ');

/** The sweep's row with its counts (counted from the variants, never stored); callers add the WHERE. */
const SELECT_SWEEPS_SQL = `
  SELECT w.id, w.name, w.base, w.vary, w.combine, w.keep_hourly, w.parameters, w.total, w.created_at,
         w.finished_at, w.last_seq, w.request_hash,
         (SELECT json_build_object(${COUNTS_BY_STATUS}) FROM scenarios s WHERE s.sweep_id = w.id) AS counts
  FROM sweeps w`;

/** $1–$10: id, name, base, vary, combine, keep_hourly, parameters (JSON text), total, idempotency key, request hash. */
const INSERT_SWEEP_SQL = `
  INSERT INTO sweeps (id, name, base, vary, combine, keep_hourly, parameters, total, idempotency_key, request_hash)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;

/**
 * One transaction: the sweep row, then its variants with their events and jobs (insertVariants).
 */
export async function insertSweep(pool: pg.Pool, boss: PgBoss, config: Readonly<Config>, s: NewSweep): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query(INSERT_SWEEP_SQL, [
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
    ]);
    await insertVariants(client, boss, config, { sweepId: s.id, keepHourly: s.plan.keepHourly }, s.variants);
  });
}

export const {
  find: findSweep,
  findByKey: findSweepByKey,
  list: listSweeps,
} = parentReads<SweepRow>(SELECT_SWEEPS_SQL, 'w');

export interface VariantRow {
  index: number;
  scenario_id: string;
  status: ScenarioStatus;
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
  name: SweepEventName;
  data: unknown;
}

/** At most this many sweep events per read: a stream that got a full page reads again at once. */
export const SWEEP_EVENTS_PAGE = 1000;

/** The sweep's events after seq `after`, in order, at most SWEEP_EVENTS_PAGE of them. */
export async function sweepEventsAfter(pool: pg.Pool, id: string, after: number): Promise<SweepEventRow[]> {
  const { rows } = await pool.query<SweepEventRow>(
    'SELECT seq, name, data FROM sweep_events WHERE sweep_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
    [id, after, SWEEP_EVENTS_PAGE],
  );
  return rows;
}
