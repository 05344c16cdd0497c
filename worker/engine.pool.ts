// A fixed set of engine threads, one per concurrent job, each reused across calculations.
import { Worker } from 'node:worker_threads';
import type { ResolvedInputs } from '../shared/schemas/inputs.ts';
import type { ThreadMessage } from './engine.thread.ts';
import type { SerializedResult } from './result.serialize.ts';

const THREAD_URL = new URL('./engine.thread.ts', import.meta.url);

export type EngineOutcome =
  | { ok: true; result: SerializedResult; engineMs: number; serializeMs: number }
  | { ok: false; code: string; message: string };

export class EngineFailure extends Error {}

const asBuffer = (u8: Uint8Array) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);

export class EnginePool {
  readonly #idle: Worker[] = [];
  readonly #busy = new Set<Worker>();
  readonly #testDelayMs: number;

  /** testDelayMs: ENGINE_TEST_DELAY_MS, which only fault tests set. */
  constructor(options: { testDelayMs?: number } = {}) {
    this.#testDelayMs = options.testDelayMs ?? 0;
  }

  /** Starts `n` threads now, so their start-up and warm-up happen before the first job. */
  prestart(n: number): void {
    while (this.#idle.length + this.#busy.size < n) this.#idle.push(new Worker(THREAD_URL));
  }

  /** Runs one calculation; rejects with EngineFailure if the thread dies or the job is aborted. */
  async run(
    scenarioId: string,
    inputs: ResolvedInputs,
    onProgress: (stage: string, fraction: number) => void,
    signal?: AbortSignal,
  ): Promise<EngineOutcome> {
    const thread = this.#idle.pop() ?? new Worker(THREAD_URL, { workerData: { testDelayMs: this.#testDelayMs } });
    this.#busy.add(thread);
    let healthy = true;
    try {
      return await new Promise<EngineOutcome>((resolve, reject) => {
        const cleanup = () => {
          thread.off('message', onMessage);
          thread.off('error', onError);
          thread.off('exit', onExit);
          signal?.removeEventListener('abort', onAbort);
        };
        const onMessage = (msg: ThreadMessage) => {
          if (msg.type === 'progress') return onProgress(msg.stage, msg.fraction);
          cleanup();
          if (msg.type === 'done') {
            const r = msg.result;
            resolve({
              ok: true,
              engineMs: msg.engineMs,
              serializeMs: msg.serializeMs,
              result: {
                ...r,
                statements_gzip: asBuffer(r.statements_gzip),
                statements_lite_gzip: asBuffer(r.statements_lite_gzip),
              },
            });
          } else if (msg.type === 'engine_error') resolve({ ok: false, code: msg.code, message: msg.message });
          else {
            // An exception in the pure engine comes back on every retry: fail at once, saying what it was.
            healthy = false;
            resolve({ ok: false, code: 'engine_exception', message: `the calculation failed: ${msg.message}` });
          }
        };
        const onError = (err: Error) => {
          cleanup();
          healthy = false;
          reject(new EngineFailure(`engine thread failed: ${err.message}`));
        };
        const onExit = (code: number) => {
          cleanup();
          healthy = false;
          reject(new EngineFailure(`engine thread exited with code ${code}`));
        };
        const onAbort = () => {
          cleanup();
          healthy = false;
          void thread.terminate();
          reject(new EngineFailure('the calculation was aborted'));
        };
        thread.on('message', onMessage);
        thread.on('error', onError);
        thread.on('exit', onExit);
        signal?.addEventListener('abort', onAbort, { once: true });
        thread.postMessage({ scenarioId, inputs });
      });
    } finally {
      this.#busy.delete(thread);
      if (healthy) this.#idle.push(thread);
      else void thread.terminate();
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.#idle, ...this.#busy].map((t) => t.terminate()));
    this.#idle.length = 0;
  }
}
