// The worker process as the fault tests run it: worker/main.ts, with every calculation taking the
// milliseconds given as its argument longer (test/helpers/engine.slow.ts), so a test can act while
// one is under way. `node test/helpers/worker.slow.ts 3000`; processes.ts `slowEngine(3000)`.
import { runWorkerProcess } from '../../worker/worker.process.ts';

const delayMs = process.argv[2] ?? '';
if (!/^\d+$/.test(delayMs)) throw new Error(`worker.slow.ts: give the delay in ms, got "${delayMs}"`);
const engine = new URL('./engine.slow.ts', import.meta.url);
engine.searchParams.set('delayMs', delayMs);
await runWorkerProcess({ engine });
