// The routes of a parent of variant scenarios (a sweep, an optimization), each one declaration
// made from the resource's own parts: the create (the same steps for both: plan the request or
// answer 400, replay an Idempotency-Key, write the parent with its variants and jobs in one
// transaction, answer 201), the list (keyset pages, newest first), the read, the event stream, the
// variants' table (JSON or CSV, sortable by any KPI) and the cancel. What differs (the request's
// rules, the resource's shape, the table's columns) is the resource file's.
import { type TSchema, Type } from '@sinclair/typebox';
import type { Response } from 'express';
import { parentChannel } from '../../shared/channels.ts';
import { deleteParent } from '../../shared/deletion.repository.ts';
import { uuidv7 } from '../../shared/ids.ts';
import { seedFromId } from '../../shared/inputs.resolve.ts';
import { KPI_NAMES } from '../../shared/kpis.ts';
import type { ParentKind } from '../../shared/lifecycle.ts';
import {
  insertParent,
  markCancelling,
  type NewParent,
  PARENT_EVENTS_PAGE,
  type ParentRow,
  parentEventsAfter,
  type VariantRow,
  variantRows,
} from '../../shared/parents.repository.ts';
import type { FieldError } from '../../shared/schemas/problem.ts';
import type { Library } from '../../shared/validate.refs.ts';
import type { WorkspaceDb } from '../../shared/workspace.ts';
import { IdempotentCreate } from '../http.ts';
import { type ParentRequest, parentResources, prepareParentLibrary, withResourcesKept } from '../library.inputs.ts';
import { HttpProblem, invalidRequest } from '../problem.ts';
import {
  Cursor,
  createReplies,
  decodeCursor,
  FormatQuery,
  IdempotencyHeaders,
  keysetPage,
  pageLimit,
  problem,
  ResumeHeaders,
  ResumeQuery,
  resumePoint,
  sendCsv,
  streamReplies,
  wantsCsv,
} from '../route.common.ts';
import { type AnyRoute, defineRoute, IdParams, type RouteDeps } from '../route.ts';
import { cancelQueued } from '../scenarios.repository.ts';
import { type EventSource, sseBlock } from '../sse/event-streams.ts';

/** A parent kind's reads (shared/parents.repository.ts). */
interface Reads<Row> {
  find: (ws: WorkspaceDb, id: string) => Promise<Row | undefined>;
  findByKey: (ws: WorkspaceDb, key: string) => Promise<Row | undefined>;
  list: (ws: WorkspaceDb, limit: number, before: string | null) => Promise<Row[]>;
  /** Whether the workspace has it, without reading it (a stream asks after every empty read). */
  exists: (ws: WorkspaceDb, id: string) => Promise<boolean>;
}

/** The variants' table of one parent: its JSON answer (built only when it is sent) and its CSV columns. */
interface VariantTable {
  json: () => unknown;
  columns: string[];
  cells: (v: VariantRow) => unknown[];
}

interface ParentResource<Row extends ParentRow, Body, Plan> {
  /** `sweep` or `optimization`: in paths (plural), operation ids, messages, and the database's names. */
  noun: ParentKind;
  schema: TSchema;
  page: TSchema;
  reads: Reads<Row>;
  present: (row: Row) => unknown;
  create: {
    summary: string;
    description: string;
    body: { schema: TSchema; name: string; example: unknown };
    created: string;
    invalid: string;
    /** The request checked (after its schema) and planned, or the errors, each naming its field. */
    plan: (
      body: Body,
      deps: RouteDeps,
      seed: number,
      library: Library,
    ) => { ok: true; plan: Plan } | { ok: false; errors: FieldError[] };
    /** What to write: the parent's row and its first variants. */
    parent: (plan: Plan, id: string, now: Date, library: Library) => NewParent;
  };
  summaries: { get: string; events: string; cancel: string };
  eventsDescription: string;
  /** An unstored `progress` block for the stream, at most once a second per read (a sweep's counts). */
  progress?: (row: Row) => unknown;
  variants: {
    /** The route's last path segment: `results`, `evaluations`. */
    path: string;
    operationId: string;
    summary: string;
    schema: TSchema;
    csv: string;
    table: (row: Row, variants: VariantRow[]) => VariantTable;
  };
}

