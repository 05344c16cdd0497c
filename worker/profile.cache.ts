// The worker's memory of the engine's expensive stages (weather and per-unit generation) between
// calculations: a sweep's variants that share site, weather, seed and plant design reuse them. An
// LRU bounded by bytes (ENGINE_CACHE_MB, shared out among the engine threads): the bytes of each
// profile's whole buffer, which is what it keeps alive, not the length of the view. Keys are the SHA-256
// of the engine's own profile keys (worker/engine/plant/profiles.ts), which are the canonical text of
// exactly the inputs that determine a profile; the engine stays pure, the hashing is done here.
import { createHash } from 'node:crypto';
import type { GenerationProfile, ProfileCache } from './engine/index.ts';
import { freeBuffer } from './result/index.ts';

export class LruProfileCache implements ProfileCache {
  readonly #limit: number;
  readonly #entries = new Map<string, GenerationProfile>();
  /** Profiles dropped from the cache, to free once the calculation that dropped them is over. */
  readonly #dropped: GenerationProfile[] = [];
  #bytes = 0;
  hits = 0;
  misses = 0;

  constructor(limitBytes: number) {
    this.#limit = limitBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): GenerationProfile | undefined {
    const k = digest(key);
    const found = this.#entries.get(k);
    if (!found) {
      this.misses++;
      return undefined;
    }
    // Most recently used last: Map keeps insertion order.
    this.#entries.delete(k);
    this.#entries.set(k, found);
    this.hits++;
    return found;
  }

  set(key: string, profile: GenerationProfile): void {
    const size = bytesOf(profile);
    if (size > this.#limit) return;
    const k = digest(key);
    const old = this.#entries.get(k);
    if (old) {
      this.#bytes -= bytesOf(old);
      this.#entries.delete(k);
      if (old !== profile) this.#dropped.push(old);
    }
    while (this.#bytes + size > this.#limit) {
      const [oldestKey, oldest] = this.#entries.entries().next().value as [string, GenerationProfile];
      this.#entries.delete(oldestKey);
      this.#bytes -= bytesOf(oldest);
      this.#dropped.push(oldest);
    }
    this.#entries.set(k, profile);
    this.#bytes += size;
  }

  /**
   * Frees the profiles dropped so far; only between calculations, as one may still use a profile
   * it got before the cache dropped it. A sweep that reuses nothing drops a design (3.5 MB) each
   * variant, which V8 otherwise frees only at a mark-compact: up to ~64 MB of them in the engine
   * thread's external memory before one (bench/README.md, "A 512 MB dyno").
   */
  releaseDropped(): void {
    for (const p of this.#dropped.splice(0)) if (!this.#holds(p.perMw.buffer)) freeBuffer(p.perMw);
  }

  #holds(buffer: ArrayBufferLike): boolean {
    for (const p of this.#entries.values()) if (p.perMw.buffer === buffer) return true;
    return false;
  }
}

const bytesOf = (profile: GenerationProfile) => profile.perMw.buffer.byteLength;
const digest = (key: string) => createHash('sha256').update(key).digest('base64url');
