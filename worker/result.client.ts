// The engine thread's handle on its result thread (result.thread.ts): years go out as the engine
// finishes them, then `finish`; the result thread sends the stored forms to the main thread.
import { type MessagePort, Worker } from 'node:worker_threads';
import type { ResultStatements } from './result.serialize.ts';
import type { ResultRequest } from './result.thread.ts';

const THREAD_URL = new URL('./result.thread.ts', import.meta.url);

export class ResultClient {
  readonly #thread: Worker;

  /** `results`: the port on which the main thread receives each finished result. */
  constructor(results: MessagePort) {
    this.#thread = new Worker(THREAD_URL, { workerData: { results }, transferList: [results] });
    // A result thread that dies takes its engine thread with it: the worker retries the calculation.
    this.#thread.on('error', (err) => {
      throw err;
    });
    this.#thread.on('exit', (code) => {
      throw new Error(`the result thread exited with code ${code}`);
    });
  }

  begin(): void {
    this.#send({ type: 'begin' });
  }

  /** One year's delivered kWh (solar hours, then wind hours); the array is moved to the result thread. */
  year(kwh: Int32Array): void {
    this.#thread.postMessage({ type: 'year', kwh } satisfies ResultRequest, [kwh.buffer as ArrayBuffer]);
  }

  finish(seq: number, scenarioId: string, statements: ResultStatements): void {
    this.#send({ type: 'finish', seq, scenarioId, statements });
  }

  #send(req: ResultRequest): void {
    this.#thread.postMessage(req);
  }
}
