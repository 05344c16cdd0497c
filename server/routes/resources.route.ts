// The library's routes: upload a file (its bytes as the body) or a series (JSON), list, one,
// its content, delete. A file is stored once per workspace by its SHA-256: the same bytes again
// answer 200 with the first upload's id. Another workspace's id is a 404 like an unknown one.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import {
  type ReadResource,
  ResourceReadError,
  readResourceFile,
  readResourceSeries,
  seriesLengthError,
} from '../../shared/resources.read.ts';
import {
  deleteResource,
  findResource,
  listResources,
  type ResourceRow,
  resourceContent,
  storeResource,
} from '../../shared/resources.repository.ts';
import type { FieldError } from '../../shared/schemas/problem.ts';
import { HttpProblem } from '../problem.ts';
import { defineRoute, IdParams } from '../route.ts';

const num = (description: string) => Type.Number({ description });
const maybe = <T extends TSchema>(s: T) => Type.Optional(Type.Union([s, Type.Null()]));

/** What a file or series says and the statistics a person checks; each kind has its own fields. */
const ResourceStatistics = Type.Object(
  {
    annual_ghi_kwh_m2: Type.Optional(num('Weather: annual global horizontal irradiance, kWh/m².')),
    annual_dni_kwh_m2: Type.Optional(num('Weather: annual direct normal irradiance, kWh/m².')),
    monthly_ghi_kwh_m2: Type.Optional(Type.Array(Type.Number(), { minItems: 12, maxItems: 12 })),
    monthly_dni_kwh_m2: Type.Optional(Type.Array(Type.Number(), { minItems: 12, maxItems: 12 })),
    mean_temperature_c: maybe(num('Mean air temperature, °C.')),
    mean_wind_speed_ms: Type.Optional(num('Weather: mean wind speed at its measuring height, m/s.')),
    mean_wind_speed_ms_by_height: Type.Optional(
      Type.Record(Type.String(), Type.Number(), { description: 'SRW: mean speed per height (m), m/s.' }),
    ),
    wind_rose: maybe(
      Type.Object(
        {
          height_m: Type.Number(),
          speed_bins_ms: Type.Array(Type.Number(), { description: 'Lower edges of the speed bins, m/s.' }),
          frequency: Type.Array(Type.Array(Type.Number()), {
            description: 'Share of the steps per sector (16, from north, clockwise) and speed bin.',
          }),
        },
        { description: 'SRW: the wind rose at its highest speed column (null without directions).' },
      ),
    ),
    mean: Type.Optional(num('Series: the mean value.')),
    min: Type.Optional(num('Series: the smallest value.')),
    max: Type.Optional(num('Series: the largest value.')),
    annual_sum: Type.Optional(num('Series: the sum of its values per year.')),
    peak_week: Type.Optional(
      Type.Object(
        { first_hour: Type.Integer({ minimum: 0 }), values: Type.Array(Type.Number()) },
        { description: "Series: the 168 hours around the first year's highest value." },
      ),
    ),
  },
  { description: 'The fields of the resource’s kind.' },
);

const ResourceMetadata = Type.Object(
  {
    latitude: maybe(Type.Number()),
    longitude: maybe(Type.Number()),
    elevation_m: maybe(Type.Number()),
    time_zone_hours: maybe(Type.Number()),
    years: Type.Integer({ minimum: 1 }),
    time_step_minutes: Type.Number(),
    wind_height_m: maybe(Type.Number()),
    heights_m: Type.Optional(Type.Array(Type.Number(), { description: 'SRW: the heights of its columns, m.' })),
    length: Type.Optional(Type.Integer({ description: 'Series: its number of values.' })),
    statistics: ResourceStatistics,
  },
  { description: 'What the file says (location, elevation, time zone, years, time step, heights) and its statistics.' },
);

const ResourceSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  kind: Type.Union([Type.Literal('weather'), Type.Literal('wind_resource'), Type.Literal('hourly_series')]),
  format: Type.String({ description: 'sam_csv, epw, srw or series.' }),
  sha256: Type.String(),
  bytes: Type.Integer(),
  metadata: ResourceMetadata,
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

const SeriesValues = (what: string) =>
  Type.Optional(
    Type.Array(Type.Number(), { description: `${what}: 8,760 hourly values, or 8,760 × n for n ≤ 25 years.` }),
  );

/** A series upload: its name and its values (`values`, or `hourly_mw` for a load or a profile). */
const SeriesUpload = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    kind: Type.Optional(Type.Literal('hourly_series')),
    values: SeriesValues('The values'),
    hourly_mw: SeriesValues('The same, named as a load or profile is'),
  },
  { additionalProperties: false },
);

/** One of `values` and `hourly_mw`, of a length a series may have. */
function seriesErrors(b: Static<typeof SeriesUpload>): FieldError[] {
  if ((b.values === undefined) === (b.hourly_mw === undefined))
    return [{ path: '/values', message: 'give the values as `values` or as `hourly_mw` (one of them)' }];
  const field = b.values ? '/values' : '/hourly_mw';
  const wrong = seriesLengthError((b.values ?? b.hourly_mw ?? []).length);
  return wrong ? [{ path: field, message: wrong }] : [];
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
  body: {
    schema: SeriesUpload,
    name: 'SeriesUpload',
    description: 'JSON: an hourly series.',
    refine: seriesErrors,
  },
  text: {
    media: ['text/csv', 'text/plain'],
    description: 'Text: a weather file (SAM CSV, PSM3, EPW) or an SRW wind file, as it is on disk.',
  },
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
  async handle({ query, body, text, ws, res }, _deps) {
    let name: string;
    let read: ReadResource;
    if (text) {
      try {
        read = readResourceFile(text);
      } catch (e) {
        if (!(e instanceof ResourceReadError)) throw e;
        throw new HttpProblem('validation', e.message, { errors: [{ path: e.field, message: e.message }] });
      }
      name = query.name ?? `${read.kind} ${read.sha256.slice(0, 8)}`;
    } else {
      name = body.name;
      read = readResourceSeries((body.values ?? body.hourly_mw) as number[]);
    }
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
      409: {
        description:
          'Something uses it: the detail names the users (up to 10, and how many more) and `users` lists them (kind, id, href).',
        problem: true,
      },
    },
    async handle({ params, ws, res }, _deps) {
      const out = await deleteResource(ws, params.id);
      if (!out) throw new HttpProblem('not_found', 'no such resource');
      if (!out.deleted) {
        const named = out.named.map((u) => `${u.kind} ${u.id}`).join(', ');
        const more = out.users > out.named.length ? ` and ${out.users - out.named.length} more` : '';
        throw new HttpProblem('conflict', `the resource has ${out.users} user(s): ${named}${more}; delete them first`, {
          extra: {
            users: out.named.map((u) => ({
              ...u,
              href: `/api/${u.kind === 'scenario' ? 'scenarios' : `${u.kind}s`}/${u.id}`,
            })),
          },
        });
      }
      res.status(204).end();
    },
  }),
];
