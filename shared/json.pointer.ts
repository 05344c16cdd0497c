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

/** The JSON Pointer (RFC 6901) text of these segments. */
export const pointerText = (segments: readonly (string | number)[]) =>
  `/${segments.map((p) => String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

/**
 * Why `path` cannot be set in `doc` when it sets an item of an array that `doc` does not give
 * (absent, or without that item), or null. Setting there would make an object, not an array, and
 * the scenario's check could only say "Expected array".
 */
export function absentArrayError(
  schema: TSchema,
  doc: Record<string, unknown>,
  path: string,
  segments: string[],
): string | null {
  let node: unknown = doc;
  for (let i = 0; i < segments.length - 1; i++) {
    node = Array.isArray(node) ? node[Number(segments[i])] : isObject(node) ? node[segments[i]] : undefined;
    const array = schemasAt(schema, segments.slice(0, i + 1)).find((x) => x.type === 'array');
    if (!array || (Array.isArray(node) && Number(segments[i + 1]) < node.length)) continue;
    // The array's length, when the schema fixes it.
    const fixed = array.minItems !== undefined && array.minItems === array.maxItems ? ` (${array.minItems} items)` : '';
    return `${path} sets an item of ${pointerText(segments.slice(0, i + 1))}, which the base does not give: put the whole array${fixed} in the base`;
  }
  return null;
}

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
