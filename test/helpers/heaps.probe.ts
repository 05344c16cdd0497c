// Run by test/worker.heaps.test.ts with the worker's Node flags: the largest new space (MB) the
// main thread and a thread with each of THREAD_HEAPS' limits reach while allocating garbage, as one
// JSON line.
import { Worker } from 'node:worker_threads';
import { setThreadFlags, THREAD_HEAPS } from '../../worker/engine.pool.ts';

// Its source also runs in the threads (Node strips the types).
function churn(v8: typeof import('node:v8')): number {
  let largest = 0;
  let keep = [];
  for (let i = 0; i < 3e6; i++) {
    keep.push({ i, a: [i, i] });
    if (keep.length > 300000) keep = [];
    if (i % 10000 === 0) {
      const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space') as { space_size: number };
      largest = Math.max(largest, space.space_size);
    }
  }
  return Math.round(largest / 1048576);
}

function churnIn(resourceLimits: { maxYoungGenerationSizeMb?: number }): Promise<number> {
  const code = `require('node:worker_threads').parentPort.postMessage((${churn.toString()})(require('node:v8')));`;
  const thread = new Worker(code, { eval: true, resourceLimits });
  return new Promise((resolve, reject) => {
    thread.once('message', (mb: number) => {
      resolve(mb);
      void thread.terminate();
    });
    thread.once('error', reject);
  });
}

const main = churn(await import('node:v8'));
// What EnginePool does before it starts a thread.
setThreadFlags();
const engine = await churnIn(THREAD_HEAPS.engine);
const result = await churnIn(THREAD_HEAPS.result);
console.log(JSON.stringify({ main, engine, result }));
