// Node flags of the web process. A small young generation: with thousands of open event streams
// (or a 100,000-row list) V8 otherwise lets the semi-spaces grow to 128 MB of garbage; measured,
// 5,000 streams took 242 MB of RSS instead of 327 MB with the same delivery latency.
// package.json's "web" script carries the same flag.
export const WEB_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8'];

// Node flags of the worker process, measured on the default scenario:
// - a large young generation from the start: in a worker thread V8 starts with a small one, so the
//   engine's ~28 MB of short-lived numbers per calculation was scavenged every few ms, promoted,
//   and collected again by a mark-compact every other calculation (engine thread 80 → 60 ms);
// - a larger initial old generation: each isolate otherwise ran a mark-compact every few
//   calculations while its old generation grew to its first limits (67 → 24 mark-compacts in a
//   200-scenario backlog; GC helper threads 11 → 5 ms of CPU per scenario).
// package.json's "worker" script carries the same flags.
export const WORKER_NODE_FLAGS: readonly string[] = [
  '--min-semi-space-size=32',
  '--max-semi-space-size=64',
  '--initial-old-space-size=128',
];
