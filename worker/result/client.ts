// The engine thread's handle on its result thread (thread.ts): years go out as the engine
// finishes them, then `finish`; the result thread sends the stored forms to the main thread.
import { type MessagePort, type ResourceLimits, Worker } from 'node:worker_threads';
import type { ResultStatements, YearSeries } from './serialize.ts';
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
  readonly #years: YearSeries[] = [];

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
    this.#years.length = 0;
    this.#send({ type: 'begin' });
  }

  /** One year's series by name (views into the engine's arrays: copied here, then moved). */
  year(series: YearSeries): void {
    const copy: Record<string, Float64Array> = {};
    for (const [name, year] of Object.entries(series)) if (year) copy[name] = year.slice();
    this.#years.push(copy as YearSeries);
    if (this.#years.length >= YEARS_PER_MESSAGE) this.#flush();
  }

  finish(seq: number, scenarioId: string, statements: ResultStatements, hourly = true): void {
    this.#flush();
    this.#send({ type: 'finish', seq, scenarioId, statements, hourly });
  }

  #flush(): void {
    if (this.#years.length === 0) return;
    const years = this.#years.splice(0);
    const moved = years.flatMap((y) => Object.values(y).map((a) => a.buffer as ArrayBuffer));
    this.#thread.postMessage({ type: 'years', years } satisfies ResultRequest, moved);
  }

  #send(req: ResultRequest): void {
    this.#thread.postMessage(req);
  }
}