/** Events that end a stream of a sweep or an optimization. */
export const FINISHED: ReadonlySet<string> = new Set(['finished']);

/** Largest list page. */
const PAGE_MAX = 1000;
/** A progress block at most this often per stream: the counts are a query. */
const PROGRESS_EVERY_MS = 1000;

const capital = (s: string) => s[0].toUpperCase() + s.slice(1);

/** The variants' sort keys: `index` or a KPI, `-` first for descending. */
const SORTS = ['index', ...KPI_NAMES].flatMap((k) => [k, `-${k}`]);

/** Variants sorted by a key; those without it (not finished, failed, or a null KPI) go last either way. */
/** What a new parent queues at once (its quota's count): a sweep's variants, an optimization's round 0. */
const queuedBy = (p: NewParent) => (p.kind === 'sweep' ? p.variants.length : p.round0.evaluations.length);

function sortVariants(rows: VariantRow[], sort: string): VariantRow[] {
  const desc = sort.startsWith('-');
  const key = desc ? sort.slice(1) : sort;
  const value = (r: VariantRow): number | null => (key === 'index' ? r.index : (r.kpis?.[key] ?? null));
  return [...rows].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    if (x === null || y === null) return x === null ? (y === null ? a.index - b.index : 1) : -1;
    return (desc ? y - x : x - y) || a.index - b.index;
  });
}

/** What each of a resource's routes is made from: the resource, its paths, its 404. */
interface Context<Row extends ParentRow, Body, Plan> {
  r: ParentResource<Row, Body, Plan>;
  base: string;
  Noun: string;
  tags: string[];
  notFound: string;
  params: ReturnType<typeof IdParams>;
  path: (id: string) => string;
  /** The parent in the request's workspace; another workspace's is answered as unknown. */
  orNotFound: (ws: WorkspaceDb, id: string) => Promise<Row>;
}

/** The resource's routes, in the order they are documented. */
export function parentRoutes<Row extends ParentRow, Body, Plan>(r: ParentResource<Row, Body, Plan>): AnyRoute[] {
  const base = `/api/${r.noun}s`;
  const notFound = `no ${r.noun} has this id`;
  const c: Context<Row, Body, Plan> = {
    r,
    base,
    Noun: capital(r.noun),
    tags: [`${r.noun}s`],
    notFound,
    params: IdParams(r.noun),
    path: (id) => `${base}/${id}`,
    orNotFound: async (ws, id) => {
      const row = await r.reads.find(ws, id);
      if (!row) throw new HttpProblem('not_found', notFound);
      return row;
    },
  };
  return [createRoute(c), listRoute(c), getRoute(c), eventsRoute(c), variantsRoute(c), cancelRoute(c), deleteRoute(c)];
}

function createRoute<Row extends ParentRow, Body, Plan>({
  r,
  base,
  Noun,
  tags,
  path,
  orNotFound,
}: Context<Row, Body, Plan>) {
  return defineRoute({
    method: 'post',
    path: base,
    operationId: `create${Noun}`,
    summary: r.create.summary,
    description: r.create.description,
    tags,
    headers: IdempotencyHeaders,
    body: r.create.body,
    responses: createReplies({ description: r.create.created, json: r.schema }, r.create.invalid),
    async handle({ headers, body, ws, req, res }, deps) {
      const id = uuidv7();
      // Inline files of the base (and of a sweep's values) become library references; references
      // are checked in the caller's workspace.
      const library = await prepareParentLibrary(ws, body as ParentRequest);
      const planned = r.create.plan(body as Body, deps, seedFromId(id), library);
      if (!planned.ok) throw invalidRequest(r.noun, planned.errors);
      const idempotent = new IdempotentCreate(req, res, headers['Idempotency-Key'], {
        find: (key) => r.reads.findByKey(ws, key),
        answer: (row) => ({ location: path(row.id), body: r.present(row) }),
      });
      if (await idempotent.replay()) return;
      const parent = r.create.parent(planned.plan, id, new Date(), library);
      await deps.quotas.admit(ws.workspace, queuedBy(parent));
      const resources = parentResources(parent, await library.commit(ws));
      const created = await idempotent.insert(() =>
        withResourcesKept(() =>
          insertParent(
            ws,
            deps.boss,
            deps.config,
            parent,
            {
              key: idempotent.key,
              hash: idempotent.hash,
            },
            resources,
          ),
        ),
      );
      if (!created) return;
      res
        .status(201)
        .location(path(id))
        .json(r.present(await orNotFound(ws, id)));
    },
  });
}

