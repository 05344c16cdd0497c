// POST /api/sweeps, GET /api/sweeps, GET /api/sweeps/{id}, its events (SSE), its results (JSON or
// CSV) and POST /api/sweeps/{id}/cancel.
import { createHash } from 'node:crypto';
import express, { type Router as ExpressRouter, type Request, type Response, Router } from 'express';
import { sweepChannel } from '../../shared/channels.ts';
import { isUuid, uuidv7 } from '../../shared/ids.ts';
import { resolveInputs, seedFromId } from '../../shared/inputs.resolve.ts';
import {
  KPI_NAMES,
  type Sweep,
  SweepPage,
  SweepRequest,
  SweepResults,
  Sweep as SweepSchema,
} from '../../shared/schemas/sweep.ts';
import type { AppDeps } from '../deps.ts';
import {
  allowQuery,
  checkStreamStart,
  idempotencyKey,
  lastEventId,
  methodNotAllowed,
  openEventStream,
  replayCreate,
  requireJson,
} from '../http.ts';
import { created, createResponses, idParam, json, problem, type RouteDoc } from '../openapi.parts.ts';
import { HttpProblem } from '../problem.ts';
import { cancelQueued } from '../scenarios.repository.ts';
import { expandSweep } from '../sweeps.expand.ts';
import {
  findSweep,
  findSweepByKey,
  insertSweep,
  listSweeps,
  type SweepRow,
  sweepEventsAfter,
  sweepVariants,
  type VariantRow,
} from '../sweeps.repository.ts';

const sweepPath = (id: string) => `/api/sweeps/${id}`;
/** A progress event at most this often per stream: the counts are a query. */
const PROGRESS_EVERY_MS = 1000;

function sweepId(raw: unknown): string {
  if (typeof raw !== 'string' || !isUuid(raw)) throw new HttpProblem('not_found', 'no sweep has this id');
  return raw.toLowerCase();
}

