// Writes and compresses the statements of one calculation at a time, year by year while the
// engine thread computes the next year, so the engine's core is not spent on them and little is
// left to do once the engine finishes. Owned by one engine thread (result.client.ts).
import { parentPort } from 'node:worker_threads';
import { type ResultStatements, ResultWriter, type SerializedResult } from './result.serialize.ts';

export type ResultRequest =
  | { type: 'begin' }
  | { type: 'year'; kwh: Int32Array }
  | { type: 'finish'; scenarioId: string; statements: ResultStatements };
export type ResultReply = { type: 'done'; result: SerializedResult };

const port = parentPort;
if (!port) throw new Error('result.thread.ts must run as a worker thread');

const writer = new ResultWriter();

// A fresh thread writes its first result several times slower while V8 compiles the writer.
function warmUp(): void {
  const hours = 8760;
  const kwh = new Int32Array(2 * hours);
  for (let i = 0; i < kwh.length; i++) kwh[i] = (i * 7919) % 250_000;
  for (let run = 0; run < 2; run++) {
    writer.begin();
    for (let y = 0; y < 25; y++) writer.year(kwh);
    writer.finish('warm-up', { kpis: {} } as ResultStatements);
  }
}
warmUp();

// Errors are not caught: the thread dies, and the engine thread that owns it fails the calculation
// as a crash of the worker (retried), not as an engine error.
port.on('message', (req: ResultRequest) => {
  if (req.type === 'begin') writer.begin();
  else if (req.type === 'year') writer.year(req.kwh);
  else {
    const result = writer.finish(req.scenarioId, req.statements);
    const reply: ResultReply = { type: 'done', result };
    // The full gzip has an ArrayBuffer of its own: moved, not copied.
    port.postMessage(reply, [result.statements_gzip.buffer as ArrayBuffer]);
  }
});
