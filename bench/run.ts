// `npm run bench`: the performance figures of the performance issue, each beside a baseline
// measured in the same run, as one table (also in bench/results.json). Starts its own Postgres
// (or uses DATABASE_URL's server, in databases of its own), the real web and worker processes, and
// a separate load process; talks only to 127.0.0.1. Options (after `--`):
//   --quick           the same steps with small counts; never fails on timing
//   --only=a,b        only these groups: queue (#2 #3 #5 #6 #8 #9 #11), sse (#7), create (#4), list (#10),
//                     sweeps (#12), library (#17), fairshare (#40), viewer (#13, in Chromium), dyno (#14, the Procfile in 512 MB cgroups),
//                     resource (#20: files and wakes, in-process), optimizations (#21),
//                     scale (#30: 1–32 workers with a replayed engine on one Postgres)
//   --dyno=512|1024|2560  #14's dyno size and the settings docs/sizing.md gives it (default 512)
//   --profile         web and worker processes write CPU profiles (see bench/profile.summary.ts)
//   --keep-logs       keep the processes' logs (and profiles) and print where they are
//   --fresh-hourly    #1's rows with new hourly arrays each call (before 2026-11-29), not reused as the engine thread does
//   --peer=ssc        SAM's engine beside ours (#30, bench/peer.ssc.ts): wall and CPU time, targets judged on
//                     CPU; alone unless --only names groups
//   --ssc-source=DIR  where NREL/ssc's source is (a checkout or a bare git dir); built once, cached
//   --ssc-variants=N  how many of #30's 1,000 variants SSC runs (the rest extrapolated; default 50)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../shared/config.ts';
import { type Cluster, startCluster } from './cluster.ts';
import { type Bench, FULL, poolCache, QUICK } from './context.ts';
import { diskPerScenario } from './figures.disk.ts';
import { DYNO_FULL, DYNO_PROFILES, DYNO_QUICK, dyno } from './figures.dyno.ts';
import { batteryRows, flipRow, hourlyArraysText, measureEngine, modelRow } from './figures.engine.ts';
import { FAIR_FULL, FAIR_QUICK, fairShare } from './figures.fairshare.ts';
import { createThroughput, list, statements } from './figures.http.ts';
import { LIBRARY_FULL, LIBRARY_QUICK, library } from './figures.library.ts';
import { optimizations } from './figures.optimizations.ts';
import { backlog, pickupAndEndToEnd } from './figures.queue.ts';
import { resourceRows } from './figures.resource.rows.ts';
import { SCALE_FULL, SCALE_QUICK, scale } from './figures.scale.ts';
import { sseFanout } from './figures.sse.ts';
import { SWEEP_FULL, SWEEP_QUICK, sweeps } from './figures.sweeps.ts';
import { VIEWER_FULL, VIEWER_QUICK, viewer } from './figures.viewer.ts';
import { type Located, locateSsc } from './peer.ssc.build.ts';
import { SscDriver } from './peer.ssc.client.ts';
import { sscPeer } from './peer.ssc.ts';
import { LoadProcess, liveServices, machineBusyMs, ownCpuMs, profiling, startWeb, startWorker } from './procs.ts';
import { clockSkewMs } from './stats.ts';
import { type Row, renderMarkdown, renderTable } from './table.ts';

