// A fixed number of engine threads, each reused across calculations. A job first waits for a free
// thread (acquire), then runs on it; the thread is free again as soon as the engine is done, while
// its result thread finishes the result and the job saves it, so the next job's calculation need
// not wait for either.
import v8 from 'node:v8';
import { MessageChannel, type MessagePort, type ResourceLimits, Worker } from 'node:worker_threads';
import type { StoredInputs } from '../shared/schemas/inputs.ts';
import type { EnergyTotals, ThreadData, ThreadMessage, ThreadRequest } from './engine.thread.ts';
import type { SharedResources } from './resources.store.ts';
import { freeBuffer, type ResultReply, type SerializedResult } from './result/index.ts';

const THREAD_URL = new URL('./engine.thread.ts', import.meta.url);

/** V8 heap limits of one engine thread and of its result thread. */
interface ThreadHeaps {
  engine: ResourceLimits;
  result: ResourceLimits;
}

/**
 * Each thread's heap limits, set per thread: a `--max-semi-space-size` flag gave the main, engine
 * and result threads the same 32–64 MB semi-spaces once, and a set flag overrides these limits
 * (so it is unset before a thread starts: THREAD_FLAGS). The engine keeps 32 MB
 * semi-spaces (a 96 MB young generation: ~1 scavenge a calculation, as before); with 16 MB ones it
 * scavenged twice as often, and growing from V8's 1 MB start it scavenged 4× as often and
 * promoted enough for a mark-compact every other calculation (measured with --trace-gc,
 * bench/worker.memory.bench.ts; docs/sizing.md). The result thread allocates little that lives:
 * 4 MB semi-spaces.
 */
export const THREAD_HEAPS: ThreadHeaps = {
  engine: { maxYoungGenerationSizeMb: 96 },
  result: { maxYoungGenerationSizeMb: 12 },
};

/**
 * V8 flags for the engine and result threads, set just before one starts: V8 reads its flags again
 * for each new isolate, and a flag is the only way to size the main isolate, so the worker's npm
 * script sizes the main thread and these the threads (measured: bench/README.md, "A 512 MB dyno").
 * - `--max-semi-space-size=0` unsets the script's 8 MB, the main thread's (without it V8 sized the
 *   main thread's young generation from the machine's memory: 128 MB on a 24 GB host), which would
 *   override each thread's THREAD_HEAPS. `--min-semi-space-size` (32) stays: each isolate clamps
 *   it to its own maximum.
 * - `--initial-old-space-size=128`: an engine thread whose old generation starts small runs a
 *   mark-compact every few calculations while it grows (67 against 24 in a 200-scenario backlog).
 *   Not the main thread: with 8 MB semi-spaces it promotes ~12 kB a variant of garbage, which that
 *   start let grow toward 128 MB before its first mark-compact.
 */
const THREAD_FLAGS = '--max-semi-space-size=0 --initial-old-space-size=128';

export function setThreadFlags(): void {
  v8.setFlagsFromString(THREAD_FLAGS);
}

export type EngineOutcome =
  | { ok: true; result: SerializedResult; engineMs: number; serializeMs: number; totals: EnergyTotals }
  | { ok: false; code: string; message: string };

/** The calculation got no answer: its engine thread crashed or exited, or its job was aborted. Retried by pg-boss. */
class EngineThreadFailure extends Error {}

/** The pool is draining (the worker is stopping): the job never got a thread and was not started. */
export class WorkerStopping extends Error {}

type ProgressListener = (stage: string, fraction: number) => void;

/** Who asks for a thread: a single scenario goes ahead of every waiting variant of a sweep. */
export type ThreadPriority = 'single' | 'variant';

interface RunOptions {
  /** Told each stage's progress; none for a variant, which reports none. */
  onProgress?: ProgressListener;
  /** The job's signal: pg-boss aborts a job it has failed. */
  signal?: AbortSignal;
  /** Keep the hourly statements (false: only the annual ones, a sweep variant's default). */
  keepHourly: boolean;
  /** The library resources the inputs reference (worker/resources.store.ts). */
  resources?: SharedResources;
}

const asBuffer = (u8: Uint8Array) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);

/**
 * Frees a result's stored forms once they are saved (or not): each arrived from the result thread
 * in an ArrayBuffer of its own, which would otherwise wait for a mark-compact of the main thread.
 */
export function releaseResult(result: SerializedResult): void {
  if (result.statements_gzip) freeBuffer(result.statements_gzip);
  freeBuffer(result.statements_lite_gzip);
}

interface Waiter {
  priority: ThreadPriority;
  grant: (thread: EngineThread) => void;
  refuse: (err: Error) => void;
}

