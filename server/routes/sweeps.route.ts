import { Type } from '@sinclair/typebox';
import type { Response } from 'express';
import { sweepChannel } from '../../shared/channels.ts';
import { uuidv7 } from '../../shared/ids.ts';
import { resolveInputs, seedFromId } from '../../shared/inputs.resolve.ts';
import {
  KPI_NAMES,
  type Sweep,
  SweepPage,
  SweepRequest,
  SweepResults,
  Sweep as SweepSchema,
} from '../../shared/schemas/sweep.ts';
import { IdempotentCreate } from '../http.ts';
import { HttpProblem, invalidRequest } from '../problem.ts';
import { createReplies, FormatQuery, IdempotencyHeaders, problem, sendCsv, wantsCsv } from '../route.common.ts';
import { type AnyRoute, defineRoute, type RouteDeps } from '../route.ts';
import { cancelQueued } from '../scenarios.repository.ts';
import { type EventSource, sseBlock } from '../sse/event-streams.ts';
import { expandSweep } from '../sweeps.expand.ts';
import {
  findSweep,
  findSweepByKey,
  insertSweep,
  listSweeps,
  SWEEP_EVENTS_PAGE,
  type SweepRow,
  sweepEventsAfter,
  sweepVariants,
  type VariantRow,
} from '../sweeps.repository.ts';
import { FINISHED, parentRoutes } from './parents.route.ts';

/** A progress event at most this often per stream: the counts are a query. */
const PROGRESS_EVERY_MS = 1000;

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

function sortVariants(rows: VariantRow[], sort: string): VariantRow[] {
  const desc = sort.startsWith('-');
  const key = desc ? sort.slice(1) : sort;
  const value = (r: VariantRow): number | null => (key === 'index' ? r.index : (r.kpis?.[key] ?? null));
  return [...rows].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    // Variants without the KPI (not finished, failed, or a null KPI) go last either way.
    if (x === null || y === null) return x === null ? (y === null ? a.index - b.index : 1) : -1;
    return (desc ? y - x : x - y) || a.index - b.index;
  });
}

export const createSweep = defineRoute({
  method: 'post',
  path: '/api/sweeps',
  operationId: 'createSweep',
  summary: 'Create a sweep: many variants of one scenario, queued behind single scenarios',
  description:
    "Every variant is a complete scenario, validated before anything is written; a 400 names the variant and the field (`/vary/k/values/j` for a varied value, `/base/...` otherwise). All variants share one seed (the base's, or one from the sweep id) unless `/seed` is varied. One transaction writes the sweep, its variants and their jobs.",
  tags: ['sweeps'],
  headers: IdempotencyHeaders,
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
  responses: createReplies(
    { description: 'Created; its variants are queued.', json: SweepSchema },
    'Malformed JSON, a bad parameter, too many variants, or an invalid variant (named).',
  ),
  async handle({ headers, body, req, res }, deps) {
    const id = uuidv7();
    const expansion = expandSweep(body, { maxVariants: deps.config.maxSweepVariants, seed: seedFromId(id) });
    if (!expansion.ok) throw invalidRequest('sweep', expansion.errors);
    const create = new IdempotentCreate(req, res, headers['Idempotency-Key'], {
      find: (key) => findSweepByKey(deps.pool, key),
      answer: (s) => ({ location: sweep.path(s.id), body: toSweep(s) }),
    });
    if (await create.replay()) return;
    const now = new Date();
    const variants = expansion.plan.variants.map((v) => {
      const variantId = uuidv7();
      return { ...v, id: variantId, inputs: resolveInputs(v.inputs, { scenarioId: variantId, now }) };
    });
    const created = await create.insert(() =>
      insertSweep(deps.pool, deps.boss, deps.config, {
        id,
        plan: expansion.plan,
        variants,
        idempotencyKey: create.key,
        requestHash: create.hash,
      }),
    );
    if (created)
      res
        .status(201)
        .location(sweep.path(id))
        .json(toSweep(await sweep.orNotFound(deps, id)));
  },
});

