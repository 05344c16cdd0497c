// The library's routes: upload a file (its bytes as the body) or a series (JSON), list, one,
// its content, delete. A file is stored once per workspace by its SHA-256: the same bytes again
// answer 200 with the first upload's id. Another workspace's id is a 404 like an unknown one.
import { Type } from '@sinclair/typebox';
import type { Request, Response } from 'express';
import {
  type ReadResource,
  ResourceReadError,
  readResourceFile,
  readResourceSeries,
} from '../../shared/resources.read.ts';
import {
  deleteResource,
  findResource,
  listResources,
  type ResourceRow,
  resourceContent,
  storeResource,
} from '../../shared/resources.repository.ts';
import { HttpProblem } from '../problem.ts';
import { defineRoute, IdParams } from '../route.ts';

const ResourceSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  kind: Type.Union([Type.Literal('weather'), Type.Literal('wind_resource'), Type.Literal('hourly_series')]),
  format: Type.String({ description: 'sam_csv, epw, srw or series.' }),
  sha256: Type.String(),
  bytes: Type.Integer(),
  metadata: Type.Record(Type.String(), Type.Unknown(), {
    description: 'What the file says (location, elevation, time zone, years, time step, heights) and `statistics`.',
  }),
  used_by: Type.Object({ scenarios: Type.Integer(), sweeps: Type.Integer(), optimizations: Type.Integer() }),
  created_at: Type.String({ format: 'date-time' }),
  links: Type.Object({ self: Type.String(), content: Type.String() }),
});

const ResourcePage = Type.Object({
  items: Type.Array(ResourceSchema),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});

const path = (id: string) => `/api/resources/${id}`;

function present(r: ResourceRow) {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    format: r.format,
    sha256: r.sha256,
    bytes: r.bytes,
    metadata: r.metadata,
    used_by: r.used_by,
    created_at: r.created_at.toISOString(),
    links: { self: path(r.id), content: `${path(r.id)}/content` },
  };
}

/**
 * The request's bytes, refused with a 413 past the limit before more is read; the connection is
 * then closed, since the rest of the body is never read from it.
 */
