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
//   calculation (engine thread 80 → 60 ms); and a larger initial old generation: each isolate
//   otherwise ran a mark-compact every few calculations while its old generation grew to its first
//   limits (67 → 24 mark-compacts in a 200-scenario backlog). Only the minimum semi-space is set
//   here: a `--max-semi-space-size` flag would override every thread's own limit, while each
//   thread's maximum is its `resourceLimits` (worker/engine.pool.ts THREAD_HEAPS: the engine's
//   young generation 96 MB, i.e. 32 MB semi-spaces, the result thread's 12 MB), so the minimum is
//   clamped to it. With one process-wide 32–64 MB young generation for the main, engine and result
//   threads alike, a worker peaked at 540 MB and was killed in a 512 MB dyno (docs/sizing.md).
import pkg from '../package.json' with { type: 'json' };

/** The `--flags` of an npm script of the form `node --flag … entry.ts`. */
export function nodeFlagsOf(script: string): readonly string[] {
  const words = script.trim().split(/\s+/);
  if (words[0] !== 'node') throw new Error(`not a node script: ${script}`);
  return words.slice(1).filter((w) => w.startsWith('--'));
}

export const WEB_NODE_FLAGS = nodeFlagsOf(pkg.scripts.web);
export const WORKER_NODE_FLAGS = nodeFlagsOf(pkg.scripts.worker);