function toSweep(row: SweepRow): Sweep {
  const c = row.counts;
  const counts = { total: row.total, ...c };
  const done = c.succeeded + c.failed + c.cancelled;
  let status: Sweep['status'] = done > 0 || c.running > 0 ? 'running' : 'queued';
  if (done === row.total) status = c.cancelled > 0 ? 'cancelled' : c.failed === row.total ? 'failed' : 'succeeded';
  const self = sweepPath(row.id);
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

const KPIS = new Set(KPI_NAMES);

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

const csvCell = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

export const sweepsDoc: RouteDoc = {
  schemas: { Sweep: SweepSchema, SweepPage, SweepResults },
  requestSchemas: { SweepRequest },
  paths: {
    '/api/sweeps': {
      post: {
        operationId: 'createSweep',
        summary: 'Create a sweep: many variants of one scenario, queued behind single scenarios',
        description:
          "Every variant is a complete scenario, validated before anything is written; a 400 names the variant and the field (`/vary/k/values/j` for a varied value, `/base/...` otherwise). All variants share one seed (the base's, or one from the sweep id) unless `/seed` is varied. One transaction writes the sweep, its variants and their jobs.",
        tags: ['sweeps'],
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: 'Repeat a create safely: the same key and body return the first sweep.',
            schema: { type: 'string', minLength: 1, maxLength: 255 },
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/SweepRequest' },
              example: {
                name: 'Amarillo mix',
                base: { site: { latitude: 35.2, longitude: -101.8 } },
                vary: [
                  { path: '/solar/capacity_mw_dc', values: [0, 50, 100, 150] },
                  { path: '/grid/export_limit_mw', from: 100, to: 200, step: 50 },
                ],
              },
            },
          },
        },
        responses: createResponses(
          created('Created; its variants are queued.', 'The new sweep.', 'Sweep'),
          'Malformed JSON, a bad parameter, too many variants, or an invalid variant (named).',
        ),
      },
      get: {
        operationId: 'listSweeps',
        summary: 'List sweeps, newest first',
        tags: ['sweeps'],
        parameters: [
          {
            name: 'limit',
            in: 'query',
            required: false,
            schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
          },
          {
            name: 'cursor',
            in: 'query',
            required: false,
            description: "The previous page's next_cursor.",
            schema: { type: 'string' },
          },
        ],
        responses: { 200: json('A page of sweeps.', 'SweepPage'), 400: problem('A bad query parameter.') },
      },
    },
    '/api/sweeps/{id}': {
      get: {
        operationId: 'getSweep',
        summary: 'Read a sweep and its counts',
        tags: ['sweeps'],
        parameters: [idParam('The sweep id (UUID).')],
        responses: { 200: json('The sweep.', 'Sweep'), 404: problem('No such sweep.') },
      },
    },
    '/api/sweeps/{id}/events': {
      get: {
        operationId: 'getSweepEvents',
        summary: 'Follow a sweep live (server-sent events)',
        description:
          'Events: `variant {index, scenario_id, status, kpis}` as each variant finishes (id = its seq), `progress {counts, progress}` (at most once a second, no id), then `finished {counts}`. Resume with `Last-Event-ID`; the stream closes after `finished`.',
        tags: ['sweeps'],
        parameters: [
          idParam('The sweep id (UUID).'),
          { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'integer', minimum: 0 } },
          { name: 'last_event_id', in: 'query', required: false, schema: { type: 'integer', minimum: 0 } },
        ],
        responses: {
          200: { description: 'An event stream.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          204: { description: 'Finished, and Last-Event-ID is its last event.' },
          400: problem('Last-Event-ID is not a number, or is after the last event.'),
          404: problem('No such sweep.'),
        },
      },
    },
    '/api/sweeps/{id}/results': {
      get: {
        operationId: 'getSweepResults',
        summary: "The sweep's results: one row per variant",
        tags: ['sweeps'],
        parameters: [
          idParam('The sweep id (UUID).'),
          {
            name: 'sort',
            in: 'query',
            required: false,
            description: 'A KPI name or `index`; `-` first for descending. Variants without the KPI come last.',
            schema: { type: 'string', enum: ['index', '-index', ...KPI_NAMES.flatMap((k) => [k, `-${k}`])] },
          },
          {
            name: 'format',
            in: 'query',
            required: false,
            description: 'csv: one row per variant, one column per parameter and per KPI, then the energy totals.',
            schema: { type: 'string', enum: ['json', 'csv'] },
          },
        ],
        responses: {
          200: {
            description: 'The results.',
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/SweepResults' } },
              'text/csv': { schema: { type: 'string' } },
            },
          },
          400: problem('A bad query parameter.'),
          404: problem('No such sweep.'),
        },
      },
    },
    '/api/sweeps/{id}/cancel': {
      post: {
        operationId: 'cancelSweep',
        summary: "Cancel a sweep's queued variants (running ones finish)",
        tags: ['sweeps'],
        parameters: [idParam('The sweep id (UUID).')],
        responses: {
          200: json('The sweep after the cancel.', 'Sweep'),
          404: problem('No such sweep.'),
          409: problem('The sweep has finished: nothing to cancel.'),
        },
      },
    },
  },
};

