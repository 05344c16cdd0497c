// The routes a resource that owns variant scenarios has in common (a sweep, an optimization): its
// list (keyset pages, newest first), its read, and its event stream, each one declaration made
// from the resource's own reads and its presentation. What differs (the create, the results, the
// cancel) stays in the resource's route file.
import { type TSchema, Type } from '@sinclair/typebox';
import { HttpProblem } from '../problem.ts';
import {
  Cursor,
  decodeCursor,
  keysetPage,
  pageLimit,
  problem,
  ResumeHeaders,
  ResumeQuery,
  resumePoint,
  streamReplies,
} from '../route.common.ts';
import { defineRoute, IdParams, type RouteDeps } from '../route.ts';
import type { EventSource } from '../sse/event-streams.ts';

/** What the common routes read of a row. */
export interface ParentRow {
  id: string;
  last_seq: number;
  finished_at: Date | null;
}

export interface ParentResource<Row extends ParentRow> {
  /** `sweep` or `optimization`: in paths (plural), operation ids and messages. */
  noun: 'sweep' | 'optimization';
  /** The resource's schema and the list page's. */
  schema: TSchema;
  page: TSchema;
  find: (deps: RouteDeps, id: string) => Promise<Row | undefined>;
  list: (deps: RouteDeps, limit: number, before: string | null) => Promise<Row[]>;
  present: (row: Row) => unknown;
  /** The event stream's events, read from the resource's log. */
  events: (deps: RouteDeps, id: string) => EventSource;
  summaries: { get: string; events: string };
  eventsDescription: string;
}

/** Events that end a stream of a sweep or an optimization. */
export const FINISHED: ReadonlySet<string> = new Set(['finished']);

/** Largest list page. */
const PAGE_MAX = 1000;

const capital = (s: string) => s[0].toUpperCase() + s.slice(1);

/** The resource's path helpers, its 404, and its list, read and event-stream declarations. */
export function parentRoutes<Row extends ParentRow>(r: ParentResource<Row>) {
  const base = `/api/${r.noun}s`;
  const Noun = capital(r.noun);
  const notFound = `no ${r.noun} has this id`;
  const params = IdParams(r.noun);
  const orNotFound = async (deps: RouteDeps, id: string): Promise<Row> => {
    const row = await r.find(deps, id);
    if (!row) throw new HttpProblem('not_found', notFound);
    return row;
  };
  const list = defineRoute({
    method: 'get',
    path: base,
    operationId: `list${Noun}s`,
    summary: `List ${r.noun}s, newest first`,
    tags: [`${r.noun}s`],
    query: Type.Object({ limit: Type.Optional(pageLimit(PAGE_MAX)), cursor: Type.Optional(Cursor) }),
    responses: {
      200: {
        description: `A page of ${r.noun}s.`,
        json: r.page,
        headers: { Link: 'rel="next": the next page, when there is one.' },
      },
      400: problem('A bad query parameter.'),
    },
    async handle({ query, res }, deps) {
      const limit = query.limit ?? 100;
      const rows = await r.list(deps, limit + 1, query.cursor !== undefined ? decodeCursor(query.cursor) : null);
      const { page, next } = keysetPage(res, rows, { path: base, limit });
      res.json({ items: page.map(r.present), next_cursor: next });
    },
  });
  const get = defineRoute({
    method: 'get',
    path: `${base}/{id}`,
    operationId: `get${Noun}`,
    summary: r.summaries.get,
    tags: [`${r.noun}s`],
    params,
    notFound,
    responses: { 200: { description: `The ${r.noun}.`, json: r.schema }, 404: problem(`No such ${r.noun}.`) },
    async handle({ params, res }, deps) {
      const row = await orNotFound(deps, params.id);
      res.setHeader('Cache-Control', 'private, no-cache');
      res.json(r.present(row));
    },
  });
  const events = defineRoute({
    method: 'get',
    path: `${base}/{id}/events`,
    operationId: `get${Noun}Events`,
    summary: r.summaries.events,
    description: r.eventsDescription,
    tags: [`${r.noun}s`],
    params,
    notFound,
    query: ResumeQuery,
    headers: ResumeHeaders,
    responses: streamReplies(r.noun),
    async handle({ params, query, headers, req, res }, deps) {
      const row = await orNotFound(deps, params.id);
      await deps.streams.serve(req, res, r.events(deps, params.id), {
        ...resumePoint(query, headers),
        lastSeq: row.last_seq,
        finished: row.finished_at !== null,
        what: r.noun,
      });
    },
  });
  return { path: (id: string) => `${base}/${id}`, notFound, params, orNotFound, list, get, events };
}
