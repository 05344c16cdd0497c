// JSON Pointers (RFC 6901) into a scenario's inputs: parsed, looked up in the inputs schema, and
// set. A sweep's parameters and an optimization's variables are both pointers.
import type { TSchema } from '@sinclair/typebox';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON Pointer (RFC 6901) segments, or null when the text is not a pointer. */
export function pointerSegments(path: string): string[] | null {
  if (!path.startsWith('/') || path.length > 200) return null;
  const segments = path.slice(1).split('/');
  if (segments.some((s) => /~[^01]|~$/.test(s) || s === '')) return null;
  return segments.map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** The schemas at these segments of the inputs schema (through objects, unions and arrays); none when there is no such place. */
export function schemasAt(schema: TSchema, segments: string[]): TSchema[] {
  if (segments.length === 0) return [schema];
  const [head, ...rest] = segments;
  const s = schema as Record<string, unknown>;
  const branches = (s.anyOf ?? s.oneOf) as TSchema[] | undefined;
  if (branches) return branches.flatMap((b) => schemasAt(b, segments));
  const props = s.properties as Record<string, TSchema> | undefined;
  if (props) return Object.hasOwn(props, head) ? schemasAt(props[head], rest) : [];
  if (s.type === 'array' && /^(0|[1-9]\d{0,4})$/.test(head)) {
    const items = s.items as TSchema | TSchema[] | undefined;
    const prefix = s.prefixItems as TSchema[] | undefined;
    const item = Array.isArray(items) ? items[Number(head)] : (prefix?.[Number(head)] ?? items);
    return item !== undefined ? schemasAt(item, rest) : [];
  }
  return [];
}
export const schemaHas = (schema: TSchema, segments: string[]) => schemasAt(schema, segments).length > 0;

/**
 * Where setting `segments` in `doc` would set an item of an array that `doc` does not give (absent,
 * or without that item): the array's pointer and its schema's item count, or null. Setting there
 * would make an object, not an array, and the scenario's check could only say "Expected array".
 */
export function absentArrayAt(
  schema: TSchema,
  doc: Record<string, unknown>,
  segments: string[],
): { pointer: string; items: number | undefined } | null {
  // `items`: the array's length when the schema fixes it.
  let node: unknown = doc;
  for (let i = 0; i < segments.length - 1; i++) {
    const next = segments[i + 1];
    node = Array.isArray(node) ? node[Number(segments[i])] : isObject(node) ? node[segments[i]] : undefined;
    const arrays = schemasAt(schema, segments.slice(0, i + 1)).filter((x) => x.type === 'array');
    if (arrays.length === 0) continue;
    if (!Array.isArray(node) || !(Number(next) < node.length)) {
      const pointer = `/${segments
        .slice(0, i + 1)
        .map((x) => x.replaceAll('~', '~0').replaceAll('/', '~1'))
        .join('/')}`;
      const { minItems, maxItems } = arrays[0] as { minItems?: number; maxItems?: number };
      return { pointer, items: minItems !== undefined && minItems === maxItems ? minItems : undefined };
    }
  }
  return null;
}

/** The message for `absentArrayAt`'s answer: what to give in the base instead. */
export const absentArrayMessage = (path: string, at: { pointer: string; items: number | undefined }) =>
  `${path} sets an item of ${at.pointer}, which the base does not give: put the whole array${
    at.items ? ` (${at.items} items)` : ''
  } in the base`;

export function setAt(target: Record<string, unknown>, segments: string[], value: unknown): void {
  let node: Record<string, unknown> | unknown[] = target;
  for (let i = 0; i < segments.length - 1; i++) {
    const key = segments[i];
    const next: unknown = Array.isArray(node) ? node[Number(key)] : node[key];
    if (isObject(next) || Array.isArray(next)) {
      node = next;
      continue;
    }
    const created: Record<string, unknown> = {};
    if (Array.isArray(node)) node[Number(key)] = created;
    else node[key] = created;
    node = created;
  }
  const last = segments[segments.length - 1];
  if (Array.isArray(node)) node[Number(last)] = value;
  else node[last] = value;
}
