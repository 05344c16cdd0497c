// Writes and compresses the statements of one calculation at a time, year by year while the
// engine thread computes the next year, so the engine's core is not spent on them and little is
// left to do once the engine finishes. Owned by one engine thread (client.ts); the finished
// result goes straight to the worker's main thread, so the engine thread is already free for the
// next calculation meanwhile.
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { HOURS_PER_YEAR } from '../../shared/calendar.ts';
import {
  freeBuffer,
  type ResultStatements,
  ResultWriter,
  type SerializedResult,
  type YearSeries,
} from './serialize.ts';

export type ResultRequest =
  | { type: 'begin' }
  | { type: 'years'; years: YearSeries[] }
  | { type: 'finish'; seq: number; scenarioId: string; statements: ResultStatements; hourly: boolean };
/** On the results port, to the main thread: the stored forms of calculation `seq` of this thread. */
export type ResultReply = { seq: number; result: SerializedResult; serializeMs: number };

const port = parentPort;
if (!port) throw new Error('worker/result/thread.ts must run as a worker thread');
const results = (workerData as { results: MessagePort }).results;

const writer = new ResultWriter();

// A fresh thread writes its first result several times slower while V8 compiles the writer.
function warmUp(): void {
  const hours = HOURS_PER_YEAR;
  const kwh = new Int32Array(2 * hours);
  for (let i = 0; i < kwh.length; i++) kwh[i] = (i * 7919) % 250_000;
  for (let run = 0; run < 2; run++) {
    writer.begin();
    for (let y = 0; y < 25; y++) writer.year(kwh);
    writer.finish('warm-up', { kpis: {} } as ResultStatements);
  }
}
warmUp();

// Errors are not caught: the thread dies, and so does the engine thread that owns it; the worker
// retries the calculation (a crash, not an engine error).
port.on('message', (req: ResultRequest) => {
  if (req.type === 'begin') writer.begin();
  else if (req.type === 'years') {
    for (const year of req.years) writer.yearMwh(year);
    // Moved here for this thread alone: freed now, not when a GC finds them (3.5 MB a result).
    for (const year of req.years) for (const a of Object.values(year)) if (a) freeBuffer(a);
  } else {
    const t0 = performance.now();
    const result = writer.finish(req.scenarioId, req.statements, req.hourly);
    const reply: ResultReply = { seq: req.seq, result, serializeMs: performance.now() - t0 };
    // Both gzips have an ArrayBuffer of their own: moved, not copied (a copy left here is garbage
    // that only this thread's next mark-compact frees).
    const moved = [result.statements_lite_gzip, ...(result.statements_gzip ? [result.statements_gzip] : [])];
    results.postMessage(
      reply,
      moved.map((b) => b.buffer as ArrayBuffer),
    );
  }
});
