// The OpenAPI 3.1 document, built from the routes' own declarations (server/route.ts): each
// operation's parameters, request body and responses come from the TypeBox schemas that validate
// them. A schema with an `$id` is a component; the body of a create is its request form, where a
// field with a default is optional.
import type { TObject, TSchema } from '@sinclair/typebox';
import {
  type OpenAPIObject,
  OpenApiBuilder,
  type OperationObject,
  type ParameterObject,
  type PathItemObject,
  type RequestBodyObject,
  type ResponseObject,
  type SchemaObject,
} from 'openapi3-ts/oas31';
import { Problem } from '../shared/schemas/problem.ts';
import { componentSchema, ref, requestSchema } from './openapi.parts.ts';
import type { AnyRoute, Reply } from './route.ts';
import { API_ROUTES, PUBLIC_ROUTES } from './routes/index.ts';

/** Every schema with an `$id` that the routes name, found by walking their schemas. */
function collectComponents(routes: readonly AnyRoute[]): Map<string, TSchema> {
  const found = new Map<string, TSchema>([['Problem', Problem]]);
  const visit = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const id = (node as TSchema).$id;
    if (typeof id === 'string') {
      if (found.has(id)) return;
      found.set(id, node as TSchema);
    }
    for (const v of Object.values(node)) visit(v);
  };
  for (const r of routes) {
    for (const reply of Object.values(r.responses)) visit(reply.json);
    // The body's own schema becomes its request form; what it names is a component as usual.
    if (r.body) for (const v of Object.values(r.body.schema)) visit(v);
  }
  return found;
}

const jsonSchema = (s: TSchema, names: ReadonlySet<string>): SchemaObject =>
  typeof s.$id === 'string' && names.has(s.$id) ? ref(s.$id) : componentSchema(s, names);

function parameters(r: AnyRoute, names: ReadonlySet<string>): ParameterObject[] {
  const of = (where: 'path' | 'query' | 'header', obj: TObject | undefined): ParameterObject[] =>
    Object.entries(obj?.properties ?? {}).map(([name, s]) => {
      const { description, ...schema } = componentSchema(s as TSchema, names) as SchemaObject & {
        description?: string;
      };
      delete (schema as Record<string, unknown>).errorMessage;
      return {
        name,
        in: where,
        required: where === 'path' || (obj?.required ?? []).includes(name),
        ...(description ? { description } : {}),
        schema,
      };
    });
  return [...of('path', r.params), ...of('query', r.query), ...of('header', r.headers)];
}

function response(reply: Reply, names: ReadonlySet<string>): ResponseObject {
  const content: Record<string, { schema: SchemaObject }> = {};
  if (reply.problem) content['application/problem+json'] = { schema: ref('Problem') };
  if (reply.json !== undefined) {
    const list = Array.isArray(reply.json) ? reply.json : [reply.json as TSchema];
    const schemas = list.map((s) => jsonSchema(s, names));
    content['application/json'] = { schema: schemas.length === 1 ? schemas[0] : { oneOf: schemas } };
  }
  for (const type of reply.media ?? []) content[type] = { schema: { type: 'string' as const } };
  const headers = Object.fromEntries(
    Object.entries(reply.headers ?? {}).map(([name, description]) => [
      name,
      { description, schema: { type: 'string' as const } },
    ]),
  );
  return {
    description: reply.description,
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(Object.keys(content).length ? { content } : {}),
  };
}

/**
 * A route's request body: its JSON form (a component) and the text media types it reads as they
 * come, each a string; the text's limit in its description, and its 413 and 415 among the answers.
 */
