// The Node flags of the web and worker processes. Their one source is package.json's "web" and
// "worker" scripts (what the Procfile runs); `npm start` and the bench read them from there, so a
// flag changed there applies everywhere.
//
// Why these flags, measured:
// - web: a small young generation. With thousands of open event streams (or a 100,000-row list)
//   V8 otherwise lets the semi-spaces grow to 128 MB of garbage; measured, 5,000 streams took
//   242 MB of RSS instead of 327 MB with the same delivery latency.
// - worker: the engine thread needs a large young generation from the start: in a worker thread V8
//   starts with a small one, so the engine's ~28 MB of short-lived numbers per calculation was
//   scavenged every few ms, promoted, and collected again by a mark-compact every other
//   calculation (engine thread 80 → 60 ms): `--min-semi-space-size=32`, which each isolate clamps
//   to its own maximum. `--max-semi-space-size=8` is the main thread's maximum (without it V8 sized
//   it from the machine's memory: 64 MB semi-spaces, 128 MB of young generation, on a 24 GB host).
//   V8 reads flags again for each new isolate and a set `--max-semi-space-size` overrides a
//   thread's `resourceLimits`, so the engine pool unsets it before it starts a thread, and sets the
//   threads' `--initial-old-space-size=128` then (worker/engine.pool.ts THREAD_FLAGS; the threads'
//   maximums are THREAD_HEAPS: the engine's young generation 96 MB, the result thread's 12 MB).
//   With one process-wide 32–64 MB young generation for the main, engine and result threads alike,
//   a worker peaked at 540 MB and was killed in a 512 MB dyno (docs/sizing.md); with the main
//   thread's sized by the host, #12 peaked at 575–586 MB (bench/README.md, "A 512 MB dyno").
import pkg from '../package.json' with { type: 'json' };

/** The `--flags` of an npm script of the form `node --flag … entry.ts`. */
export function nodeFlagsOf(script: string): readonly string[] {
  const words = script.trim().split(/\s+/);
  if (words[0] !== 'node') throw new Error(`not a node script: ${script}`);
  return words.slice(1).filter((w) => w.startsWith('--'));
}

export const WEB_NODE_FLAGS = nodeFlagsOf(pkg.scripts.web);
export const WORKER_NODE_FLAGS = nodeFlagsOf(pkg.scripts.worker);
