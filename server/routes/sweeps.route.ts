// A sweep's routes: what a sweep has of its own (its request's rules, its shape with the status
// derived from its variants' counts, its results table, its stream's progress block); the routes
// themselves are a parent's (parents.route.ts).

import { uuidv7 } from '../../shared/ids.ts';
import { resolveInputs } from '../../shared/inputs.resolve.ts';
import { KPI_NAMES } from '../../shared/kpis.ts';
import { type SweepRow, sweepReads } from '../../shared/parents.repository.ts';
import { type Sweep, SweepPage, SweepRequest, SweepResults, Sweep as SweepSchema } from '../../shared/schemas/sweep.ts';
import { planSweep, type SweepPlan } from '../../shared/sweeps.plan.ts';
import { kpiCells, parentRoutes } from './parents.route.ts';

/**
 * A sweep as the API gives it. Its status is its variants' taken together (lifecycle.ts says why it
 * is derived): queued until one starts, running, then succeeded, failed (every variant failed) or
 * cancelled (a cancel finished it).
 */
function toSweep(row: SweepRow): Sweep {
  const c = row.counts;
  const counts = { total: row.total, ...c };
  const done = c.succeeded + c.failed + c.cancelled;
  let status: Sweep['status'] = done > 0 || c.running > 0 ? 'running' : 'queued';
  if (done === row.total) status = c.cancelled > 0 ? 'cancelled' : c.failed === row.total ? 'failed' : 'succeeded';
  const self = `/api/sweeps/${row.id}`;
  return {
    id: row.id,
    name: row.name,
    status,
    counts,
    progress: done / row.total,
    base: row.base,
    vary: row.vary,
    parameters: row.parameters,
    combine: row.combine,
    keep_hourly: row.keep_hourly,
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
    links: {
      self,
      events: `${self}/events`,
      results: `${self}/results`,
      variants: `/api/scenarios?sweep_id=${row.id}&limit=100`,
    },
  };
}

export const sweepRoutes = parentRoutes<SweepRow, SweepRequest, SweepPlan>({
  noun: 'sweep',
  schema: SweepSchema,
  page: SweepPage,
  reads: sweepReads,
  present: toSweep,
  create: {
    summary: 'Create a sweep: many variants of one scenario, queued behind single scenarios',
    description:
      "Every variant is a complete scenario, validated before anything is written; a 400 names the variant and the field (`/vary/k/values/j` for a varied value, `/base/...` otherwise). All variants share one seed (the base's, or one from the sweep id) unless `/seed` is varied. One transaction writes the sweep, its variants and their jobs.",
    body: {
      schema: SweepRequest,
      name: 'SweepRequest',
      example: {
        name: 'Amarillo mix',
        base: { site: { latitude: 35.2, longitude: -101.8 } },
        vary: [
          { path: '/solar/capacity_mw_dc', values: [0, 50, 100, 150] },
          { path: '/grid/export_limit_mw', from: 100, to: 200, step: 50 },
        ],
      },
    },
    created: 'Created; its variants are queued.',
    invalid: 'Malformed JSON, a bad parameter, too many variants, or an invalid variant (named).',
    plan: (body, deps, seed, library) => planSweep(body, { maxVariants: deps.config.maxSweepVariants, seed, library }),
    parent: (plan, id, now) => ({
      kind: 'sweep',
      row: {
        id,
        name: plan.name,
        base: plan.base,
        vary: plan.vary,
        combine: plan.combine,
        keep_hourly: plan.keepHourly,
        parameters: plan.parameters.map((p) => p.path),
      },
      variants: plan.variants.map((v) => {
        const variantId = uuidv7();
        return { ...v, id: variantId, inputs: resolveInputs(v.inputs, { scenarioId: variantId, now }) };
      }),
    }),
  },
  summaries: {
    get: 'Read a sweep and its counts',
    events: 'Follow a sweep live (server-sent events)',
    cancel: "Cancel a sweep's queued variants (running ones finish)",
  },
  eventsDescription:
    'Events: `variant {index, scenario_id, status, kpis}` as each variant finishes (id = its seq), `progress {counts, progress}` (at most once a second, no id), then `finished {counts}`. Resume with `Last-Event-ID`; the stream closes after `finished`.',
  progress: (row) => {
    const s = toSweep(row);
    return { counts: s.counts, progress: s.progress };
  },
  variants: {
    path: 'results',
    operationId: 'getSweepResults',
    summary: "The sweep's results: one row per variant",
    schema: SweepResults,
    csv: 'one row per variant, one column per parameter and per KPI, then the energy totals.',
    table: (row, variants) => ({
      json: () => ({
        sweep_id: row.id,
        parameters: row.parameters,
        variants: variants.map(({ round: _round, ...v }) => v),
      }),
      columns: [
        'index',
        'scenario_id',
        'status',
        ...row.parameters,
        ...KPI_NAMES,
        'solar_mwh',
        'wind_mwh',
        'curtailed_mwh',
      ],
      cells: (v) => [
        v.index,
        v.scenario_id,
        v.status,
        ...row.parameters.map((p) => v.values[p]),
        ...kpiCells(v),
        v.totals?.solar_mwh ?? null,
        v.totals?.wind_mwh ?? null,
        v.totals?.curtailed_mwh ?? null,
      ],
    }),
  },
});