function listRoute<Row extends ParentRow, Body, Plan>({ r, base, Noun, tags }: Context<Row, Body, Plan>) {
  return defineRoute({
    method: 'get',
    path: base,
    operationId: `list${Noun}s`,
    summary: `List ${r.noun}s, newest first`,
    tags,
    query: Type.Object({ limit: Type.Optional(pageLimit(PAGE_MAX)), cursor: Type.Optional(Cursor) }),
    responses: {
      200: {
        description: `A page of ${r.noun}s.`,
        json: r.page,
        headers: { Link: 'rel="next": the next page, when there is one.' },
      },
      400: problem('A bad query parameter.'),
    },
    async handle({ query, ws, res }, _deps) {
      const limit = query.limit ?? 100;
      const before = query.cursor !== undefined ? decodeCursor(query.cursor) : null;
      const rows = await r.reads.list(ws, limit + 1, before);
      const { page, next } = keysetPage(res, rows, { path: base, limit });
      res.json({ items: page.map(r.present), next_cursor: next });
    },
  });
}

function getRoute<Row extends ParentRow, Body, Plan>(c: Context<Row, Body, Plan>) {
  const { r, base, Noun, tags, params, notFound, orNotFound } = c;
  return defineRoute({
    method: 'get',
    path: `${base}/{id}`,
    operationId: `get${Noun}`,
    summary: r.summaries.get,
    tags,
    params,
    notFound,
    responses: { 200: { description: `The ${r.noun}.`, json: r.schema }, 404: problem(`No such ${r.noun}.`) },
    async handle({ params, ws, res }, _deps) {
      const row = await orNotFound(ws, params.id);
      res.setHeader('Cache-Control', 'private, no-cache');
      res.json(r.present(row));
    },
  });
}

/** The parent's stored events, and the resource's progress block when it has one. */
function eventSource<Row extends ParentRow, Body, Plan>(
  c: Context<Row, Body, Plan>,
  ws: WorkspaceDb,
  id: string,
): EventSource {
  const { r } = c;
  let progressAt = 0;
  return {
    channel: parentChannel(r.noun, id),
    terminal: FINISHED,
    exists: () => r.reads.exists(ws, id),
    async read(after, more) {
      const rows = await parentEventsAfter(ws, r.noun, id, after);
      more.full = rows.length === PARENT_EVENTS_PAGE;
      let extra: Buffer | null = null;
      const finished = rows.some((e) => FINISHED.has(e.name));
      if (r.progress && (finished || Date.now() - progressAt >= PROGRESS_EVERY_MS)) {
        progressAt = Date.now();
        extra = sseBlock(null, 'progress', r.progress(await c.orNotFound(ws, id)));
      }
      return { events: rows.map((e) => ({ seq: e.seq, name: e.name, bytes: sseBlock(e.seq, e.name, e.data) })), extra };
    },
  };
}

function eventsRoute<Row extends ParentRow, Body, Plan>(c: Context<Row, Body, Plan>) {
  const { r, base, Noun, tags, params, notFound, orNotFound } = c;
  return defineRoute({
    method: 'get',
    path: `${base}/{id}/events`,
    operationId: `get${Noun}Events`,
    summary: r.summaries.events,
    description: r.eventsDescription,
    tags,
    params,
    notFound,
    query: ResumeQuery,
    headers: ResumeHeaders,
    responses: streamReplies(r.noun),
    async handle({ params, query, headers, ws, req, res }, deps) {
      const row = await orNotFound(ws, params.id);
      await deps.streams.serve(req, res, eventSource(c, ws, params.id), {
        ...resumePoint(query, headers),
        lastSeq: row.last_seq,
        finished: row.finished_at !== null,
        what: r.noun,
      });
    },
  });
}

