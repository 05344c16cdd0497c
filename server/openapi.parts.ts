// The pieces each route file describes itself with (its RouteDoc, beside its handlers), and the
// transforms that turn TypeBox schemas into OpenAPI 3.1 component schemas. server/openapi.ts only
// assembles the route files' docs.
import type { TSchema } from '@sinclair/typebox';
import type { ParameterObject, PathsObject, ResponseObject, SchemaObject } from 'openapi3-ts/oas31';

/** One route file's part of the document: its paths, and the component schemas they name. */
export interface RouteDoc {
  paths: PathsObject;
  /** Component schemas in their response form: what the server returns, defaults filled in. */
  schemas?: Record<string, TSchema>;
  /** Component schemas in their request form: a property with a default is optional. */
  requestSchemas?: Record<string, TSchema>;
}

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export const problem = (description: string): ResponseObject => ({
  description,
  content: { 'application/problem+json': { schema: ref('Problem') } },
});

export const json = (description: string, schemaName: string): ResponseObject => ({
  description,
  content: { 'application/json': { schema: ref(schemaName) } },
});

/** The answers of a create route (POST with a JSON body and an Idempotency-Key): 201 with Location, and its problems. */
export const createResponses = (created: ResponseObject, invalid: string): Record<string, ResponseObject> => ({
  201: created,
  400: problem(invalid),
  409: problem('The Idempotency-Key was used with a different body.'),
  413: problem('The body is over the limit.'),
  415: problem('The body is not JSON.'),
});

/** A 201 whose `Location` names the new resource, with the resource as its body. */
export const created = (description: string, location: string, schemaName: string): ResponseObject => ({
  description,
  headers: { Location: { description: location, schema: { type: 'string' } } },
  content: { 'application/json': { schema: ref(schemaName) } },
});

/** A 200 whose JSON is one of these component schemas, with one documented string header. */
export const oneOfJson = (
  description: string,
  header: { name: string; description: string },
  schemaNames: string[],
  moreContent: Record<string, { schema: SchemaObject }> = {},
): ResponseObject => ({
  description,
  headers: { [header.name]: { description: header.description, schema: { type: 'string' } } },
  content: { 'application/json': { schema: { oneOf: schemaNames.map(ref) } }, ...moreContent },
});

export const idParam = (description: string): ParameterObject => ({
  name: 'id',
  in: 'path',
  required: true,
  description,
  schema: { type: 'string', format: 'uuid' },
});

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * A TypeBox schema as an OpenAPI 3.1 component (JSON Schema 2020-12): TypeBox's symbol keys
 * dropped (JSON round trip), no `$id` (it would change how `#/components/...` references resolve),
 * a nested schema that is itself a component (`$id` = a component's name) as a `$ref`, and
 * draft-07 tuples (`items: [...]`, `additionalItems`) as `prefixItems`.
 */
export function componentSchema(schema: TSchema, components: ReadonlySet<string>, self?: string): SchemaObject {
  const walk = (node: Json, top: boolean): Json => {
    if (Array.isArray(node)) return node.map((n) => walk(n, false));
    if (!node || typeof node !== 'object') return node;
    const id = node.$id;
    if (!top && typeof id === 'string' && components.has(id) && id !== self) return ref(id);
    const out: { [key: string]: Json } = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$id') continue;
      if (k === 'items' && Array.isArray(v)) {
        out.prefixItems = v.map((n) => walk(n, false));
        continue;
      }
      if (k === 'additionalItems') {
        if (v === false && Array.isArray(node.items)) out.items = false;
        continue;
      }
      out[k] = walk(v, false);
    }
    return out;
  };
  return walk(JSON.parse(JSON.stringify(schema)) as Json, true) as SchemaObject;
}

/**
 * The request form of a schema: a property that has a default is optional (the server fills it),
 * at every depth and in every branch of a union. The response form keeps it required, because
 * the server always returns it. The request form states a default in the description instead of
 * the `default` keyword: openapi-typescript (with its default options) types a property that has
 * a `default` as always present, which would make clients send every default.
 */
export function requestSchema(schema: SchemaObject): SchemaObject {
  const walk = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const out: { [key: string]: Json } = {};
    for (const [k, v] of Object.entries(node)) {
      if (k !== 'default') out[k] = walk(v);
    }
    if ('default' in node && node.default !== null && typeof node.default !== 'object') {
      const text = typeof node.description === 'string' ? node.description : '';
      if (!/Default:/.test(text))
        out.description = `${text}${text ? ' ' : ''}Default: ${JSON.stringify(node.default)}.`;
    }
    const props = node.properties;
    if (Array.isArray(node.required) && props && typeof props === 'object' && !Array.isArray(props)) {
      const required = node.required.filter((name) => {
        const p = (props as { [key: string]: Json })[name as string];
        return !(p && typeof p === 'object' && !Array.isArray(p) && 'default' in p);
      });
      if (required.length > 0) out.required = required;
      else delete out.required;
    }
    return out;
  };
  return walk(schema as Json) as SchemaObject;
}