const GROUPS = [
  'queue',
  'sse',
  'create',
  'list',
  'sweeps',
  'library',
  'viewer',
  'dyno',
  'resource',
  'optimizations',
  'scale',
  'fairshare',
] as const;
const quick = process.argv.includes('--quick');
profiling.enabled = process.argv.includes('--profile');
const keepLogs = process.argv.includes('--keep-logs') || profiling.enabled;
const onlyArg = process.argv.find((a) => a.startsWith('--only='));
const argValue = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const peer = argValue('peer');
if (peer !== undefined && peer !== 'ssc') throw new Error('--peer: only ssc');
const only = new Set(onlyArg ? onlyArg.slice('--only='.length).split(',') : peer ? [] : GROUPS);
for (const g of only) if (!(GROUPS as readonly string[]).includes(g)) throw new Error(`--only: unknown group ${g}`);
const sizes = quick ? QUICK : FULL;
const dynoArg = process.argv.find((a) => a.startsWith('--dyno='))?.slice('--dyno='.length) ?? '512';
const dynoProfile = DYNO_PROFILES[dynoArg];
if (!dynoProfile) throw new Error(`--dyno: one of ${Object.keys(DYNO_PROFILES).join(', ')} (MB)`);
const config = loadConfig();
const t0 = performance.now();
const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(1).padStart(6)} s`;
const step = (what: string) => console.log(`[${elapsed()}] ${what}`);

if (clockSkewMs() > 5)
  throw new Error(`the wall clock is ${clockSkewMs().toFixed(0)} ms off the monotonic clock; rerun`);
const loadAtStart = loadavg()[0];
const machineAtStart = machineBusyMs();
const ownAtStart = ownCpuMs();
console.log(
  `hourglass bench (${quick ? 'quick' : 'full'}): Node ${process.version}, ${cpus().length} CPUs, load average ${loadAtStart.toFixed(2)}`,
);
// Every figure shares the machine's cores with whatever else runs; a busy machine skews them all.
if (loadAtStart > 0.5 * cpus().length) console.log('WARNING: the machine is busy before the bench starts');

const rows: Row[] = [];
const notes: string[] = [];
const skipped: string[] = [];
step(`#1 engine: ${sizes.engineRuns} runs of the default scenario`);
// #1's rows run as the worker's engine thread runs the engine (its hourly arrays reused); --fresh-hourly: new arrays each call, as before 2026-11-29.
const engine = measureEngine(
  sizes.engineWarmup,
  sizes.engineRuns,
  process.argv.includes('--fresh-hourly') ? 'fresh' : 'reused',
);
rows.push({
  n: '1',
  figure: `Engine, default scenario, median (${sizes.engineRuns} runs; every #1 row with ${hourlyArraysText(engine.hourly)})`,
  value: engine.engineMs,
  unit: 'ms',
  target: '≤ 70 ms',
  met: engine.engineMs <= 70,
});
rows.push({
  n: '1',
  figure: 'Engine, the same with its PPA price solved for a 10 % equity IRR',
  value: engine.solvedMs,
  unit: 'ms',
  baseline: { label: 'engine (#1)', value: engine.engineMs },
  ratio: engine.solvedMs / engine.engineMs,
  target: '≤ #1 + 15 ms',
  met: engine.solvedMs <= engine.engineMs + 15,
});
rows.push(modelRow(engine));
rows.push(flipRow(engine));
rows.push(...batteryRows(engine));
notes.push(
  `#1: serializing the result (JSON + gzip + int32) after the engine: median ${engine.serializeMs.toFixed(1)} ms`,
);

if (only.has('resource')) {
  step('#20 resource: SRW and EPW files, the simple wake model');
  rows.push(...resourceRows(sizes.engineWarmup, Math.max(5, Math.round(sizes.engineRuns / 4))));
}

let ssc: Located | null = null;
if (peer === 'ssc') {
  step('#30 SSC peer: locating (or building) SSC');
  ssc = await locateSsc(argValue('ssc-source'), step);
  if (ssc.ok) step(`SSC ${ssc.build.describe} (commit ${ssc.build.commit.slice(0, 9)}), library ${ssc.build.library}`);
  else {
    step(`#30 SSC peer skipped: ${ssc.reason}`);
    skipped.push(`#30 SSC peer: ${ssc.reason}`);
  }
}

const logDir = mkdtempSync(join(tmpdir(), 'hourglass-bench-logs-'));
const pools = poolCache();
let cluster: Cluster | null = null;
let load: LoadProcess | null = null;
let crashed: unknown = null;
/** Groups that threw: the others still run, and the table and results.json still say what was measured. */
const failedGroups: string[] = [];

