// An engine thread's decoded library resources: a file's text, a series' values, decoded once per
// resource from the bytes the main thread shares (worker/resources.store.ts) and kept by id, an
// LRU bounded by bytes. The same text object for every variant is what lets the engine's parse
// memo (worker/engine/weather/weather.load.ts) find the file parsed already.
import type { ResourceContent } from '../shared/resources.refs.ts';
import type { SharedResource } from './resources.store.ts';

export class DecodedResources {
  readonly #limit: number;
  readonly #entries = new Map<string, { content: ResourceContent; bytes: number }>();
  #bytes = 0;
  decoded = 0;

  constructor(limitBytes: number) {
    this.#limit = limitBytes;
  }

  content(id: string, shared: SharedResource | undefined): ResourceContent {
    const found = this.#entries.get(id);
    if (found) {
      this.#entries.delete(id);
      this.#entries.set(id, found);
      return found.content;
    }
    if (!shared) throw new Error(`resource ${id} was not given to the engine thread`);
    this.decoded++;
    const text = Buffer.from(shared.bytes).toString('utf8');
    const content = (
      shared.kind === 'hourly_series'
        ? { kind: 'hourly_series', format: 'series', values: JSON.parse(text) as number[] }
        : { kind: shared.kind, format: shared.format, text }
    ) as ResourceContent;
    // A string of ASCII is a byte a character; a series' numbers 8 bytes each and their array.
    const bytes = content.kind === 'hourly_series' ? 16 * content.values.length : text.length;
    if (bytes <= this.#limit) {
      while (this.#bytes + bytes > this.#limit) {
        const [oldestId, oldest] = this.#entries.entries().next().value as [string, { bytes: number }];
        this.#entries.delete(oldestId);
        this.#bytes -= oldest.bytes;
      }
      this.#entries.set(id, { content, bytes });
      this.#bytes += bytes;
    }
    return content;
  }
}
