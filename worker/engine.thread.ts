// Runs one calculation at a time off the worker's main thread, so the main thread keeps writing
// progress, sending heartbeats and answering pg-boss while the engine computes. Each finished year
// goes to this thread's result thread, which writes and compresses it meanwhile.
import { parentPort, workerData } from 'node:worker_threads';
import { Value } from '@sinclair/typebox/value';
import { resolveInputs } from '../shared/inputs.resolve.ts';
import { type ResolvedInputs, ScenarioInputs } from '../shared/schemas/inputs.ts';
import { calculate, EngineError } from './engine/index.ts';
import { ResultClient } from './result.client.ts';
import { type SerializedResult, yearKwh } from './result.serialize.ts';

export type ThreadRequest = { scenarioId: string; inputs: ResolvedInputs };
export type ThreadMessage =
  | { type: 'progress'; stage: string; fraction: number }
  | { type: 'done'; result: SerializedResult; engineMs: number; serializeMs: number }
  | { type: 'engine_error'; code: string; message: string }
  | { type: 'crash'; message: string };

const port = parentPort;
if (!port) throw new Error('engine.thread.ts must run as a worker thread');

// ENGINE_TEST_DELAY_MS (fault tests only): spread over the progress reports, so a test can act while
// a calculation is visibly under way. The thread blocks as a long calculation would.
const testDelayMs = (workerData as { testDelayMs?: number } | null)?.testDelayMs ?? 0;
const pause = new Int32Array(new SharedArrayBuffer(4));

// A fresh thread runs its first calculation several times slower while V8 compiles the engine;
// one throwaway default scenario at start-up keeps that off the first user's scenario.
const warmId = '00000000-0000-7000-8000-000000000000';
const warm = resolveInputs(
  Value.Default(ScenarioInputs, { name: 'warm-up', site: { latitude: 35.2, longitude: -101.8 } }) as ScenarioInputs,
  { scenarioId: warmId, now: new Date(0) },
);
for (let i = 0; i < 2; i++) calculate(warm, undefined, (_, solar, wind) => yearKwh(solar, wind));
const results = new ResultClient();

port.on('message', async (req: ThreadRequest) => {
  try {
    results.begin();
    const t0 = performance.now();
    let slept = 0;
    const result = calculate(
      req.inputs,
      (stage, fraction) => {
        port.postMessage({ type: 'progress', stage, fraction });
        if (testDelayMs > 0 && fraction * testDelayMs > slept) {
          Atomics.wait(pause, 0, 0, fraction * testDelayMs - slept);
          slept = fraction * testDelayMs;
        }
      },
      (_, solar, wind) => results.year(yearKwh(solar, wind)),
    );
    const t1 = performance.now();
    const { solar_hourly, wind_hourly, ...statements } = result;
    const serialized = await results.finish(req.scenarioId, statements);
    const msg: ThreadMessage = {
      type: 'done',
      result: serialized,
      engineMs: t1 - t0,
      serializeMs: performance.now() - t1,
    };
    // The full gzip is moved; the small lite one is copied (it may share Node's pooled ArrayBuffer).
    port.postMessage(msg, [serialized.statements_gzip.buffer as ArrayBuffer]);
  } catch (err) {
    const msg: ThreadMessage =
      err instanceof EngineError
        ? { type: 'engine_error', code: err.code, message: err.message }
        : { type: 'crash', message: err instanceof Error ? err.message : String(err) };
    port.postMessage(msg);
  }
});
