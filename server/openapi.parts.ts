// The transforms that turn TypeBox schemas into OpenAPI 3.1 component schemas (server/openapi.ts
// builds the document from the routes' declarations with them).
import type { TSchema } from '@sinclair/typebox';
import type { SchemaObject } from 'openapi3-ts/oas31';

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

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
