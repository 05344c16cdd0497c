// A create's library references and inline files (docs/resources.md): an inline weather file, SRW
// file or hourly series is put into the workspace's library (interned by SHA-256, as POST
// /api/resources does) and replaced by its reference, so a scenario stores references, never
// bytes; every referenced resource of the caller's workspace is read once for the validator
// (shared/validate.refs.ts). Nothing is written until the create's validation has passed.

import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import { uuidv7 } from '../shared/ids.ts';
import { pointerSegments, setAt } from '../shared/json.pointer.ts';
import type { NewParent } from '../shared/parents.repository.ts';
import { ResourceReadError, readResourceFile, readResourceSeries } from '../shared/resources.read.ts';
import { type ResourceContent, referenceFor, type Slot, slotsOf } from '../shared/resources.refs.ts';
import { idsBySha256, type NewResource, resourcesWithContent, storeResource } from '../shared/resources.repository.ts';
import type { Library } from '../shared/validate.refs.ts';
import type { WorkspaceDb } from '../shared/workspace.ts';
import { HttpProblem } from './problem.ts';

type Entry = ResourceContent & { name: string };

/** The library a create validates against, and the inline files it will store once it is valid. */
export class CreateLibrary implements Library {
  readonly #entries = new Map<string, Entry>();
  /** Inline files and series of the request, by the id they will have: stored by `commit`. */
  readonly #pending = new Map<string, NewResource>();

  get(id: string): Entry | undefined {
    return this.#entries.get(id);
  }

  /**
   * Puts the request's inline files and series (in each of `roots`, parts of the request at their
   * pointers) in the library's place, replacing each by its reference, then reads every resource
   * referenced. A file that cannot be read, or is of another kind than its place takes, stays
   * inline: the validator reports it as it always has. `ids`: more ids the request names (a sweep
   * varying `/weather/id`).
   */
  static async prepare(
    ws: WorkspaceDb,
    roots: readonly unknown[],
    ids: readonly string[] = [],
  ): Promise<CreateLibrary> {
    const lib = new CreateLibrary();
    const inline: Array<{ slot: Slot; read: NewResource; content: ResourceContent }> = [];
    for (const root of roots)
      for (const slot of slotsOf(root)) {
        if (slot.id !== null) continue;
        const read = readInline(slot);
        if (read) inline.push({ slot, ...read });
      }
    const existing = await idsBySha256(ws, [...new Set(inline.map((i) => i.read.sha256))]);
    const bySha = new Map<string, string>(existing);
    for (const { slot, read, content } of inline) {
      let id = bySha.get(read.sha256);
      if (!id) {
        id = uuidv7();
        bySha.set(read.sha256, id);
        lib.#pending.set(id, read);
        lib.#entries.set(id, { ...content, name: read.name });
      }
      slot.set(referenceFor(slot, id));
    }
    const wanted = new Set(ids);
    for (const root of roots)
      for (const s of slotsOf(root)) if (s.id !== null && !lib.#pending.has(s.id)) wanted.add(s.id);
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    for (const row of await resourcesWithContent(
      ws,
      [...wanted].filter((id) => uuid.test(id)),
    )) {
      const text = row.content.toString('utf8');
      const content =
        row.kind === 'hourly_series'
          ? { kind: row.kind, format: 'series', values: JSON.parse(text) as number[] }
          : { kind: row.kind, format: row.format, text };
      lib.#entries.set(row.id, { ...(content as ResourceContent), name: row.name });
    }
    return lib;
  }

  /**
   * Stores the inline files the valid request used (the same bytes stored meanwhile by another
   * request: that resource; `rename` then gives its id for the one the inputs hold).
   */
  async commit(ws: WorkspaceDb): Promise<Map<string, string>> {
    const rename = new Map<string, string>();
    for (const [id, r] of this.#pending) {
      const { row } = await storeResource(ws, r, id);
      if (row.id !== id) rename.set(id, row.id);
    }
    return rename;
  }
}

/** A file's or series' resource as an upload of it would be, when it is what its place takes. */
function readInline(slot: Slot): { read: NewResource; content: ResourceContent } | null {
  const value = slot.get();
  try {
    if (slot.kind === 'hourly_series') {
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'number' && Number.isFinite(v))) return null;
      if (value.length / HOURS_PER_YEAR > (slot.maxYears ?? 1)) return null;
      const read = readResourceSeries(value as number[]);
      const name = `${slot.at.slice(1).replaceAll('/', '.')} ${read.sha256.slice(0, 8)}`;
      return { read: { name, ...read }, content: { kind: 'hourly_series', format: 'series', values: value } };
    }
    const file = value as { source?: string; text: string };
    const read = readResourceFile(Buffer.from(file.text));
    if (read.kind !== slot.kind) return null;
    // A weather file keeps the format its `source` said (the readers differ).
    const source = file.source ?? 'srw';
    if (read.format !== source) return null;
    const name = `${read.kind} ${read.sha256.slice(0, 8)}`;
    return {
      read: { name, ...read },
      content: { kind: read.kind, format: read.format, text: file.text } as ResourceContent,
    };
  } catch (e) {
    if (e instanceof ResourceReadError) return null;
    throw e;
  }
}

