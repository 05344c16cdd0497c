// The worker process of bench #30: worker/main.ts with the engine replaced by a recording
// (bench/engine.replay.ts), so that N of them load the queue and the database, not the CPU.
// `node bench/worker.replay.ts <recording file>`.
import { runWorkerProcess } from '../worker/worker.process.ts';

const recording = process.argv[2];
if (!recording) throw new Error('worker.replay.ts: give the recording file (bench/engine.replay.ts record)');
const engine = new URL('./engine.replay.ts', import.meta.url);
engine.searchParams.set('recording', recording);
await runWorkerProcess({ engine });