function requestBody(r: AnyRoute, bodyLimitBytes: number | undefined): RequestBodyObject {
  const content: RequestBodyObject['content'] = {};
  if (r.body) {
    content['application/json'] = {
      schema: ref(r.body.name),
      ...(r.body.example !== undefined ? { example: r.body.example } : {}),
    };
  }
  const limit = r.text?.maxBytes ?? bodyLimitBytes;
  for (const type of r.text?.media ?? []) content[type] = { schema: { type: 'string' } };
  const said = [r.body?.description, r.text?.description].filter(Boolean).join(' ');
  const sized = r.text
    ? ` At most ${limit === undefined ? 'BODY_LIMIT_BYTES' : `${limit} bytes (BODY_LIMIT_BYTES)`}; over it, 413.`
    : '';
  return { required: true, ...(said || sized ? { description: `${said}${sized}`.trim() } : {}), content };
}

/** The answers a text body brings whether or not the route names them. */
const TEXT_REPLIES: Record<number, Reply> = {
  413: { description: 'The body is over the limit.', problem: true },
  415: { description: 'A content type the route does not read; `Accept-Post` lists those it does.', problem: true },
};

function operation(r: AnyRoute, names: ReadonlySet<string>, auth: boolean, bodyLimitBytes?: number): OperationObject {
  const replies = r.text ? { ...TEXT_REPLIES, ...r.responses } : r.responses;
  const responses = Object.fromEntries(Object.entries(replies).map(([s, reply]) => [s, response(reply, names)]));
  if (auth) responses[401] = response({ description: 'Missing or wrong API key.', problem: true }, names);
  // Every API request counts against its workspace's quotas (server/quotas.ts).
  if (r.path.startsWith('/api/')) {
    responses[429] = response(
      {
        description: 'Over a quota of the workspace (`quota` names it); nothing was written.',
        problem: true,
        headers: { 'Retry-After': 'Seconds to wait before retrying.' },
      },
      names,
    );
  }
  const op: OperationObject = {
    operationId: r.operationId,
    summary: r.summary,
    ...(r.description ? { description: r.description } : {}),
    tags: r.tags,
    parameters: parameters(r, names),
    responses,
    // The key applies to /api/* only; health, documents and problem pages stay open.
    security: auth ? [{ bearer: [] }] : [],
  };
  if (r.body || r.text) op.requestBody = requestBody(r, bodyLimitBytes);
  return op;
}

export function buildOpenApi(options: {
  auth: boolean;
  routes?: readonly AnyRoute[];
  /** The server's BODY_LIMIT_BYTES, said in the text bodies' descriptions. */
  bodyLimitBytes?: number;
}): OpenAPIObject {
  const routes = options.routes ?? [...PUBLIC_ROUTES, ...API_ROUTES];
  const components = collectComponents(routes);
  const names = new Set(components.keys());
  const builder = OpenApiBuilder.create()
    .addOpenApiVersion('3.1.0')
    .addTitle('Hourglass')
    .addVersion('0.5.0')
    .addLicense({ name: 'UNLICENSED', identifier: 'LicenseRef-Proprietary' })
    .addDescription(
      'Scenario calculations for hybrid solar + wind projects: 25 years of hourly generation (PVWatts v5, SAM wind) and Single Owner financial statements. Create a scenario, follow its events, read its statements.',
    )
    .addServer({ url: '/', description: 'This server (the document is served by the API it describes).' });
  for (const [name, s] of components) builder.addSchema(name, componentSchema(s, names, name));
  for (const r of routes) {
    if (r.body) builder.addSchema(r.body.name, requestSchema(componentSchema(r.body.schema, names)));
  }
  if (options.auth) {
    builder.addSecurityScheme('bearer', { type: 'http', scheme: 'bearer', description: 'An API key from API_KEYS.' });
  }
  const paths = new Map<string, PathItemObject>();
  for (const r of routes) {
    const item = paths.get(r.path) ?? {};
    item[r.method] = operation(r, names, options.auth && r.path.startsWith('/api/'), options.bodyLimitBytes);
    paths.set(r.path, item);
  }
  for (const [path, item] of paths) builder.addPath(path, item);
  return builder.getSpec();
}