/** The library ids the stored inputs reference (each once), after renaming any `commit` renamed. */
export function referencedIds(inputs: unknown, rename: ReadonlyMap<string, string>): string[] {
  const ids = new Set<string>();
  for (const s of slotsOf(inputs)) {
    if (s.id === null) continue;
    const to = rename.get(s.id);
    if (to) s.set(replaceId(s.get(), to));
    ids.add(to ?? s.id);
  }
  return [...ids];
}

const replaceId = (ref: unknown, id: string) =>
  'resource' in (ref as object) ? { resource: id } : { ...(ref as object), id };

/** What a sweep's or an optimization's request gives that may hold files or references. */
export interface ParentRequest {
  base: unknown;
  vary?: Array<{ path: string; values?: unknown[] }>;
}

/**
 * A sweep's or an optimization's library: the base's inline files become references, and so do a
 * sweep's values that are files at a file's place (`/weather` over several files); ids a sweep
 * varies directly (`/weather/id`) are read too.
 */
export async function prepareParentLibrary(ws: WorkspaceDb, body: ParentRequest): Promise<CreateLibrary> {
  const parts: Array<{ root: Record<string, unknown>; segments: string[]; values: unknown[]; j: number }> = [];
  const ids: string[] = [];
  for (const item of body.vary ?? []) {
    const segments = pointerSegments(item.path);
    if (!segments || !Array.isArray(item.values)) continue;
    const last = segments[segments.length - 1];
    item.values.forEach((v, j) => {
      if ((last === 'id' || last === 'resource') && typeof v === 'string') ids.push(v);
      const root: Record<string, unknown> = {};
      setAt(root, segments, v);
      parts.push({ root, segments, values: item.values as unknown[], j });
    });
  }
  const library = await CreateLibrary.prepare(ws, [body.base, ...parts.map((p) => p.root)], ids);
  for (const p of parts)
    p.values[p.j] = p.segments.reduce<unknown>((node, k) => (node as Record<string, unknown>)[k], p.root);
  return library;
}

/** Every resource a new sweep's or optimization's inputs reference (ids renamed as `commit` renamed them). */
export function parentResources(parent: NewParent, rename: ReadonlyMap<string, string>): string[] {
  const ids = new Set<string>();
  const add = (inputs: unknown) => {
    for (const id of referencedIds(inputs, rename)) ids.add(id);
  };
  if (parent.kind === 'sweep') {
    add(parent.row.base);
    for (const v of parent.variants) add(v.inputs);
  } else {
    add(parent.row.request.base);
    for (const v of parent.round0.evaluations) add(v.inputs);
  }
  return [...ids];
}

/**
 * A create's insert, with the one race its references have: a resource deleted between the
 * validation and the insert (its `resource_uses` row then breaks the foreign key) is a 409.
 */
export async function withResourcesKept<T>(insert: () => Promise<T>): Promise<T> {
  try {
    return await insert();
  } catch (err) {
    const e = err as { code?: string; constraint?: string };
    if (e.code === '23503' && e.constraint?.startsWith('resource_uses'))
      throw new HttpProblem('conflict', 'a library resource it references was deleted meanwhile; send it again');
    throw err;
  }
}
