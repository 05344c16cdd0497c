// An optimization's routes: what an optimization has of its own (its request's rules and round 0,
// its shape with the stored status and the best design, its evaluations table with feasibility);
// the routes themselves are a parent's (parents.route.ts).
import { KPI_NAMES } from '../../shared/kpis.ts';
import { type OptimizationPlan, planOptimization, roundOf, searchProblemOf } from '../../shared/optimizations.plan.ts';
import { isFeasible, nextRound } from '../../shared/optimizations.search.ts';
import { type OptimizationRow, optimizationReads, type VariantRow } from '../../shared/parents.repository.ts';
import {
  Evaluations,
  type Optimization,
  OptimizationPage,
  OptimizationRequest,
  Optimization as OptimizationSchema,
} from '../../shared/schemas/optimization.ts';
import type { Kpis } from '../../shared/schemas/result.ts';
import { kpiCells, parentRoutes } from './parents.route.ts';

function toOptimization(row: OptimizationRow): Optimization {
  const self = `/api/optimizations/${row.id}`;
  const { seed: _seed, ...request } = row.request;
  const c = row.counts;
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    evaluations: c.succeeded + c.failed + c.cancelled,
    queued: c.queued + c.running,
    rounds: row.rounds,
    max_evaluations: row.request.max_evaluations,
    best: row.best ? { ...row.best, kpis: row.best.kpis as Kpis } : null,
    feasible: row.feasible,
    request,
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
    links: { self, events: `${self}/events`, evaluations: `${self}/evaluations` },
  };
}

/** An evaluation's KPIs when it succeeded, else null; and whether it met every constraint. */
function evaluationOf(row: OptimizationRow) {
  const problem = searchProblemOf(row.request as OptimizationPlan);
  return (e: VariantRow) => {
    const kpis = e.status === 'succeeded' && e.kpis ? e.kpis : null;
    return { kpis, feasible: isFeasible(problem, kpis) };
  };
}

export const optimizationRoutes = parentRoutes<OptimizationRow, OptimizationRequest, OptimizationPlan>({
  noun: 'optimization',
  schema: OptimizationSchema,
  page: OptimizationPage,
  reads: optimizationReads,
  present: toOptimization,
  create: {
    summary: 'Start an optimization: the best design in a box, found by a search over scenarios',
    description:
      "The request is checked whole before anything is written; a 400 names the field (a pointer to a non-numeric input, min > max, an unknown KPI, a base that is not a valid scenario at a face or a corner of the box). Every evaluation shares one seed (the base's, or one from the optimization id). One transaction writes the optimization, its first round of evaluations and their jobs.",
    body: {
      schema: OptimizationRequest,
      name: 'OptimizationRequest',
      example: {
        name: 'Amarillo best mix',
        base: { site: { latitude: 35.2, longitude: -101.8 }, grid: { export_limit_mw: 150 } },
        variables: [
          { path: '/solar/capacity_mw_dc', min: 0, max: 300, step: 10 },
          { path: '/wind/capacity_mw', min: 0, max: 300, step: 10 },
        ],
        objective: { maximize: 'equity_npv' },
        constraints: [{ kpi: 'min_dscr', min: 1.3 }],
        max_evaluations: 96,
      },
    },
    created: 'Created; its first round is queued.',
    invalid: 'Malformed JSON or an invalid request (each problem named).',
    plan: (body, _deps, seed, library) => planOptimization(body, seed, library),
    parent: (plan, id, now, library) => {
      const points = nextRound(searchProblemOf(plan), []) ?? [];
      const { evaluations, invalid } = roundOf(
        plan,
        { optimizationId: id, round: 0, firstIndex: 0, now },
        points,
        library,
      );
      return {
        kind: 'optimization',
        row: { id, name: plan.name, request: plan, created_at: now },
        round0: { evaluations, invalid },
      };
    },
  },
  summaries: {
    get: 'Read an optimization: its progress and the best design so far',
    events: 'Follow an optimization live (server-sent events)',
    cancel: 'Cancel an optimization: no further round; its queued evaluations are cancelled (running ones finish)',
  },
  eventsDescription:
    'Events (id = seq): `evaluation {index, round, scenario_id, status, values, kpis, totals}` as each point finishes; `improved {index, scenario_id, values, kpis, feasible, evaluations}` when a round ends with a better design; then `finished {status, evaluations, best}`. Resume with `Last-Event-ID`; the stream closes after `finished`.',
  variants: {
    path: 'evaluations',
    operationId: 'getOptimizationEvaluations',
    summary: 'Every point the search tried, in order (JSON or CSV)',
    schema: Evaluations,
    csv: 'one row per evaluation, one column per variable and per KPI.',
    table: (row, rows) => {
      const variables = row.request.variables.map((v) => v.path);
      const of = evaluationOf(row);
      return {
        json: () => ({
          optimization_id: row.id,
          variables,
          evaluations: rows.map((e) => ({
            index: e.index,
            round: e.round ?? 0,
            scenario_id: e.scenario_id,
            status: e.status,
            values: e.values,
            ...of(e),
          })),
        }),
        columns: ['index', 'round', 'scenario_id', 'status', 'feasible', ...variables, ...KPI_NAMES],
        cells: (e) => {
          const { kpis, feasible } = of(e);
          return [
            e.index,
            e.round,
            e.scenario_id,
            e.status,
            feasible,
            ...variables.map((p) => e.values[p]),
            ...kpiCells({ ...e, kpis }),
          ];
        },
      };
    },
  },
});
