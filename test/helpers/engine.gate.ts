// The engine with a stand-in's switches read from the scenario's name, for test/engine.pool.test.ts:
// "sleep:N" blocks the engine thread N ms before calculating (a long calculation under way), and
// "crash:N" blocks it N ms, then throws an error that is not an input error (an exception in the engine). The engine
// threads of an EnginePool given this module's URL load it in place of worker/engine/index.ts.
import { calculate as engine } from '../../worker/engine/index.ts';
import type { EngineModule } from '../../worker/engine.thread.ts';

const pause = new Int32Array(new SharedArrayBuffer(4));

export const calculate: EngineModule['calculate'] = (inputs, options = {}) => {
  const gate = /^(sleep|crash):(\d+)$/.exec(inputs.name);
  if (gate) Atomics.wait(pause, 0, 0, Number(gate[2]));
  if (gate?.[1] === 'crash') throw new Error('the stand-in crashed');
  return engine(inputs, options);
};
