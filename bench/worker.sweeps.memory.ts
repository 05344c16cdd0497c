// #12's memory sequence alone, faster than `--only=sweeps`: the real web and worker (the npm
// script's flags, WORKER_PREFETCH=1 as every bench worker), a reuse sweep, the battery sweep, then
// a latitude sweep with single scenarios posted while it drains; the worker's peak RSS (VmHWM,
// reset before each sweep, not its heaps: as #12 measures it) and its anonymous and file-backed
// resident memory at the end of each (/proc/<pid>/smaps_rollup). Extra worker environment as
// NAME=value arguments (e.g. MALLOC_ARENA_MAX=2); --reuse=N --battery=N --latitude=N (0: skip).
//   node bench/worker.sweeps.memory.ts --latitude=2000 --reuse=0 --battery=0
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../shared/config.ts';
import { startCluster } from './cluster.ts';
import { type Bench, poolCache } from './context.ts';
import { batteryStudy, latitudeSweep, postJson, reuseSweep, singleLatency, waitFinished } from './figures.sweeps.ts';
import { peakRssMb, resetPeakRss, rssMb, startWeb, startWorker } from './procs.ts';
import { sleep } from './stats.ts';

const arg = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const env = Object.fromEntries(
  process.argv
    .slice(2)
    .filter((a) => /^[A-Z_]+=/.test(a))
    .map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]),
);
const SINGLES = 7;

const cluster = await startCluster(loadConfig());
const pools = poolCache();
const url = await cluster.database('sweeps_memory');
const logDir = mkdtempSync(join(tmpdir(), 'hourglass-sweeps-memory-'));
const web = await startWeb(url, logDir, 'web', { MAX_SWEEP_VARIANTS: '2000' });
const worker = await startWorker(url, logDir, 'worker', env);
const base = `http://127.0.0.1:${web.port}`;
const b = { pool: (u: string) => pools.pool(u) } as Bench;

/** Anonymous and file-backed resident MB of the worker. */
function residentMb(): { anon: number; file: number } {
  const text = readFileSync(`/proc/${worker.pid}/smaps_rollup`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { anon: Math.round(kb('Anonymous') / 1024), file: Math.round((kb('Rss') - kb('Anonymous')) / 1024) };
}

async function drain(name: string, body: unknown, meanwhile?: () => Promise<void>): Promise<void> {
  resetPeakRss(worker.pid);
  const t0 = performance.now();
  const sweep = await postJson(base, '/api/sweeps', body);
  await meanwhile?.();
  await waitFinished(base, sweep.id as string, 900_000);
  const s = ((performance.now() - t0) / 1000).toFixed(1);
  const { anon, file } = residentMb();
  console.log(
    `${name}: peak ${peakRssMb(worker.pid).toFixed(0)} MB, then ${rssMb(worker.pid).toFixed(0)} MB (anonymous ${anon}, files ${file}), ${s} s`,
  );
}

try {
  console.log(`worker started: ${rssMb(worker.pid).toFixed(0)} MB; env ${JSON.stringify(env)}`);
  for (let i = 0; i < SINGLES; i++) await singleLatency(b, url, base);
  console.log(`after ${SINGLES} single scenarios: ${rssMb(worker.pid).toFixed(0)} MB`);
  if (arg('reuse', 1000) > 0) await drain('reuse', reuseSweep(arg('reuse', 1000)));
  if (arg('battery', 1000) > 0) await drain('battery', batteryStudy(arg('battery', 1000)));
  const latitude = arg('latitude', 400);
  if (latitude > 0)
    await drain('latitude', latitudeSweep('latitude', 7, latitude), async () => {
      await sleep(1000);
      for (let i = 0; i < SINGLES; i++) {
        await singleLatency(b, url, base);
        await sleep(300);
      }
    });
} finally {
  await worker.stop();
  await web.stop();
  await pools.end();
  await cluster.stop();
}
