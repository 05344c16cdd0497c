// The library files a worker's calculations reference, read from the database once per process:
// the bytes of each resource by id (any workspace's: the worker acts on rows by id), kept in
// SharedArrayBuffers, so handing one to an engine thread copies nothing. An LRU bounded by bytes
// (RESOURCE_CACHE_MB). The engine thread decodes a resource once (worker/resources.thread.ts) and
// parses a file once (worker/engine/weather/weather.load.ts).
import type { Db } from '../shared/db.ts';
import { slotsOf } from '../shared/resources.refs.ts';
import type { StoredInputs } from '../shared/schemas/inputs.ts';

/** A resource as an engine thread receives it. */
export interface SharedResource {
  kind: 'weather' | 'wind_resource' | 'hourly_series';
  format: string;
  bytes: SharedArrayBuffer;
}

export type SharedResources = Record<string, SharedResource>;

export class ResourceStore {
  readonly #db: Db;
  readonly #limit: number;
  readonly #entries = new Map<string, SharedResource>();
  #bytes = 0;
  reads = 0;

  constructor(db: Db, limitBytes: number) {
    this.#db = db;
    this.#limit = limitBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** The resources the inputs reference (none: an empty record, no query). Throws if one is gone. */
  async forInputs(inputs: StoredInputs): Promise<SharedResources> {
    const ids = [...new Set(slotsOf(inputs).flatMap((s) => (s.id === null ? [] : [s.id])))];
    const out: SharedResources = {};
    const missing: string[] = [];
    for (const id of ids) {
      const found = this.#entries.get(id);
      if (found) {
        this.#entries.delete(id);
        this.#entries.set(id, found);
        out[id] = found;
      } else missing.push(id);
    }
    if (missing.length === 0) return out;
    this.reads++;
    const rows = await this.#db
      .selectFrom('resources')
      .select(['id', 'kind', 'format', 'content'])
      .where('id', 'in', missing)
      .execute();
    for (const row of rows) {
      const bytes = new SharedArrayBuffer(row.content.length);
      new Uint8Array(bytes).set(row.content);
      const r: SharedResource = { kind: row.kind, format: row.format, bytes };
      out[row.id] = r;
      this.#keep(row.id, r);
    }
    const gone = missing.find((id) => !out[id]);
    // resource_uses keeps a used resource from being deleted: this is a broken invariant, not bad input.
    if (gone) throw new Error(`resource ${gone} is referenced but not stored`);
    return out;
  }

  #keep(id: string, r: SharedResource): void {
    const size = r.bytes.byteLength;
    if (size > this.#limit) return;
    while (this.#bytes + size > this.#limit) {
      const [oldestId, oldest] = this.#entries.entries().next().value as [string, SharedResource];
      this.#entries.delete(oldestId);
      this.#bytes -= oldest.bytes.byteLength;
    }
    this.#entries.set(id, r);
    this.#bytes += size;
  }
}