async function readBody(req: Request, res: Response, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      res.setHeader('Connection', 'close');
      throw new HttpProblem('payload_too_large', `the body is over ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A series upload: `{name, kind: "hourly_series", hourly_mw | values}`, every value a finite number. */
function readSeriesBody(bytes: Buffer): { name: string; read: ReadResource } {
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new HttpProblem('malformed_json', 'the body is not valid JSON');
  }
  const b = (body ?? {}) as Record<string, unknown>;
  const fail = (field: string, message: string): never => {
    throw new HttpProblem('validation', `${field} ${message}`, { errors: [{ path: field, message }] });
  };
  if (typeof b.name !== 'string' || b.name.length === 0 || b.name.length > 200)
    fail('/name', 'must be a name of 1 to 200 characters');
  if (b.kind !== undefined && b.kind !== 'hourly_series') fail('/kind', 'a JSON upload is an hourly_series');
  const field = Array.isArray(b.hourly_mw) ? '/hourly_mw' : '/values';
  const values = b.hourly_mw ?? b.values;
  if (!Array.isArray(values)) fail('/values', 'must be an array of hourly numbers (or give hourly_mw)');
  const arr = values as unknown[];
  const bad = arr.findIndex((v) => typeof v !== 'number' || !Number.isFinite(v));
  if (bad >= 0) fail(`${field}/${bad}`, 'must be a finite number');
  try {
    return { name: b.name as string, read: readResourceSeries(arr as number[]) };
  } catch (e) {
    throw e instanceof ResourceReadError
      ? new HttpProblem('validation', `${field} ${e.message}`, { errors: [{ path: field, message: e.message }] })
      : e;
  }
}

export const createResource = defineRoute({
  method: 'post',
  path: '/api/resources',
  operationId: 'createResource',
  summary: 'Upload a file or an hourly series to the library',
  description:
    'The file\'s bytes as the body (`text/csv` or `text/plain`: SAM CSV, PSM3, EPW or SRW, detected; `?name=` names it), or JSON `{name, kind: "hourly_series", hourly_mw | values}` (8,760 values, or 8,760 × n for n ≤ 25 years). A file that cannot be read is a 400 naming its line and column. The same bytes again in the workspace answer 200 with the same resource.',
  tags: ['resources'],
  query: Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }),
  responses: {
    200: { description: 'These bytes were stored already: the same resource.', json: ResourceSchema },
    201: { description: 'Stored.', json: ResourceSchema, headers: { Location: 'The resource.' } },
    400: {
      description: 'The file or series cannot be read; `errors` names the line and column or field.',
      problem: true,
    },
    413: { description: 'The body is over BODY_LIMIT_BYTES.', problem: true },
    415: { description: 'Neither text/csv, text/plain nor application/json.', problem: true },
  },
  async handle({ query, ws, req, res }, deps) {
    const bytes = await readBody(req, res, deps.config.bodyLimitBytes);
    let name: string;
    let read: ReadResource;
    if (req.is(['application/json'])) ({ name, read } = readSeriesBody(bytes));
    else if (req.is(['text/csv', 'text/plain'])) {
      try {
        read = readResourceFile(bytes);
      } catch (e) {
        if (!(e instanceof ResourceReadError)) throw e;
        throw new HttpProblem('validation', e.message, { errors: [{ path: e.field, message: e.message }] });
      }
      name = query.name ?? `${read.kind} ${read.sha256.slice(0, 8)}`;
    } else
      throw new HttpProblem(
        'unsupported_media_type',
        'send a file as text/csv or text/plain, a series as application/json',
      );
    const { created, row } = await storeResource(ws, { name, ...read });
    if (created) res.status(201).location(path(row.id));
    res.json(present(row));
  },
});

export const resourceRoutes = [
  createResource,
  defineRoute({
    method: 'get',
    path: '/api/resources',
    operationId: 'listResources',
    summary: "The workspace's library, newest first",
    tags: ['resources'],
    query: Type.Object({
      limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
      cursor: Type.Optional(Type.String({ format: 'uuid', description: 'The last id of the page before.' })),
    }),
    responses: {
      200: { description: 'A page.', json: ResourcePage },
      400: { description: 'A bad parameter.', problem: true },
    },
    async handle({ query, ws, res }, _deps) {
      const rows = await listResources(ws, { limit: query.limit + 1, after: query.cursor });
      const more = rows.length > query.limit;
      const items = rows.slice(0, query.limit);
      res.json({ items: items.map(present), next_cursor: more ? items[items.length - 1].id : null });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/resources/{id}',
    operationId: 'getResource',
    summary: 'A resource: what it is, its statistics and its users',
    tags: ['resources'],
    params: IdParams('resource'),
    notFound: 'no such resource',
    responses: {
      200: { description: 'The resource.', json: ResourceSchema },
      404: { description: 'No such resource.', problem: true },
    },
    async handle({ params, ws, res }, _deps) {
      const row = await findResource(ws, params.id);
      if (!row) throw new HttpProblem('not_found', 'no such resource');
      res.json(present(row));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/resources/{id}/content',
    operationId: 'getResourceContent',
    summary: 'The bytes as uploaded (a series: its values as JSON)',
    tags: ['resources'],
    params: IdParams('resource'),
    notFound: 'no such resource',
    responses: {
      200: { description: 'The content.', media: ['text/csv', 'application/json'] },
      404: { description: 'No such resource.', problem: true },
    },
    async handle({ params, ws, res }, _deps) {
      const c = await resourceContent(ws, params.id);
      if (!c) throw new HttpProblem('not_found', 'no such resource');
      res.type(c.format === 'series' ? 'application/json' : 'text/csv').send(c.content);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/resources/{id}',
    operationId: 'deleteResource',
    summary: 'Delete a resource nothing uses',
    tags: ['resources'],
    params: IdParams('resource'),
    notFound: 'no such resource',
    responses: {
      204: { description: 'Deleted.' },
      404: { description: 'No such resource.', problem: true },
      409: { description: 'Something uses it; the detail says how many.', problem: true },
    },
    async handle({ params, ws, res }, _deps) {
      const out = await deleteResource(ws, params.id);
      if (!out) throw new HttpProblem('not_found', 'no such resource');
      if (!out.deleted) throw new HttpProblem('conflict', `the resource has ${out.users} user(s); delete them first`);
      res.status(204).end();
    },
  }),
];
