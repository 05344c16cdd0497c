// The web's cache of built full answers (RESULT_CACHE_MB): the gzip JSON that the statements route
// makes from a stored form (shared/result/stored.gzip.ts) costs the web ~20–55 ms of CPU a read;
// kept, a repeated read is a copy of bytes. A result never changes once stored (its ETag is the
// hash of its stored bytes), so an entry is never stale; it is keyed by the scenario's id and that
// ETag, and looked up only after the route has read the scenario's row (its workspace, status and
// ETag) from the database: a deleted scenario is answered 404 before the cache is asked, and its
// entry only waits for the LRU to drop it.
//
// Least recently used first out, by bytes. An answer is made once however many ask for it at the
// same time: the first read starts a build, which makes the answer a piece (a series) at a time with
// a turn of the event loop between pieces, and every read of it while it is made (the first
// included) sends the pieces as they come, each at its own pace. Once complete the answer is kept;
// a build whose every reader has gone is stopped and keeps nothing.

/** One answer being made: its pieces so far, for every reader of it. */
export class AnswerBuild {
  readonly pieces: Uint8Array[] = [];
  bytes = 0;
  done = false;
  /** The build stopped before its end (every reader gone) or failed: no more pieces will come. */
  stopped = false;
  error: unknown = undefined;
  /** Readers now sending it. */
  readers = 0;
  #waiting: Array<() => void> = [];

  /** Until a piece more, the end, or a stop. */
  next(): Promise<void> {
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  wake(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const w of waiting) w();
  }
}

export type Lookup = { bytes: Buffer } | { build: AnswerBuild };

/** A piece this large is a series' (the others are a header, the statements or a few bytes): yield after it. */
export const SERIES_PIECE = 16 * 1024;

export class AnswerCache {
  readonly budgetBytes: number;
  #used = 0;
  /** Map order is recency: the first entry is the least recently used. */
  readonly #entries = new Map<string, Buffer>();
  readonly #building = new Map<string, AnswerBuild>();
  /** Builds started (tests and benches count them). */
  builds = 0;

  constructor(budgetBytes: number) {
    this.budgetBytes = budgetBytes;
  }

  get enabled(): boolean {
    return this.budgetBytes > 0;
  }

  /** Bytes of answers kept. */
  get usedBytes(): number {
    return this.#used;
  }

  get size(): number {
    return this.#entries.size;
  }

  static key(scenarioId: string, etag: string): string {
    return `${scenarioId}/${etag}`;
  }

  /** The kept answer (now the most recently used), or the build under way; undefined if neither. */
  find(key: string): Lookup | undefined {
    const bytes = this.#entries.get(key);
    if (bytes) {
      this.#entries.delete(key);
      this.#entries.set(key, bytes);
      return { bytes };
    }
    const build = this.#building.get(key);
    return build ? { build } : undefined;
  }

  /**
   * The kept answer, the build under way, or a new build of `pieces()` (started on the next turn,
   * so the caller can register as its reader first).
   */
  obtain(key: string, pieces: () => Iterable<Uint8Array>): Lookup {
    const found = this.find(key);
    if (found) return found;
    const build = new AnswerBuild();
    this.#building.set(key, build);
    this.builds++;
    setImmediate(() => void this.#run(key, build, pieces));
    return { build };
  }

  async #run(key: string, build: AnswerBuild, pieces: () => Iterable<Uint8Array>): Promise<void> {
    try {
      for (const piece of pieces()) {
        if (build.readers === 0) {
          build.stopped = true;
          return;
        }
        build.pieces.push(piece);
        build.bytes += piece.length;
        build.wake();
        if (piece.length >= SERIES_PIECE) await new Promise(setImmediate);
      }
      build.done = true;
      if (build.bytes <= this.budgetBytes) this.#insert(key, Buffer.concat(build.pieces, build.bytes));
    } catch (err) {
      build.error = err;
      build.stopped = true;
    } finally {
      this.#building.delete(key);
      build.wake();
    }
  }

  #insert(key: string, bytes: Buffer): void {
    const old = this.#entries.get(key);
    if (old) {
      this.#entries.delete(key);
      this.#used -= old.length;
    }
    for (const [k, b] of this.#entries) {
      if (this.#used + bytes.length <= this.budgetBytes) break;
      this.#entries.delete(k);
      this.#used -= b.length;
    }
    this.#entries.set(key, bytes);
    this.#used += bytes.length;
  }
}
