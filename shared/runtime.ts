// Node flags of the web process. A small young generation: with thousands of open event streams
// (or a 100,000-row list) V8 otherwise lets the semi-spaces grow to 128 MB of garbage; measured,
// 5,000 streams took 242 MB of RSS instead of 327 MB with the same delivery latency.
// package.json's "web" script carries the same flag.
export const WEB_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8'];
