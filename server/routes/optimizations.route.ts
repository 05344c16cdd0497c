// An optimization's routes, each one declaration over the house's mechanisms: the create (one
// transaction, Idempotency-Key), keyset paging, the one event-stream mechanism, CSV, cancel.
import { Type } from '@sinclair/typebox';
import type { Response } from 'express';
import { optimizationChannel } from '../../shared/channels.ts';
import { uuidv7 } from '../../shared/ids.ts';
import { seedFromId } from '../../shared/inputs.resolve.ts';
import { type OptimizationPlan, planOptimization, roundOf, searchProblemOf } from '../../shared/optimizations.plan.ts';
import {
  type EvaluationRow,
  findOptimization,
  findOptimizationByKey,
  insertOptimization,
  listOptimizations,
  markCancelled,
  OPTIMIZATION_EVENTS_BATCH,
  type OptimizationRow,
  optimizationEvaluations,
  optimizationEventsAfter,
} from '../../shared/optimizations.repository.ts';
import { isFeasible, nextRound } from '../../shared/optimizations.search.ts';
import {
  Evaluations,
  type Optimization,
  OptimizationPage,
  OptimizationRequest,
  Optimization as OptimizationSchema,
} from '../../shared/schemas/optimization.ts';
import { IdempotentCreate } from '../http.ts';
import { HttpProblem, invalidRequest } from '../problem.ts';
import { createReplies, FormatQuery, IdempotencyHeaders, problem, sendCsv, wantsCsv } from '../route.common.ts';
import { type AnyRoute, defineRoute, type RouteDeps } from '../route.ts';
import { cancelQueued } from '../scenarios.repository.ts';
import { type EventSource, sseBlock } from '../sse/event-streams.ts';
import { FINISHED, parentRoutes } from './parents.route.ts';

const planOf = (row: OptimizationRow) => row.request as OptimizationPlan;

function toOptimization(row: OptimizationRow): Optimization {
  const self = `/api/optimizations/${row.id}`;
  const { seed: _seed, ...request } = row.request;
  const best = row.best
    ? {
        scenario_id: row.best.scenario_id,
        index: row.best.index,
        values: row.best.values,
        kpis: row.best.kpis as Record<string, number | null>,
      }
    : null;
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    evaluations: row.evaluated,
    queued: row.pending,
    rounds: row.rounds,
    max_evaluations: row.request.max_evaluations,
    best,
    feasible: row.feasible,
    request,
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
    links: { self, events: `${self}/events`, evaluations: `${self}/evaluations` },
  };
}

export const createOptimization = defineRoute({
  method: 'post',
  path: '/api/optimizations',
  operationId: 'createOptimization',
  summary: 'Start an optimization: the best design in a box, found by a search over scenarios',
  description:
    "The request is checked whole before anything is written; a 400 names the field (a pointer to a non-numeric input, min > max, an unknown KPI, a base that is not a valid scenario at a face or a corner of the box). Every evaluation shares one seed (the base's, or one from the optimization id). One transaction writes the optimization, its first round of evaluations and their jobs.",
  tags: ['optimizations'],
  headers: IdempotencyHeaders,
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
  responses: createReplies(
    { description: 'Created; its first round is queued.', json: OptimizationSchema },
    'Malformed JSON or an invalid request (each problem named).',
  ),
  async handle({ headers, body, req, res }, deps) {
    const id = uuidv7();
    const planned = planOptimization(body, seedFromId(id));
    if (!planned.ok) throw invalidRequest('optimization', planned.errors);
    const create = new IdempotentCreate(req, res, headers['Idempotency-Key'], {
      find: (key) => findOptimizationByKey(deps.pool, key),
      answer: (o) => ({ location: optimization.path(o.id), body: toOptimization(o) }),
    });
    if (await create.replay()) return;
    const plan = planned.plan;
    const points = nextRound(searchProblemOf(plan), []) ?? [];
    const now = new Date();
    const { evaluations, invalid } = roundOf(plan, { optimizationId: id, round: 0, firstIndex: 0, now }, points);
    const created = await create.insert(() =>
      insertOptimization(deps.pool, deps.boss, deps.config, {
        id,
        createdAt: now,
        name: plan.name,
        request: plan,
        round0: { evaluations, invalid },
        idempotencyKey: create.key,
        requestHash: create.hash,
      }),
    );
    if (!created) return;
    res
      .status(201)
      .location(optimization.path(id))
      .json(toOptimization(await optimization.orNotFound(deps, id)));
  },
});