/** A sweep's events: `variant` and `finished` rows, with a `progress` block at most once a second per read. */
function sweepEvents(deps: RouteDeps, id: string): EventSource {
  let progressAt = 0;
  return {
    channel: sweepChannel(id),
    terminal: FINISHED,
    async read(after, more) {
      const rows = await sweepEventsAfter(deps.pool, id, after);
      more.full = rows.length === SWEEP_EVENTS_PAGE;
      const finished = rows.some((r) => r.name === 'finished');
      let extra: Buffer | null = null;
      if (finished || Date.now() - progressAt >= PROGRESS_EVERY_MS) {
        progressAt = Date.now();
        const s = toSweep(await sweep.orNotFound(deps, id));
        extra = sseBlock(null, 'progress', { counts: s.counts, progress: s.progress });
      }
      return { events: rows.map((r) => ({ seq: r.seq, name: r.name, bytes: sseBlock(r.seq, r.name, r.data) })), extra };
    },
  };
}
const sweep = parentRoutes<SweepRow>({
  noun: 'sweep',
  schema: SweepSchema,
  page: SweepPage,
  find: (deps, id) => findSweep(deps.pool, id),
  list: (deps, limit, before) => listSweeps(deps.pool, limit, before),
  present: toSweep,
  events: sweepEvents,
  summaries: { get: 'Read a sweep and its counts', events: 'Follow a sweep live (server-sent events)' },
  eventsDescription:
    'Events: `variant {index, scenario_id, status, kpis}` as each variant finishes (id = its seq), `progress {counts, progress}` (at most once a second, no id), then `finished {counts}`. Resume with `Last-Event-ID`; the stream closes after `finished`.',
});

const SORTS = ['index', ...KPI_NAMES].flatMap((k) => [k, `-${k}`]);

export const getSweepResults = defineRoute({
  method: 'get',
  path: '/api/sweeps/{id}/results',
  operationId: 'getSweepResults',
  summary: "The sweep's results: one row per variant",
  tags: ['sweeps'],
  params: sweep.params,
  notFound: sweep.notFound,
  query: Type.Object({
    sort: Type.Optional(
      Type.Union(
        SORTS.map((k) => Type.Literal(k)),
        {
          description: 'A KPI name or `index`; `-` first for descending. Variants without the KPI come last.',
          errorMessage: `one of index, ${KPI_NAMES.join(', ')} (- first for descending)`,
        },
      ),
    ),
    format: FormatQuery('one row per variant, one column per parameter and per KPI, then the energy totals.'),
  }),
  responses: {
    200: { description: 'The results.', json: SweepResults, media: ['text/csv'] },
    400: problem('A bad query parameter.'),
    404: problem('No such sweep.'),
  },
  async handle({ params, query, req, res }, deps) {
    const row = await sweep.orNotFound(deps, params.id);
    let variants = await sweepVariants(deps.pool, params.id);
    if (query.sort !== undefined) variants = sortVariants(variants, query.sort);
    res.setHeader('Cache-Control', 'private, no-cache');
    if (wantsCsv(query.format, (types) => req.accepts(types))) sendResultsCsv(res, row, variants);
    else res.json({ sweep_id: params.id, parameters: row.parameters, variants });
  },
});

function sendResultsCsv(res: Response, row: SweepRow, variants: VariantRow[]): void {
  const header = [
    'index',
    'scenario_id',
    'status',
    ...row.parameters,
    ...KPI_NAMES,
    'solar_mwh',
    'wind_mwh',
    'curtailed_mwh',
  ];
  const rows = variants.map((v) => [
    v.index,
    v.scenario_id,
    v.status,
    ...row.parameters.map((p) => v.values[p]),
    ...KPI_NAMES.map((k) => v.kpis?.[k] ?? null),
    v.totals?.solar_mwh ?? null,
    v.totals?.wind_mwh ?? null,
    v.totals?.curtailed_mwh ?? null,
  ]);
  sendCsv(res, `sweep-${row.id}.csv`, header, rows);
}

export const cancelSweep = defineRoute({
  method: 'post',
  path: '/api/sweeps/{id}/cancel',
  operationId: 'cancelSweep',
  summary: "Cancel a sweep's queued variants (running ones finish)",
  tags: ['sweeps'],
  params: sweep.params,
  notFound: sweep.notFound,
  responses: {
    200: { description: 'The sweep after the cancel.', json: SweepSchema },
    404: problem('No such sweep.'),
    409: problem('The sweep has finished: nothing to cancel.'),
  },
  async handle({ params, res }, deps) {
    const before = await sweep.orNotFound(deps, params.id);
    if (before.finished_at) throw new HttpProblem('conflict', 'the sweep has finished: nothing to cancel');
    await cancelQueued(deps.pool, deps.boss, { sweepId: params.id });
    const after = await findSweep(deps.pool, params.id);
    res.json(toSweep(after ?? before));
  },
});

export const sweepRoutes: readonly AnyRoute[] = [
  createSweep,
  sweep.list,
  sweep.get,
  sweep.events,
  getSweepResults,
  cancelSweep,
];
