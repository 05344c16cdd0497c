// The engine replaced by a recording, for bench #30 (one Postgres, many workers): the real engine's
// result for the default scenario and its median time, recorded once when the bench starts
// (`record`); each calculation then waits that long without using the CPU (the thread blocks in
// Atomics.wait), reports the recorded progress and years at their recorded moments (so the result
// thread compresses real hourly arrays and the worker writes a result row of the real size), and
// returns the recorded result. What remains is the queue and the database's work. Bench-only: the
// engine threads of bench/worker.replay.ts load it (`?recording=<file>`); the shipped worker has no such knob.
import { readFileSync, writeFileSync } from 'node:fs';
import { deserialize, serialize } from 'node:v8';
import type { ResolvedInputs } from '../shared/schemas/inputs.ts';
import { calculate as engine } from '../worker/engine/index.ts';
import type { EngineModule } from '../worker/engine.thread.ts';

type Step =
  | { at: number; kind: 'progress'; stage: string; fraction: number }
  | { at: number; kind: 'year'; args: Parameters<NonNullable<Parameters<typeof engine>[1]>['onYear'] & {}> };

interface Recording {
  engineMs: number;
  result: ReturnType<typeof engine>;
  /** Progress reports and years in order, each at its share (0–1) of the calculation's time. */
  steps: Step[];
}

const copy = (a: Float64Array | undefined) => a?.slice();

/** Runs the real engine once on `inputs` and writes what the replay needs to `path`; `engineMs` is the time each replay takes. */
export function record(path: string, inputs: ResolvedInputs, engineMs: number): void {
  const raw: Step[] = []; // `at` here: performance.now()
  const t0 = performance.now();
  const result = engine(inputs, {
    onProgress: (stage, fraction) => raw.push({ at: performance.now(), kind: 'progress', stage, fraction }),
    onYear: (year, series) =>
      raw.push({
        at: performance.now(),
        kind: 'year',
        args: [year, Object.fromEntries(Object.entries(series).map(([n, a]) => [n, copy(a)])) as typeof series],
      }),
  });
  const total = performance.now() - t0;
  const steps = raw.map((s) => ({ ...s, at: (s.at - t0) / total }));
  writeFileSync(path, serialize({ engineMs, result, steps } satisfies Recording));
}

const recordingPath = new URL(import.meta.url).searchParams.get('recording');
let recording: Recording | null = null;
const pause = new Int32Array(new SharedArrayBuffer(4));

export const calculate: EngineModule['calculate'] = (_inputs, options = {}) => {
  if (!recordingPath) throw new Error('engine.replay.ts: no ?recording= file');
  recording ??= deserialize(readFileSync(recordingPath)) as Recording;
  const { engineMs, steps, result } = recording;
  const t0 = performance.now();
  for (const step of steps) {
    const wait = step.at * engineMs - (performance.now() - t0);
    if (wait > 0) Atomics.wait(pause, 0, 0, wait);
    if (step.kind === 'progress') options.onProgress?.(step.stage, step.fraction);
    else options.onYear?.(...step.args);
  }
  const rest = engineMs - (performance.now() - t0);
  if (rest > 0) Atomics.wait(pause, 0, 0, rest);
  return result;
};