/** Runs one group; an error ends that group only (its processes are stopped) and is reported at the end. */
async function group(name: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (err) {
    failedGroups.push(`${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    step(`${name} failed: ${err instanceof Error ? err.message : String(err)}`);
    await Promise.all([...liveServices].map((s) => s.stop().catch(() => {})));
  }
}
let cleaning: Promise<void> | null = null;

/** Stops everything the bench started; concurrent callers (an interrupt, the finally) share one run. */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await Promise.all([...liveServices].map((s) => s.stop().catch(() => {})));
    await load?.stop().catch(() => {});
    await pools.end();
    await cluster?.stop().catch(() => {});
  })();
  return cleaning;
}
let interrupted = false;
function onInterrupt(): void {
  interrupted = true;
  console.error('interrupted: stopping processes and Postgres');
  void cleanup().finally(() => process.exit(130));
}

try {
  step('starting Postgres and migrating a template database');
  cluster = await startCluster(config);
  const db = cluster;
  // After startCluster: starting the embedded Postgres removes every SIGINT listener.
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);
  step(cluster.describe);
  load = new LoadProcess();
  const b: Bench = {
    quick,
    sizes,
    logDir,
    load,
    cluster,
    engine,
    rows,
    notes,
    skipped,
    pool: (url) => pools.pool(url),
  };

  const mainUrl = await db.database('main');
  if (only.has('queue'))
    await group('queue', async () => {
      const web = await startWeb(mainUrl, logDir, 'web-main');
      try {
        const worker = await startWorker(mainUrl, logDir, 'worker-main');
        let ids: string[];
        try {
          step(`#2/#3 pickup over ${sizes.pickupSamples} scenarios, end to end over ${sizes.endToEndSamples}`);
          ids = await pickupAndEndToEnd(b, mainUrl, web.port);
        } finally {
          await worker.stop();
        }
        step('#8/#9 statements');
        await statements(b, mainUrl, web.port, ids[0]);
        step(`#5/#6 backlog of ${sizes.backlog} with one worker, then another ${sizes.backlog} with two`);
        await backlog(b, mainUrl, web.port);
      } finally {
        await web.stop();
      }
      step('#11 disk per scenario');
      await diskPerScenario(b, mainUrl);
      // Its ~2 GB of fresh rows would otherwise be vacuumed (autovacuum) while later groups measure.
      await db.drop('main');
    });
  if (only.has('sse'))
    await group('sse', async () => {
      step(`#7 SSE fan-out to ${sizes.sseStreams} streams`);
      await sseFanout(b, await db.database('sse'));
    });
  if (only.has('create'))
    await group('create', async () => {
      step(`#4 create throughput, ${sizes.createMs / 1000} s per route`);
      await createThroughput(b);
    });
  if (only.has('list'))
    await group('list', async () => {
      step(`#10 list of ${sizes.listRows} scenarios`);
      await list(b, engine.summaryJson);
    });
  if (only.has('sweeps'))
    await group('sweeps', async () => {
      step('#12 sweeps');
      await sweeps(b, await db.database('sweeps'), quick ? SWEEP_QUICK : SWEEP_FULL);
    });
  if (only.has('library'))
    await group('library', async () => {
      step('#17 a sweep of a measured plant, its files sent inline');
      await library(b, await db.database('library'), quick ? LIBRARY_QUICK : LIBRARY_FULL);
    });
  if (only.has('fairshare'))
    await group('fairshare', async () => {
      step('#40 fair share between workspaces');
      await fairShare(b, await db.database('fairshare'), quick ? FAIR_QUICK : FAIR_FULL);
    });
  if (only.has('viewer'))
    await group('viewer', async () => {
      step('#13 the viewer in Chromium');
      await viewer(b, await db.database('viewer'), quick ? VIEWER_QUICK : VIEWER_FULL);
    });
  if (only.has('optimizations'))
    await group('optimizations', async () => {
      step('#21 optimizations');
      await optimizations(b, await db.database('optimizations'), quick ? 2 : 7);
    });
  if (only.has('scale'))
    await group('scale', async () => {
      step('#30 one Postgres, many workers (engine replayed)');
      await scale(b, quick ? SCALE_QUICK : SCALE_FULL, step);
    });
  if (ssc?.ok) {
    const build = ssc.build;
    await group('peer-ssc', async () => {
      const driver = new SscDriver(build.driver);
      try {
        step(`#30 SSC peer: ssc_version ${await driver.start()}`);
        await sscPeer(b, driver, build, await db.database('peer'), Number(argValue('ssc-variants') ?? 50), step);
      } finally {
        await driver.stop();
      }
    });
  }
  if (only.has('dyno'))
    await group('dyno', async () => {
      step(`#14 the Procfile in memory cgroups (the worker's: ${dynoProfile.mb} MB)`);
      await dyno(b, await db.database('dyno'), quick ? DYNO_QUICK : DYNO_FULL, dynoProfile);
    });
} catch (err) {
  crashed = err;
} finally {
  step('stopping');
  await cleanup();
}