export function sweepRoutes(deps: AppDeps): ExpressRouter {
  const { pool, boss, config, listener } = deps;
  const router = Router();
  const body = express.json({ limit: config.bodyLimitBytes, type: () => true, strict: false });

  const replay = async (res: Response, key: string, hash: string) =>
    replayCreate(res, await findSweepByKey(pool, key), hash, (s) => ({ location: sweepPath(s.id), body: toSweep(s) }));

  async function create(req: Request, res: Response): Promise<void> {
    allowQuery(req.query, []);
    const key = idempotencyKey(req);
    const id = uuidv7();
    const expansion = expandSweep(req.body, { maxVariants: config.maxSweepVariants, seed: seedFromId(id) });
    if (!expansion.ok) {
      throw new HttpProblem('validation', `${expansion.errors.length} problem(s) with the sweep`, {
        errors: expansion.errors,
      });
    }
    const hash = key ? createHash('sha256').update(JSON.stringify(req.body)).digest('hex') : null;
    if (key && hash && (await replay(res, key, hash))) return;
    const now = new Date();
    const variants = expansion.plan.variants.map((v) => {
      const variantId = uuidv7();
      return { ...v, id: variantId, inputs: resolveInputs(v.inputs, { scenarioId: variantId, now }) };
    });
    try {
      await insertSweep(pool, boss, config, {
        id,
        plan: expansion.plan,
        variants,
        idempotencyKey: key,
        requestHash: hash,
      });
    } catch (err) {
      if (key && hash && (err as { code?: string }).code === '23505' && (await replay(res, key, hash))) return;
      throw err;
    }
    const row = await findSweep(pool, id);
    if (!row) throw new Error(`sweep ${id} vanished after its commit`);
    res.status(201).location(sweepPath(id)).json(toSweep(row));
  }

  async function list(req: Request, res: Response): Promise<void> {
    allowQuery(req.query, ['limit', 'cursor']);
    const limitText = req.query.limit;
    let limit = 100;
    if (limitText !== undefined) {
      if (
        typeof limitText !== 'string' ||
        !/^\d{1,4}$/.test(limitText) ||
        Number(limitText) < 1 ||
        Number(limitText) > 1000
      ) {
        throw new HttpProblem('bad_request', '?limit must be an integer from 1 to 1000', {
          errors: [{ path: '?limit', message: 'must be an integer from 1 to 1000' }],
        });
      }
      limit = Number(limitText);
    }
    const cursor = req.query.cursor;
    let before: string | null = null;
    if (cursor !== undefined) {
      const id = typeof cursor === 'string' ? Buffer.from(cursor, 'base64url').toString('latin1') : '';
      if (!isUuid(id)) {
        throw new HttpProblem('bad_request', '?cursor is not a cursor this server gave', {
          errors: [{ path: '?cursor', message: 'use next_cursor as it is' }],
        });
      }
      before = id.toLowerCase();
    }
    const rows = await listSweeps(pool, limit + 1, before);
    const more = rows.length > limit;
    const page = rows.slice(0, limit);
    const next = more ? Buffer.from(page[page.length - 1].id, 'latin1').toString('base64url') : null;
    if (next) res.setHeader('Link', `</api/sweeps?limit=${limit}&cursor=${next}>; rel="next"`);
    res.json({ items: page.map(toSweep), next_cursor: next });
  }

  async function show(req: Request, res: Response): Promise<void> {
    allowQuery(req.query, []);
    const row = await findSweep(pool, sweepId(req.params.id));
    if (!row) throw new HttpProblem('not_found', 'no sweep has this id');
    res.setHeader('Cache-Control', 'private, no-cache');
    res.json(toSweep(row));
  }

  async function results(req: Request, res: Response): Promise<void> {
    allowQuery(req.query, ['sort', 'format']);
    const { sort, format } = req.query;
    if (
      sort !== undefined &&
      (typeof sort !== 'string' || !(sort.replace(/^-/, '') === 'index' || KPIS.has(sort.replace(/^-/, ''))))
    ) {
      throw new HttpProblem('bad_request', '?sort must be a KPI name or index, optionally after -', {
        errors: [{ path: '?sort', message: `one of index, ${KPI_NAMES.join(', ')} (- first for descending)` }],
      });
    }
    if (format !== undefined && format !== 'json' && format !== 'csv') {
      throw new HttpProblem('bad_request', '?format must be json or csv', {
        errors: [{ path: '?format', message: 'must be json or csv' }],
      });
    }
    const id = sweepId(req.params.id);
    const row = await findSweep(pool, id);
    if (!row) throw new HttpProblem('not_found', 'no sweep has this id');
    let variants = await sweepVariants(pool, id);
    if (typeof sort === 'string') variants = sortVariants(variants, sort);
    res.setHeader('Cache-Control', 'private, no-cache');
    const csv =
      format === 'csv' || (format === undefined && req.accepts(['application/json', 'text/csv']) === 'text/csv');
    if (!csv) {
      res.json({ sweep_id: id, parameters: row.parameters, variants });
      return;
    }
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
    const lines = [header.map(csvCell).join(',')];
    for (const v of variants) {
      lines.push(
        [
          v.index,
          v.scenario_id,
          v.status,
          ...row.parameters.map((p) => v.values[p]),
          ...KPI_NAMES.map((k) => v.kpis?.[k] ?? null),
          v.totals?.solar_mwh ?? null,
          v.totals?.wind_mwh ?? null,
          v.totals?.curtailed_mwh ?? null,
        ]
          .map(csvCell)
          .join(','),
      );
    }
    res.type('text/csv').setHeader('Content-Disposition', `attachment; filename="sweep-${id}.csv"`);
    res.send(`${lines.join('\n')}\n`);
  }

  async function cancel(req: Request, res: Response): Promise<void> {
    allowQuery(req.query, []);
    const id = sweepId(req.params.id);
    const before = await findSweep(pool, id);
    if (!before) throw new HttpProblem('not_found', 'no sweep has this id');
    if (before.finished_at) throw new HttpProblem('conflict', 'the sweep has finished: nothing to cancel');
    await cancelQueued(pool, boss, { sweepId: id });
    const after = await findSweep(pool, id);
    res.json(toSweep(after ?? before));
  }

  let open = 0;
  async function events(req: Request, res: Response): Promise<void> {
    allowQuery(req.query, ['last_event_id']);
    const id = sweepId(req.params.id);
    const from = lastEventId(req);
    const row = await findSweep(pool, id);
    if (!row) throw new HttpProblem('not_found', 'no sweep has this id');
    checkStreamStart(req, { open, max: config.maxSseStreams, from, lastSeq: row.last_seq, what: 'sweep' });
    if (row.finished_at && from >= row.last_seq) {
      res.status(204).end();
      return;
    }
    open++;
    let closed = false;
    let last = from;
    let reading = false;
    let again = false;
    let progressAt = 0;
    let unsubscribe: (() => void) | null = null;
    const ping = setInterval(() => res.write(': ping\n\n'), config.sseHeartbeatMs);
    const close = () => {
      if (closed) return;
      closed = true;
      open--;
      clearInterval(ping);
      unsubscribe?.();
      res.end();
    };
    req.on('close', close);
    res.on('error', close);
    const sendProgress = async () => {
      const now = await findSweep(pool, id);
      if (!now || closed) return;
      const s = toSweep(now);
      res.write(`event: progress\ndata: ${JSON.stringify({ counts: s.counts, progress: s.progress })}\n\n`);
    };
    // The row table is the truth: on every wake, read the events after the last one sent.
    const read = async (): Promise<void> => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        do {
          again = false;
          const rows = await sweepEventsAfter(pool, id, last);
          if (closed) return;
          let finished = false;
          let text = '';
          for (const e of rows) {
            if (e.seq !== last + 1) break;
            last = e.seq;
            if (e.name === 'finished') finished = true;
            else text += `id: ${e.seq}\nevent: ${e.name}\ndata: ${JSON.stringify(e.data)}\n\n`;
            if (finished) {
              res.write(text);
              text = '';
              await sendProgress();
              res.write(`id: ${e.seq}\nevent: finished\ndata: ${JSON.stringify(e.data)}\n\n`);
              break;
            }
          }
          if (text) res.write(text);
          if (finished) return close();
          if (rows.length === 1000) again = true;
          if (Date.now() - progressAt >= PROGRESS_EVERY_MS) {
            progressAt = Date.now();
            await sendProgress();
          }
        } while (again && !closed);
      } catch (err) {
        deps.logger.warn({ err: (err as Error).message, sweep: id }, 'sweep stream read failed');
        close();
      } finally {
        reading = false;
      }
    };
    openEventStream(res);
    unsubscribe = await listener.subscribe(sweepChannel(id), { wake: () => void read() });
    if (closed) {
      unsubscribe();
      return;
    }
    await read();
  }

  router.route('/api/sweeps').get(list).post(requireJsonMw, body, create).all(methodNotAllowed('GET', 'POST'));
  router.route('/api/sweeps/:id').get(show).all(methodNotAllowed('GET'));
  router.route('/api/sweeps/:id/events').get(events).all(methodNotAllowed('GET'));
  router.route('/api/sweeps/:id/results').get(results).all(methodNotAllowed('GET'));
  router.route('/api/sweeps/:id/cancel').post(cancel).all(methodNotAllowed('POST'));
  return router;
}

function requireJsonMw(req: Request, _res: Response, next: (err?: unknown) => void): void {
  try {
    requireJson(req);
    next();
  } catch (err) {
    next(err);
  }
}