/** An engine thread and the port on which its result thread sends finished results. */
class EngineThread {
  readonly worker: Worker;
  readonly #results: MessagePort;
  readonly #pending = new Map<number, { resolve: (r: ResultReply) => void; reject: (err: Error) => void }>();
  #seq = 0;

  constructor(engine: string | undefined, cacheBytes: number, heaps: ThreadHeaps) {
    const { port1, port2 } = new MessageChannel();
    const data: ThreadData = { engine, cacheBytes, results: port2, resultHeap: heaps.result };
    this.worker = new Worker(THREAD_URL, { workerData: data, transferList: [port2], resourceLimits: heaps.engine });
    this.#results = port1;
    port1.on('message', (reply: ResultReply) => {
      const p = this.#pending.get(reply.seq);
      this.#pending.delete(reply.seq);
      p?.resolve(reply);
    });
    // Only a calculation waiting for its result keeps the process alive.
    port1.unref();
    const fail = (err: Error) => {
      for (const p of this.#pending.values()) p.reject(err);
      this.#pending.clear();
    };
    this.worker.on('error', (err) => fail(new EngineThreadFailure(`engine thread failed: ${err.message}`)));
    this.worker.on('exit', (code) => fail(new EngineThreadFailure(`engine thread exited with code ${code}`)));
  }

  /** Sends a calculation; `result` resolves when its result thread has finished the result. */
  start(
    scenarioId: string,
    inputs: StoredInputs,
    keepHourly: boolean,
    resources: SharedResources,
  ): { seq: number; result: Promise<ResultReply> } {
    const seq = ++this.#seq;
    const result = new Promise<ResultReply>((resolve, reject) => this.#pending.set(seq, { resolve, reject }));
    // A calculation that ends without a result (engine error, abort) drops its promise unawaited.
    result.catch(() => {});
    this.worker.postMessage({ seq, scenarioId, inputs, keepHourly, resources } satisfies ThreadRequest);
    return { seq, result };
  }

  forget(seq: number): void {
    this.#pending.delete(seq);
  }

  terminate(): Promise<number> {
    this.#results.close();
    return this.worker.terminate();
  }
}

export class EnginePool {
  readonly #idle: EngineThread[] = [];
  readonly #busy = new Set<EngineThread>();
  readonly #waiting: Waiter[] = [];
  readonly #size: number;
  readonly #engine: string | undefined;
  readonly #cacheBytes: number;
  readonly #heaps: ThreadHeaps;
  #draining = false;

  /**
   * size: threads (WORKER_CONCURRENCY); engine: a module the threads calculate with instead of
   * worker/engine/index.ts (a test's or a bench's: WorkerProcessOptions); heaps: each thread's V8
   * heap limits (THREAD_HEAPS; a bench compares others).
   */
  constructor(options: { size?: number; engine?: URL; cacheMb?: number; heaps?: ThreadHeaps } = {}) {
    this.#size = options.size ?? 1;
    this.#engine = options.engine?.href;
    this.#heaps = options.heaps ?? THREAD_HEAPS;
    // ENGINE_CACHE_MB is the worker's: each thread keeps its share of it.
    this.#cacheBytes = Math.floor(((options.cacheMb ?? 0) * 1024 * 1024) / Math.max(1, options.size ?? 1));
  }

  /** Starts the threads now, so their start-up and warm-up happen before the first job. */
  prestart(): void {
    while (this.#idle.length + this.#busy.size < this.#size) this.#idle.push(this.#spawn());
  }

  /**
   * A thread for one calculation, as soon as one is free: first come, first served, except that a
   * single scenario goes ahead of every waiting variant of a sweep, which the worker claims in batches. Rejects with WorkerStopping once the pool drains, and with
   * EngineThreadFailure if the job is aborted meanwhile.
   */
  acquire(signal: AbortSignal | undefined, priority: ThreadPriority): Promise<EngineLease> {
    if (this.#draining) return Promise.reject(new WorkerStopping('the worker is stopping'));
    if (signal?.aborted)
      return Promise.reject(new EngineThreadFailure('the job was aborted before it got an engine thread'));
    const thread = this.#idle.pop() ?? (this.#busy.size < this.#size ? this.#spawn() : undefined);
    if (thread) return Promise.resolve(this.#lease(thread));
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const i = this.#waiting.indexOf(waiter);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(new EngineThreadFailure('the job was aborted while it waited for an engine thread'));
      };
      const waiter: Waiter = {
        priority,
        grant: (t) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.#lease(t));
        },
        refuse: (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      // Behind the other single ones, ahead of the variants.
      const at = priority === 'single' ? this.#waiting.findIndex((w) => w.priority === 'variant') : -1;
      this.#waiting.splice(at < 0 ? this.#waiting.length : at, 0, waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** No job gets a thread any more; the jobs waiting for one are refused (WorkerStopping). */
  drain(): void {
    this.#draining = true;
    for (const w of this.#waiting.splice(0)) w.refuse(new WorkerStopping('the worker is stopping'));
  }

  async close(): Promise<void> {
    this.drain();
    await Promise.all([...this.#idle, ...this.#busy].map((t) => t.terminate()));
    this.#idle.length = 0;
  }

  #spawn(): EngineThread {
    setThreadFlags();
    return new EngineThread(this.#engine, this.#cacheBytes, this.#heaps);
  }

  #lease(thread: EngineThread): EngineLease {
    this.#busy.add(thread);
    return new EngineLease(thread, (healthy) => this.#release(thread, healthy));
  }

  #release(thread: EngineThread, healthy: boolean): void {
    this.#busy.delete(thread);
    if (!healthy) void thread.terminate();
    const next = this.#waiting.shift();
    if (next) next.grant(healthy ? thread : this.#spawn());
    else if (healthy) this.#idle.push(thread);
  }
}

/** One engine thread, held for one calculation: run it, or release it unused. */
export class EngineLease {
  readonly #thread: EngineThread;
  #release: ((healthy: boolean) => void) | null;

  constructor(thread: EngineThread, release: (healthy: boolean) => void) {
    this.#thread = thread;
    this.#release = release;
  }

  /** Gives the thread back without running anything on it (idempotent). */
  release(healthy = true): void {
    const release = this.#release;
    this.#release = null;
    release?.(healthy);
  }

  /**
   * Runs one calculation; rejects with EngineThreadFailure if the thread dies or the job is aborted. The
   * thread is released when the engine is done, before the result is finished.
   */
  async run(
    scenarioId: string,
    inputs: StoredInputs,
    { onProgress, signal, keepHourly, resources = {} }: RunOptions,
  ): Promise<EngineOutcome> {
    const engine = this.#thread;
    const thread = engine.worker;
    let healthy = true;
    let pending: { seq: number; result: Promise<ResultReply> } | undefined;
    let computed: { engineMs: number; totals: EnergyTotals } | EngineOutcome;
    try {
      computed = await new Promise<{ engineMs: number; totals: EnergyTotals } | EngineOutcome>((resolve, reject) => {
        const cleanup = () => {
          thread.off('message', onMessage);
          thread.off('error', onError);
          thread.off('exit', onExit);
          signal?.removeEventListener('abort', onAbort);
        };
        const onMessage = (msg: ThreadMessage) => {
          if (msg.type === 'progress') return onProgress?.(msg.stage, msg.fraction);
          cleanup();
          if (msg.type === 'computed') resolve({ engineMs: msg.engineMs, totals: msg.totals });
          else if (msg.type === 'engine_error') resolve({ ok: false, code: msg.code, message: msg.message });
          else {
            // An exception in the pure engine comes back on every retry: fail at once, saying what it was.
            healthy = false;
            resolve({ ok: false, code: 'engine_exception', message: `the calculation failed: ${msg.message}` });
          }
        };
        const onError = (err: Error) => {
          cleanup();
          healthy = false;
          reject(new EngineThreadFailure(`engine thread failed: ${err.message}`));
        };
        const onExit = (code: number) => {
          cleanup();
          healthy = false;
          reject(new EngineThreadFailure(`engine thread exited with code ${code}`));
        };
        const onAbort = () => {
          cleanup();
          healthy = false;
          reject(new EngineThreadFailure('the calculation was aborted'));
        };
        thread.on('message', onMessage);
        thread.on('error', onError);
        thread.on('exit', onExit);
        signal?.addEventListener('abort', onAbort, { once: true });
        pending = engine.start(scenarioId, inputs, keepHourly, resources);
      });
    } finally {
      if (pending && !healthy) engine.forget(pending.seq);
      this.release(healthy);
    }
    if (!pending || 'ok' in computed) {
      if (pending) engine.forget(pending.seq);
      return computed as EngineOutcome;
    }
    const { result: r, serializeMs } = await pending.result;
    return {
      ok: true,
      engineMs: computed.engineMs,
      totals: computed.totals,
      serializeMs,
      result: {
        ...r,
        statements_gzip: r.statements_gzip ? asBuffer(r.statements_gzip) : null,
        statements_lite_gzip: asBuffer(r.statements_lite_gzip),
      },
    };
  }
}
