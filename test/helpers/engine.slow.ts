// The engine, slowed down: each calculation takes `delayMs` (this module's URL parameter) longer,
// spread over its progress reports, so a fault test can kill, stop or cut off a worker while a
// calculation is visibly under way. The engine threads of test/helpers/worker.slow.ts load it in
// place of worker/engine/index.ts; the thread blocks as a long calculation would.
import { calculate as engine } from '../../worker/engine/index.ts';
import type { EngineModule } from '../../worker/engine.thread.ts';

const delayMs = Number(new URL(import.meta.url).searchParams.get('delayMs'));
const pause = new Int32Array(new SharedArrayBuffer(4));

export const calculate: EngineModule['calculate'] = (inputs, options = {}) => {
  let slept = 0;
  return engine(inputs, {
    ...options,
    onProgress: (stage, fraction) => {
      options.onProgress?.(stage, fraction);
      if (fraction * delayMs > slept) {
        Atomics.wait(pause, 0, 0, fraction * delayMs - slept);
        slept = fraction * delayMs;
      }
    },
  });
};