const order = (r: Row) => Number(r.n);
rows.sort((a, b) => order(a) - order(b));
const seconds = (performance.now() - t0) / 1000;
const missed = rows.filter((r) => r.met === false);
// What other processes took from the machine while the bench ran: a contaminated run says so.
// #2 compares this machine's wall clock with Postgres's; a step of it during the run spoils that.
if (clockSkewMs() > 5)
  notes.push(`WARNING: the wall clock stepped by ${clockSkewMs().toFixed(0)} ms during the run: #2 is unreliable`);
const othersCpuS = (machineBusyMs() - machineAtStart - (ownCpuMs() - ownAtStart)) / 1000;
const othersShare = othersCpuS / (seconds * cpus().length);
notes.push(
  `${othersShare > 0.05 ? 'WARNING: ' : ''}other processes on this machine used ${othersCpuS.toFixed(0)} CPU-s during the run (${(100 * othersShare).toFixed(0)} % of its ${cpus().length} CPUs)${othersShare > 0.05 ? ': the figures are skewed' : ''}`,
);
console.log('');
console.log(renderTable(rows));
console.log('');
for (const note of notes) console.log(`  ${note}`);
console.log('');
writeFileSync(
  new URL('./results.json', import.meta.url),
  `${JSON.stringify(
    {
      mode: quick ? 'quick' : 'full',
      finished_at: new Date().toISOString(),
      seconds: Math.round(seconds),
      node: process.version,
      cpus: cpus().length,
      load_average_at_start: loadAtStart,
      other_processes_cpu_share: othersShare,
      postgres: cluster?.describe ?? null,
      sizes,
      only: [...only],
      // Each row met, missed, or shown for context (no target).
      rows: rows.map((r) => ({ ...r, status: r.met === null ? 'context' : r.met ? 'met' : 'missed' })),
      notes,
      skipped,
      failed_groups: failedGroups,
      missed: missed.map((r) => `#${r.n} ${r.figure}`),
      error: crashed ? String(crashed instanceof Error ? (crashed.stack ?? crashed.message) : crashed) : null,
      markdown: renderMarkdown(rows),
    },
    null,
    2,
  )}\n`,
);
console.log(
  `${rows.length} figures, ${missed.length} target(s) missed; ${seconds.toFixed(0)} s; bench/results.json written`,
);
if (interrupted) process.exit(130);
for (const f of failedGroups) console.error(`a group failed: ${f}`);
if (crashed || failedGroups.length > 0) {
  if (!crashed) {
    console.error(`process logs kept in ${logDir}`);
    process.exit(2);
  }
  console.error(
    `the bench crashed: ${crashed instanceof Error ? (crashed.stack ?? crashed.message) : String(crashed)}`,
  );
  console.error(`process logs kept in ${logDir}`);
  process.exit(2);
}
if (keepLogs) console.log(`process logs in ${logDir}`);
else rmSync(logDir, { recursive: true, force: true });
process.exit(!quick && missed.length > 0 ? 1 : 0);
