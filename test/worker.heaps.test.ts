// Each of the worker's threads gets the young generation it was given, whatever the machine's
// memory: the main thread the npm script's `--max-semi-space-size` (without it V8 sized the main
// thread's from the host's RAM, 128 MB on a 24 GB host), and the engine and result threads their
// own THREAD_HEAPS, which a set flag would override (the pool unsets it before a thread starts).
// The probe allocates garbage in each and reports the largest new space it reached (two semi-spaces).
import { execFileSync } from 'node:child_process';
import t from 'tap';
import { WORKER_NODE_FLAGS } from '../scripts/node.flags.ts';
import { THREAD_HEAPS } from '../worker/engine.pool.ts';

const semiSpaceFlag = WORKER_NODE_FLAGS.find((f) => f.startsWith('--max-semi-space-size='));
t.ok(semiSpaceFlag, "the worker's npm script sizes the main thread's young generation");
const mainSemiMb = Number(semiSpaceFlag?.split('=')[1]);

const out = execFileSync(process.execPath, [...WORKER_NODE_FLAGS, 'test/helpers/heaps.probe.ts'], {
  encoding: 'utf8',
});
const reached = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { main: number; engine: number; result: number };
// A young generation of Y MB is three semi-spaces' worth in V8's accounting: new space is two of them.
const newSpaceOf = (youngMb: number) => (2 * youngMb) / 3;

t.equal(reached.main, 2 * mainSemiMb, `main thread: new space at most 2 × ${mainSemiMb} MB`);
t.equal(reached.engine, newSpaceOf(THREAD_HEAPS.engine.maxYoungGenerationSizeMb ?? 0), 'engine thread: its own limit');
t.equal(reached.result, newSpaceOf(THREAD_HEAPS.result.maxYoungGenerationSizeMb ?? 0), 'result thread: its own limit');