function variantsRoute<Row extends ParentRow, Body, Plan>(c: Context<Row, Body, Plan>) {
  const { r, base, tags, params, notFound, orNotFound } = c;
  return defineRoute({
    method: 'get',
    path: `${base}/{id}/${r.variants.path}`,
    operationId: r.variants.operationId,
    summary: r.variants.summary,
    tags,
    params,
    notFound,
    query: Type.Object({
      sort: Type.Optional(
        Type.Union(
          SORTS.map((k) => Type.Literal(k)),
          {
            description: 'A KPI name or `index`; `-` first for descending. Rows without the KPI come last.',
            errorMessage: `one of index, ${KPI_NAMES.join(', ')} (- first for descending)`,
          },
        ),
      ),
      format: FormatQuery(r.variants.csv),
    }),
    responses: {
      200: { description: `The ${r.variants.path}.`, json: r.variants.schema, media: ['text/csv'] },
      400: problem('A bad query parameter.'),
      404: problem(`No such ${r.noun}.`),
    },
    async handle({ params, query, ws, req, res }, _deps) {
      const row = await orNotFound(ws, params.id);
      let rows = await variantRows(ws, r.noun, params.id);
      if (query.sort !== undefined) rows = sortVariants(rows, query.sort);
      const table = r.variants.table(row, rows);
      res.setHeader('Cache-Control', 'private, no-cache');
      if (wantsCsv(query.format, (types) => req.accepts(types))) sendTable(res, `${r.noun}-${row.id}.csv`, table, rows);
      else res.json(table.json());
    },
  });
}

function cancelRoute<Row extends ParentRow, Body, Plan>(c: Context<Row, Body, Plan>) {
  const { r, base, Noun, tags, params, notFound, orNotFound } = c;
  return defineRoute({
    method: 'post',
    path: `${base}/{id}/cancel`,
    operationId: `cancel${Noun}`,
    summary: r.summaries.cancel,
    tags,
    params,
    notFound,
    responses: {
      200: { description: `The ${r.noun} after the cancel.`, json: r.schema },
      404: problem(`No such ${r.noun}.`),
      409: problem(`The ${r.noun} has finished: nothing to cancel.`),
    },
    async handle({ params, ws, res }, deps) {
      // Whether it is the workspace's: its row only (the answer below reads it whole).
      if (!(await r.reads.exists(ws, params.id))) throw new HttpProblem('not_found', notFound);
      if (!(await markCancelling(ws, r.noun, params.id))) {
        throw new HttpProblem('conflict', `the ${r.noun} has finished: nothing to cancel`);
      }
      await cancelQueued(ws, deps.boss, r.noun === 'sweep' ? { sweepId: params.id } : { optimizationId: params.id });
      res.json(r.present(await orNotFound(ws, params.id)));
    },
  });
}

function deleteRoute<Row extends ParentRow, Body, Plan>(c: Context<Row, Body, Plan>) {
  const { r, base, Noun, tags, params, notFound } = c;
  const variants = r.noun === 'sweep' ? 'variants' : 'evaluations';
  return defineRoute({
    method: 'delete',
    path: `${base}/{id}`,
    operationId: `delete${Noun}`,
    summary: `Delete a ${r.noun} with its ${variants}, their events, results and jobs`,
    description: `Cancels what is queued or running, then removes the ${r.noun}, its ${variants} (each an ordinary scenario) with their events and results, its own events and every job, in one transaction. A worker calculating one of them writes nothing. Open event streams end with a \`deleted\` event. Then the ${r.noun} is answered 404.`,
    tags,
    params,
    notFound,
    responses: { 204: { description: 'Deleted.' }, 404: problem(`No such ${r.noun}.`) },
    async handle({ params, ws, res }, deps) {
      if (!(await deleteParent(ws, deps.boss, r.noun, params.id))) {
        throw new HttpProblem('not_found', notFound);
      }
      res.status(204).end();
    },
  });
}

function sendTable(res: Response, filename: string, table: VariantTable, rows: VariantRow[]): void {
  sendCsv(res, filename, table.columns, rows.map(table.cells));
}

/** A KPI's cells of a variant, in the registry's order (the CSV's KPI columns). */
export const kpiCells = (v: VariantRow) => KPI_NAMES.map((k) => v.kpis?.[k] ?? null);
