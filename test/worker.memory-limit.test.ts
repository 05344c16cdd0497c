// A worker with its default settings and its npm script's Node flags (what the Procfile runs), in a
// kernel memory cgroup of 512 MB without swap (a standard dyno), drains a sweep whose variants
// reuse nothing (a latitude sweep) while single scenarios with hourly data run beside it: the
// kernel kills nothing and every scenario succeeds on its first attempt. Before the per-thread
// heap limits and the 32 MB profile cache, this worker was killed (it peaked near 840 MB).
// 120 variants: enough for the old worker to be killed (its 256 MB cache filled after ~73, on top of
// ~540 MB of heaps), and the heaps' high-water mark is reached within ~40. Beside "not killed", the
// worker's peak RSS (VmHWM, sampled) must stay within the 435 MB (85 % of the dyno): the
// kernel reclaims page cache before it kills, so a worker can live near the limit for a while.
// Where the machine has no memory cgroup (not Linux, not root), the test says so and checks the
// peak it can sample.
import t from 'tap';
import { WORKER_NODE_FLAGS } from '../scripts/node.flags.ts';
import { commandLine, type MemoryCgroup, memoryCgroup, processRss } from './helpers/cgroup.ts';
import { launchWorker, type Proc, workerStarted } from './helpers/processes.ts';
import { startStack, withProcessLogs } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const DYNO_MB = 512;
const VARIANTS = 120;
const PEAK_MB = 435;
const SINGLES = 3;

const stack = await startStack();
const made = memoryCgroup('hourglass-test-worker', DYNO_MB);
const cgroup: MemoryCgroup | null = 'unavailable' in made ? null : made;
if (!cgroup) t.comment(`no ${DYNO_MB} MB cgroup here (${(made as { unavailable: string }).unavailable}): sampling RSS`);

const entry: [string, string[]] = [process.execPath, [...WORKER_NODE_FLAGS, 'worker/main.ts']];
const worker: Proc = launchWorker(stack.url, {}, { argv: cgroup ? cgroup.wrap(...entry) : entry });
stack.procs.push(worker);
t.teardown(async () => {
  await stack.stop();
  // The cgroup can go once the kernel has seen its last process leave.
  await waitUntil(async () => !cgroup || cgroup.pids().length === 0, { what: 'the cgroup to empty' });
  cgroup?.remove();
});

/** The worker's peak resident memory so far (its Node process's VmHWM), sampled while it runs. */
let peakMb = 0;
const sampling = setInterval(() => {
  const pid = worker.child.pid ?? 0;
  if (commandLine(pid).includes('worker/main.ts')) peakMb = Math.max(peakMb, processRss(pid).peakMb || 0);
}, 100);
t.teardown(() => clearInterval(sampling));

async function post(path: string, body: unknown): Promise<{ id: string }> {
  const res = await fetch(`${stack.web.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string };
}

t.test(`a worker in a ${DYNO_MB} MB memory limit drains a no-reuse sweep without being killed`, async (t) => {
  await withProcessLogs(t, stack, async () => {
    await worker.waitForLog(workerStarted);
    if (cgroup) t.ok(cgroup.pids().includes(worker.child.pid ?? 0), `the worker runs in ${cgroup.describe}`);
    const site = { latitude: 35.2, longitude: -101.8 };
    await Promise.all([
      post('/api/sweeps', {
        name: 'latitude, nothing reusable',
        base: { site, seed: 5 },
        vary: [{ path: '/site/latitude', values: Array.from({ length: VARIANTS }, (_, i) => 25 + i / 6) }],
      }),
      ...Array.from({ length: SINGLES }, (_, i) => post('/api/scenarios', { name: `hourly ${i}`, site })),
    ]);
    // Ends when every scenario has finished, or as soon as the worker is gone (killed).
    await waitUntil(
      async () => {
        if (worker.child.exitCode !== null || worker.child.signalCode !== null) return true;
        const { rows } = await stack.pool.query<{ open: number }>(
          `SELECT count(*)::int AS open FROM scenarios WHERE status IN ('queued', 'running')`,
        );
        return rows[0].open === 0;
      },
      { timeoutMs: 240_000, what: 'the sweep and the single scenarios to finish' },
    );
    t.equal(worker.child.signalCode, null, 'the worker was not killed');
    t.equal(worker.child.exitCode, null, 'the worker is still running');
    if (cgroup) t.equal(cgroup.oomKills(), 0, 'the kernel killed no process in the cgroup');
    const { rows } = await stack.pool.query<{ total: number; succeeded: number; first: number; hourly: number }>(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
              count(*) FILTER (WHERE status = 'succeeded' AND attempt = 1)::int AS first,
              count(*) FILTER (WHERE r.statements_gzip IS NOT NULL)::int AS hourly
         FROM scenarios s LEFT JOIN scenario_results r ON r.scenario_id = s.id`,
    );
    t.same(
      rows[0],
      { total: VARIANTS + SINGLES, succeeded: VARIANTS + SINGLES, first: VARIANTS + SINGLES, hourly: SINGLES },
      'every scenario succeeded on its first attempt; the singles kept their hourly data',
    );
    if (cgroup) t.comment(`cgroup peak ${(cgroup.peakBytes() / 2 ** 20).toFixed(0)} MB (page cache included)`);
    t.ok(peakMb > 0 && peakMb <= PEAK_MB, `the worker's peak RSS, ${peakMb.toFixed(0)} MB, is within ${PEAK_MB} MB`);
  });
});
