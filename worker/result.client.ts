// The engine thread's handle on its result thread (result.thread.ts): years go out as the engine
// finishes them; `finish` resolves with the stored forms once the last year is written.
import { Worker } from 'node:worker_threads';
import type { ResultStatements, SerializedResult } from './result.serialize.ts';
import type { ResultReply, ResultRequest } from './result.thread.ts';

const THREAD_URL = new URL('./result.thread.ts', import.meta.url);

export class ResultClient {
  readonly #thread = new Worker(THREAD_URL);
  #pending: ((result: SerializedResult) => void) | null = null;

  constructor() {
    this.#thread.on('message', (reply: ResultReply) => {
      const resolve = this.#pending;
      this.#pending = null;
      resolve?.(reply.result);
    });
    // A result thread that dies takes its engine thread with it: the worker retries the calculation.
    const die = (err: Error) => {
      throw err;
    };
    this.#thread.on('error', die);
    this.#thread.on('exit', (code) => die(new Error(`the result thread exited with code ${code}`)));
  }

  begin(): void {
    this.#send({ type: 'begin' });
  }

  /** One year's delivered kWh (solar hours, then wind hours); the array is moved to the result thread. */
  year(kwh: Int32Array): void {
    this.#thread.postMessage({ type: 'year', kwh } satisfies ResultRequest, [kwh.buffer as ArrayBuffer]);
  }

  finish(scenarioId: string, statements: ResultStatements): Promise<SerializedResult> {
    return new Promise((resolve) => {
      this.#pending = resolve;
      this.#send({ type: 'finish', scenarioId, statements });
    });
  }

  #send(req: ResultRequest): void {
    this.#thread.postMessage(req);
  }
}
