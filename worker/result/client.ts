// The engine thread's handle on its result thread (thread.ts): years go out as the engine
// finishes them, then `finish`; the result thread sends the stored forms to the main thread.
import { type MessagePort, type ResourceLimits, Worker } from 'node:worker_threads';
import type { LoadYear, ResultStatements, StorageYear } from './serialize.ts';
import type { ResultRequest } from './thread.ts';

const THREAD_URL = new URL('./thread.ts', import.meta.url);

/**
 * Years per message. Every message wakes the result thread, which can take the engine thread's
 * core for a moment (measured: the engine's postMessage calls were 8 % of its profile with one
 * message a year); the last batch is what is left to write after the engine's last year.
 */
const YEARS_PER_MESSAGE = 5;

export class ResultClient {
  readonly #thread: Worker;
  readonly #solar: Float64Array[] = [];
  readonly #wind: Float64Array[] = [];
  readonly #storage: StorageYear[] = [];
  readonly #load: LoadYear[] = [];

  /** `results`: the port on which the main thread receives each finished result; `heap`: the thread's V8 limits. */
  constructor(results: MessagePort, heap: ResourceLimits = {}) {
    this.#thread = new Worker(THREAD_URL, { workerData: { results }, transferList: [results], resourceLimits: heap });
    // A result thread that dies takes its engine thread with it: the worker retries the calculation.
    this.#thread.on('error', (err) => {
      throw err;
    });
    this.#thread.on('exit', (code) => {
      throw new Error(`the result thread exited with code ${code}`);
    });
  }

  begin(): void {
    this.#solar.length = 0;
    this.#wind.length = 0;
    this.#storage.length = 0;
    this.#load.length = 0;
    this.#send({ type: 'begin' });
  }

  /** One year's delivered MWh, the battery's and the load's series (views into the engine's arrays: copied here, then moved). */
  year(solar: Float64Array, wind: Float64Array, storage?: StorageYear, load?: LoadYear): void {
    this.#solar.push(solar.slice());
    this.#wind.push(wind.slice());
    if (storage) this.#storage.push([storage[0].slice(), storage[1].slice(), storage[2].slice(), storage[3].slice()]);
    if (load) this.#load.push([load[0].slice(), load[1].slice()]);
    if (this.#solar.length >= YEARS_PER_MESSAGE) this.#flush();
  }

  finish(seq: number, scenarioId: string, statements: ResultStatements, hourly = true): void {
    this.#flush();
    this.#send({ type: 'finish', seq, scenarioId, statements, hourly });
  }

  #flush(): void {
    if (this.#solar.length === 0) return;
    const solar = this.#solar.splice(0);
    const wind = this.#wind.splice(0);
    const storage = this.#storage.splice(0);
    const load = this.#load.splice(0);
    const moved = [...solar, ...wind, ...storage.flat(), ...load.flat()].map((a) => a.buffer as ArrayBuffer);
    this.#thread.postMessage({ type: 'years', solar, wind, storage, load } satisfies ResultRequest, moved);
  }

  #send(req: ResultRequest): void {
    this.#thread.postMessage(req);
  }
}