/** An optimization's events, from its log: `evaluation`, `improved` and `finished`. */
function optimizationEvents(deps: RouteDeps, id: string): EventSource {
  return {
    channel: optimizationChannel(id),
    terminal: FINISHED,
    async read(after, more) {
      const rows = await optimizationEventsAfter(deps.pool, id, after);
      more.full = rows.length === OPTIMIZATION_EVENTS_BATCH;
      return {
        events: rows.map((r) => ({ seq: r.seq, name: r.name, bytes: sseBlock(r.seq, r.name, r.data) })),
        extra: null,
      };
    },
  };
}

const optimization = parentRoutes<OptimizationRow>({
  noun: 'optimization',
  schema: OptimizationSchema,
  page: OptimizationPage,
  find: (deps, id) => findOptimization(deps.pool, id),
  list: (deps, limit, before) => listOptimizations(deps.pool, limit, before),
  present: toOptimization,
  events: optimizationEvents,
  summaries: {
    get: 'Read an optimization: its progress and the best design so far',
    events: 'Follow an optimization live (server-sent events)',
  },
  eventsDescription:
    'Events (id = seq): `evaluation {index, round, scenario_id, status, values, kpis, totals}` as each point finishes; `improved {index, scenario_id, values, kpis, feasible, evaluations}` when a round ends with a better design; then `finished {status, evaluations, best}`. Resume with `Last-Event-ID`; the stream closes after `finished`.',
});

/** The evaluations as the API gives them: metrics with curtailment_percent, and whether each met every constraint. */
function toEvaluations(row: OptimizationRow, evaluations: EvaluationRow[]) {
  const problem = searchProblemOf(planOf(row));
  return evaluations.map((e) => {
    const kpis = e.status === 'succeeded' && e.kpis ? e.kpis : null;
    const { totals: _t, ...rest } = e;
    return { ...rest, kpis, feasible: isFeasible(problem, kpis) };
  });
}

export const getOptimizationEvaluations = defineRoute({
  method: 'get',
  path: '/api/optimizations/{id}/evaluations',
  operationId: 'getOptimizationEvaluations',
  summary: 'Every point the search tried, in order (JSON or CSV)',
  tags: ['optimizations'],
  params: optimization.params,
  notFound: optimization.notFound,
  query: Type.Object({
    format: FormatQuery('one row per evaluation, one column per variable and per KPI.'),
  }),
  responses: {
    200: { description: 'The evaluations.', json: Evaluations, media: ['text/csv'] },
    400: problem('A bad query parameter.'),
    404: problem('No such optimization.'),
  },
  async handle({ params, query, req, res }, deps) {
    const row = await optimization.orNotFound(deps, params.id);
    const evaluations = toEvaluations(row, await optimizationEvaluations(deps.pool, params.id));
    const variables = row.request.variables.map((v) => v.path);
    res.setHeader('Cache-Control', 'private, no-cache');
    if (wantsCsv(query.format, (types) => req.accepts(types))) sendEvaluationsCsv(res, row, variables, evaluations);
    else res.json({ optimization_id: row.id, variables, evaluations });
  },
});

function sendEvaluationsCsv(
  res: Response,
  row: OptimizationRow,
  variables: string[],
  evaluations: ReturnType<typeof toEvaluations>,
): void {
  const metrics = [...new Set(evaluations.flatMap((e) => Object.keys(e.kpis ?? {})))];
  const header = ['index', 'round', 'scenario_id', 'status', 'feasible', ...variables, ...metrics];
  const rows = evaluations.map((e) => [
    e.index,
    e.round,
    e.scenario_id,
    e.status,
    e.feasible,
    ...variables.map((p) => e.values[p]),
    ...metrics.map((k) => e.kpis?.[k] ?? null),
  ]);
  sendCsv(res, `optimization-${row.id}.csv`, header, rows);
}

export const cancelOptimization = defineRoute({
  method: 'post',
  path: '/api/optimizations/{id}/cancel',
  operationId: 'cancelOptimization',
  summary: 'Cancel an optimization: no further round; its queued evaluations are cancelled (running ones finish)',
  tags: ['optimizations'],
  params: optimization.params,
  notFound: optimization.notFound,
  responses: {
    200: { description: 'The optimization after the cancel.', json: OptimizationSchema },
    404: problem('No such optimization.'),
    409: problem('The optimization has finished: nothing to cancel.'),
  },
  async handle({ params, res }, deps) {
    await optimization.orNotFound(deps, params.id);
    if (!(await markCancelled(deps.pool, params.id))) {
      throw new HttpProblem('conflict', 'the optimization has finished: nothing to cancel');
    }
    await cancelQueued(deps.pool, deps.boss, { optimizationId: params.id });
    res.json(toOptimization(await optimization.orNotFound(deps, params.id)));
  },
});

export const optimizationRoutes: readonly AnyRoute[] = [
  createOptimization,
  optimization.list,
  optimization.get,
  optimization.events,
  getOptimizationEvaluations,
  cancelOptimization,
];
