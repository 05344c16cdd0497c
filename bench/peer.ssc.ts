// `npm run bench -- --peer=ssc`: SAM's own engine (SSC, built from NREL/ssc's source by
// bench/peer.ssc.build.ts) beside Hourglass, in the same run, on the same inputs:
//   (a) the README's measured-resource hybrid (Phoenix TMY2 for pvwattsv5, the eastern Arizona SRW
//       file for windpower, 32 turbines of 1.5 MW, simple wakes), grid and singleowner; Hourglass's
//       engine in this process against SSC's modules in the C driver;
//   (b) the same with a 100 MW / 400 MWh battery (SSC's battery, automated front-of-meter dispatch;
//       ours, storage with arbitrage);
//   (v8) the hybrid on PVWatts v8 (our default) against pvwattsv8: the default plant, bifacial
//       modules, single-axis trackers without backtracking;
// (a), (b) and (v8) each twice for SSC: in lifetime mode (PVWatts repeats its year 25 times) and
// in SAM's default single-year mode (one year; degradation in Single Owner), against one run of ours;
//   (c) 1,000 variants of capacities and export limit: a Hourglass sweep through the real web and
//       worker processes against SAM's parametric way, one full SSC run per variant (a sample of
//       them, extrapolated, unless --ssc-variants=1000).
// Each case has two rows, each Hourglass's time as a fraction of SSC's: wall time (shown for
// context) and CPU time, on which the targets are judged (lifetime mode ≤ 0.05×, single-year mode
// ≤ 0.5×, (c) ≤ 0.02×): on a shared host the wall time of either side grows with what else runs,
// its CPU time much less. SSC's CPU time is its driver process's (every thread,
// CLOCK_PROCESS_CPUTIME_ID); ours is this process's around the in-process engine
// (process.cpuUsage(): the engine's thread and V8's helper threads, its garbage collection), and in
// (c) that of the web, the worker and the embedded Postgres. Outputs (year-1 energy per
// technology, equity NPV) are compared in the notes. The mapping of inputs: peer.ssc.inputs.ts.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { HOURS_PER_YEAR, YEARS } from '../shared/calendar.ts';
import type { ResolvedInputs, ScenarioInputs } from '../shared/schemas/inputs.ts';
import { type DeepPartial, resolvedInputs } from '../test/fixtures/inputs.ts';
import { accepted, getJson, postJson as post } from '../test/helpers/http.ts';
import { calculate, type EngineResult, type HourlyBuffers } from '../worker/engine/index.ts';
import type { Bench } from './context.ts';
import { waitFinished } from './figures.sweeps.ts';
import { mapBattery } from './peer.ssc.battery.ts';
import type { SscBuild } from './peer.ssc.build.ts';
import type { SscDriver, SscRun } from './peer.ssc.client.ts';
import { mapScenario, OUTPUTS, runScript } from './peer.ssc.inputs.ts';
import { SSC_MODES, type SscMode } from './peer.ssc.table.ts';
import { cpuSince, cpuSnapshot, startWeb, startWorker } from './procs.ts';
import { median, sleep } from './stats.ts';
import type { Row } from './table.ts';

const REFERENCE = new URL('../test/fixtures/reference/', import.meta.url);
const FILES = {
  solar: fileURLToPath(new URL('phoenix_az_tmy2.csv', REFERENCE)),
  wind: fileURLToPath(new URL('az_eastern_rolling_hills.srw', REFERENCE)),
};
const reference = (name: string) => readFileSync(new URL(name, REFERENCE), 'utf8');

/** The README's farm: rows of `perRow` turbines 616 m apart, every other row shifted half a spacing. */
export function staggeredLayout(rows: number, perRow: number): { x_m: number[]; y_m: number[] } {
  const x_m: number[] = [];
  const y_m: number[] = [];
  for (let r = 0; r < rows; r++)
    for (let i = 0; i < perRow; i++) {
      x_m.push(i * 616 + (r % 2) * 308);
      y_m.push(r * 616);
    }
  return { x_m, y_m };
}

/** The README's "measured resource" scenario, as a request (the sweep's base) and resolved. */
function measuredRequest(): DeepPartial<ScenarioInputs> & { name: string } {
  const curve = reference('turbine_1500kw_77m_power_curve.csv')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(',').map(Number) as [number, number]);
  return {
    name: 'Phoenix measured',
    site: { latitude: 33.43, longitude: -112.02, elevation_m: 339 },
    weather: { source: 'sam_csv', text: reference('phoenix_az_tmy2.csv') },
    // The issue's peer is PVWatts v5 (ours is v8 by default since 2026-11-27).
    solar: { capacity_mw_dc: 60, model: 'pvwatts_v5' },
    wind_resource: { source: 'srw', text: reference('az_eastern_rolling_hills.srw') },
    wind: {
      turbine: { hub_height_m: 80, rotor_diameter_m: 77, power_curve: curve },
      layout: staggeredLayout(4, 8),
      wake_model: 'simple',
    },
  };
}

const BATTERY = { storage: { power_mw: 100, energy_mwh: 400 } } as const;

/** The PVWatts v8 cases: (a)'s plant on v8, with bifacial modules, and on trackers without backtracking. */
export const V8_CASES: [string, DeepPartial<ScenarioInputs['solar']>][] = [
  ['PVWatts v8 default plant', { model: 'pvwatts_v8' }],
  ['PVWatts v8 bifacial (bifaciality 0.65)', { model: 'pvwatts_v8', bifaciality: 0.65 }],
  ['PVWatts v8 single-axis, no backtracking', { model: 'pvwatts_v8', array_type: 'single_axis' }],
];

/** One scenario's SSC script in one of SSC's modes: its modules, and the battery's when it has one. */
function sscScript(inputs: ResolvedInputs, mode: SscMode = 'lifetime'): string[] {
  return runScript(mapScenario(inputs, FILES, mapBattery(inputs), mode));
}

interface SscTimed {
  ms: number[];
  cpuMs: number[];
  modules: Record<string, number[]>;
  moduleCpu: Record<string, number[]>;
  last: SscRun | null;
}

/** The issue's targets for Hourglass's time as a fraction of SSC's, judged on CPU time. */
export const PEER_TARGETS = { lifetime: 0.05, single_year: 0.5, sweep: 0.02 } as const;

/**
 * The hourly arrays the engine writes into, reused from one call to the next as the worker's engine
 * thread reuses its own (worker/engine.thread.ts: solar and wind, and a battery's four once one has
 * run): the peer times the engine as the service runs it. No profile cache: SSC computes its weather
 * and generation every run, and so does ours here. A result's hourly arrays are these, so they hold
 * the last call's hours only.
 */
let buffers: HourlyBuffers | undefined;

/** One call of the in-process engine: wall, this process's CPU and the calling thread's CPU, ms. */
export function timedCalculate(inputs: ResolvedInputs): {
  result: EngineResult;
  ms: number;
  cpuMs: number;
  threadMs: number;
} {
  const cpu0 = process.cpuUsage();
  const thread0 = process.threadCpuUsage();
  const t0 = performance.now();
  buffers ??= {
    solar: new Float64Array(YEARS * HOURS_PER_YEAR),
    wind: new Float64Array(YEARS * HOURS_PER_YEAR),
  };
  const result = calculate(inputs, { hourly: buffers });
  const ms = performance.now() - t0;
  const thread = process.threadCpuUsage(thread0);
  const cpu = process.cpuUsage(cpu0);
  return { result, ms, cpuMs: (cpu.user + cpu.system) / 1000, threadMs: (thread.user + thread.system) / 1000 };
}

/**
 * Both engines on one scenario, their runs interleaved (ours, then SSC's in each mode, in turn) so
 * that a change in the machine's load falls on all; medians after one warm-up run each.
 */
async function timeBoth(driver: SscDriver, inputs: ResolvedInputs, runs: number) {
  const scripts = SSC_MODES.map((mode) => ({ mode, script: sscScript(inputs, mode) }));
  const hgTimes: number[] = [];
  const hgCpu: number[] = [];
  const hgThread: number[] = [];
  const ssc = new Map<SscMode, SscTimed>(
    SSC_MODES.map((m) => [m, { ms: [], cpuMs: [], modules: {}, moduleCpu: {}, last: null }]),
  );
  let hg: EngineResult | null = null;
  for (let i = 0; i <= runs; i++) {
    const ours = timedCalculate(inputs);
    hg = ours.result;
    if (i > 0) {
      hgTimes.push(ours.ms);
      hgCpu.push(ours.cpuMs);
      hgThread.push(ours.threadMs);
    }
    for (const { mode, script } of scripts) {
      const run = await driver.run(script);
      const timed = ssc.get(mode) as SscTimed;
      timed.last = run;
      if (i === 0) continue;
      timed.ms.push(run.ms);
      timed.cpuMs.push(run.cpuMs);
      for (const [m, ms] of Object.entries(run.modules)) {
        timed.modules[m] ??= [];
        timed.modules[m].push(ms);
        timed.moduleCpu[m] ??= [];
        timed.moduleCpu[m].push(run.moduleCpu[m]);
      }
    }
  }
  return {
    hgMs: median(hgTimes),
    hgCpuMs: median(hgCpu),
    hgThreadMs: median(hgThread),
    hg: hg as EngineResult,
    modes: SSC_MODES.map((mode) => {
      const t = ssc.get(mode) as SscTimed;
      const perModule = Object.entries(t.modules).map(
        ([m, ms]) => `${m} ${median(ms).toFixed(1)} ms wall / ${median(t.moduleCpu[m]).toFixed(1)} ms CPU`,
      );
      return { mode, sscMs: median(t.ms), sscCpuMs: median(t.cpuMs), ssc: t.last as SscRun, perModule };
    }),
  };
}

const MODE_LABEL: Record<SscMode, string> = {
  lifetime: 'lifetime mode',
  single_year: "single-year mode (SAM's default)",
};

const pct = (ours: number, theirs: number) =>
  theirs === 0
    ? ours === 0
      ? 'equal'
      : 'SSC 0'
    : `${ours >= theirs ? '+' : ''}${((100 * (ours - theirs)) / Math.abs(theirs)).toFixed(3)} %`;
const chargeOf = (y: EngineResult['annual'][number]) =>
  (y.storage_charge_from_plant_mwh ?? 0) + (y.storage_charge_from_grid_mwh ?? 0);
const ratio = (r: number) => `${r.toFixed(4)}×`;
const mwh = (v: number) => `${Math.round(v).toLocaleString('en-US')} MWh`;
const money = (v: number) => `${(v / 1e6).toFixed(2)} M$`;

/** The outputs side by side: year-1 energy per technology and delivered, equity NPV. */
function compareOutputs(label: string, hg: EngineResult, ssc: SscRun): string[] {
  const y1 = hg.annual[0];
  const n = ssc.numbers;
  const pairs: [string, number, number, (v: number) => string][] = [
    ['year-1 solar (before the limit)', y1.solar_mwh + solarShareOfCurtailed(hg), n[OUTPUTS.solarYear1Kwh] / 1000, mwh],
    ['year-1 wind (before the limit)', y1.wind_mwh + windShareOfCurtailed(hg), n[OUTPUTS.windYear1Kwh] / 1000, mwh],
    ['year-1 delivered (after limit and battery)', deliveredYear1(hg), ssc.sums.gen / 1000, mwh],
    ['equity NPV', hg.kpis.equity_npv, n[OUTPUTS.equityNpv], money],
  ];
  if (ssc.sums.batt_annual_discharge_energy !== undefined) {
    pairs.push(
      ['year-1 battery discharge', y1.storage_discharge_mwh ?? 0, ssc.sums.batt_annual_discharge_energy / 1000, mwh],
      ['year-1 battery charge', chargeOf(y1), ssc.sums.batt_annual_charge_energy / 1000, mwh],
    );
  }
  return pairs.map(
    ([what, ours, theirs, f]) =>
      `SSC peer ${label}: ${what}: Hourglass ${f(ours)}, SSC ${f(theirs)} (${pct(ours, theirs)})`,
  );
}

/** Year 1's curtailed MWh split as our hybrid splits it, so each technology's figure is before the limit. */
function solarShareOfCurtailed(hg: EngineResult): number {
  const y = hg.annual[0];
  const total = y.solar_mwh + y.wind_mwh;
  return total > 0 ? (y.curtailed_mwh * y.solar_mwh) / total : 0;
}
function windShareOfCurtailed(hg: EngineResult): number {
  const y = hg.annual[0];
  const total = y.solar_mwh + y.wind_mwh;
  return total > 0 ? (y.curtailed_mwh * y.wind_mwh) / total : 0;
}
/** Year 1's MWh at the point of interconnection (with a battery: its charge and discharge included). */
function deliveredYear1(hg: EngineResult): number {
  if (!hg.grid_hourly) return hg.annual[0].export_mwh;
  let sum = 0;
  for (let h = 0; h < HOURS_PER_YEAR; h++) sum += hg.grid_hourly[h];
  return sum;
}

/**
 * A case's two rows: wall time for context, then CPU time judged against `target` (Hourglass's
 * time as a fraction of SSC's), each beside SSC's from the same run.
 */
export function peerRows(
  figure: string,
  sscLabel: string,
  wall: { hg: number; ssc: number },
  cpu: { hg: number; ssc: number },
  target: number,
  unit: 'ms' | 's' = 'ms',
): Row[] {
  const k = unit === 's' ? 1000 : 1;
  const row = (clock: string, t: { hg: number; ssc: number }) => ({
    n: '30',
    figure: `${figure}, ${clock}`,
    value: t.hg / k,
    unit,
    baseline: { label: `${sscLabel}, ${clock}`, value: t.ssc / k, unit },
    ratio: t.hg / t.ssc,
  });
  const cpuRatio = cpu.hg / cpu.ssc;
  return [
    { ...row('wall time', wall), target: `context (judged on CPU)`, met: null },
    { ...row('CPU time', cpu), target: `≤ ${target}× SSC's CPU`, met: Number.isFinite(cpuRatio) && cpuRatio <= target },
  ];
}

/**
 * (a), (b) and (v8): one scenario, in-process engine against the driver in both of SSC's modes,
 * medians; a row per mode, and the outputs compared.
 */
async function single(b: Bench, driver: SscDriver, build: SscBuild, label: string, inputs: ResolvedInputs) {
  const runs = b.quick ? 2 : 7;
  const t = await timeBoth(driver, inputs, runs);
  for (const m of t.modes) {
    const where = `${label}, SSC in ${MODE_LABEL[m.mode]}`;
    b.rows.push(
      ...peerRows(
        `SSC peer ${where}, Hourglass engine, median of ${runs}`,
        `SSC ${build.describe}, same inputs, ${MODE_LABEL[m.mode]}`,
        { hg: t.hgMs, ssc: m.sscMs },
        { hg: t.hgCpuMs, ssc: m.sscCpuMs },
        PEER_TARGETS[m.mode],
      ),
    );
    b.notes.push(
      `SSC peer ${where}: ratio ${ratio(t.hgMs / m.sscMs)} wall, ${ratio(t.hgCpuMs / m.sscCpuMs)} CPU (target ≤ ${PEER_TARGETS[m.mode]}×, judged on CPU); Hourglass ${t.hgMs.toFixed(1)} ms wall, ${t.hgCpuMs.toFixed(1)} ms CPU (its thread ${t.hgThreadMs.toFixed(1)} ms); SSC ${m.sscMs.toFixed(1)} ms wall, ${m.sscCpuMs.toFixed(1)} ms CPU`,
    );
    b.notes.push(`SSC peer ${where}: SSC by module (median): ${m.perModule.join(', ')}`);
    b.notes.push(...compareOutputs(where, t.hg, m.ssc));
  }
}

/** (c)'s variants: solar capacity × turbines (4 staggered rows) × export limit; 1,000 (quick: 20). */
export function peerSweep(quick: boolean) {
  const n = quick ? 2 : 10;
  const solar = Array.from({ length: n }, (_, i) => 20 * (i + 1));
  const perRow = Array.from({ length: n }, (_, i) => i + 3);
  const limits = Array.from({ length: quick ? 5 : 10 }, (_, i) => 40 + 10 * i);
  // Each sweep: one solar capacity, half the layouts, every limit (see parametric() for why).
  const half = Math.ceil(perRow.length / 2);
  const sweeps = solar.flatMap((s) =>
    [perRow.slice(0, half), perRow.slice(half)].map((rows) => ({
      solar: s,
      vary: [
        { path: '/wind/layout', values: rows.map((k) => staggeredLayout(4, k)) },
        { path: '/grid/export_limit_mw', values: limits },
      ],
    })),
  );
  return { sweeps, variants: solar.flatMap((s) => perRow.flatMap((k) => limits.map((l) => ({ s, k, l })))) };
}

/**
 * POSTs a sweep as a client should: with an Idempotency-Key, and again after Retry-After on a
 * 503 (a large insert can outlast the web's statement timeout while the worker is busy).
 */
async function postSweep(base: string, body: unknown, key: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const res = await post(`${base}/api/sweeps`, body, { 'idempotency-key': key });
    if (res.status !== 503 || attempt === 10) return accepted(res, '/api/sweeps').id as string;
    await sleep(1000 * Number(res.headers.get('retry-after') ?? 2));
  }
}

/** (c): the 1,000-variant sweep through web + worker against as many SSC runs (or a sample). */
async function parametric(b: Bench, driver: SscDriver, build: SscBuild, url: string, sscVariants: number) {
  const sweep = peerSweep(b.quick);
  const count = sweep.variants.length.toLocaleString('en-US');
  const request = measuredRequest();
  const sample = Math.min(sscVariants, sweep.variants.length);
  const every = sweep.variants.length / sample;
  const sscTimes: number[] = [];
  const sscCpu: number[] = [];
  const sscNpv = new Map<number, number>();
  for (let i = 0; i < sample; i++) {
    const index = Math.floor(i * every);
    const v = sweep.variants[index];
    const inputs = resolvedInputs({
      ...request,
      solar: { ...request.solar, capacity_mw_dc: v.s },
      wind: { ...request.wind, layout: staggeredLayout(4, v.k) },
      grid: { export_limit_mw: v.l },
    });
    const run = await driver.run(sscScript(inputs));
    sscTimes.push(run.ms);
    sscCpu.push(run.cpuMs);
    sscNpv.set(index, run.numbers[OUTPUTS.equityNpv]);
  }
  const extrapolate = (ms: number[]) => (ms.reduce((a, t) => a + t, 0) / sample) * sweep.variants.length;
  const sscTotal = extrapolate(sscTimes);
  const sscCpuTotal = extrapolate(sscCpu);
  // Storing 50 variants of this scenario (~75 MB of inputs) can outlast the default 10 s statement
  // timeout on a busy host (a 500: see bench/README.md); a documented setting gives it a minute.
  const web = await startWeb(url, b.logDir, 'web-peer', { STATEMENT_TIMEOUT_MS: '60000' });
  const worker = await startWorker(url, b.logDir, 'worker-peer');
  try {
    const base = `http://127.0.0.1:${web.port}`;
    // A single 1,000-variant sweep of this scenario is refused with a 500: its variants' inputs, each
    // with ~1.5 MB of weather text, are serialized as one JSON string beyond V8's limit (see
    // bench/README.md). So 20 sweeps of 50, posted in a row while the worker drains the first.
    const cpuBefore = cpuSnapshot({ web: web.pid, worker: worker.pid });
    const t0 = performance.now();
    const ids: string[] = [];
    for (const [i, sw] of sweep.sweeps.entries()) {
      const body = {
        name: `SSC peer ${i}`,
        base: { ...request, solar: { ...request.solar, capacity_mw_dc: sw.solar } },
        vary: sw.vary,
      };
      ids.push(await postSweep(base, body, `ssc-peer-${t0}-${i}`));
    }
    for (const id of ids) await waitFinished(base, id, 1_800_000);
    const hgMs = performance.now() - t0;
    // The service's CPU over the same window: web, worker and (when it is the bench's own) Postgres.
    const used = cpuSince(cpuBefore, cpuSnapshot({ web: web.pid, worker: worker.pid }));
    const withPostgres = Number.isFinite(used.postgres);
    const hgCpuMs = used.web + used.worker + (withPostgres ? used.postgres : 0);
    const measured = sample === sweep.variants.length ? '' : `, ${sample} run and extrapolated`;
    b.rows.push(
      ...peerRows(
        `SSC peer (c) ${count} variants (solar × turbines × export limit) as ${ids.length} sweeps, POST → finished, 1 worker`,
        `SSC ${build.describe}: ${count} full runs in one process${measured}`,
        { hg: hgMs, ssc: sscTotal },
        { hg: hgCpuMs, ssc: sscCpuTotal },
        PEER_TARGETS.sweep,
        's',
      ),
    );
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    b.notes.push(
      `SSC peer (c): ratio ${ratio(hgMs / sscTotal)} wall, ${ratio(hgCpuMs / sscCpuTotal)} CPU (target ≤ ${PEER_TARGETS.sweep}×, judged on CPU); Hourglass ${s(hgMs)} wall, ${s(hgCpuMs)} CPU: web ${s(used.web)}, worker ${s(used.worker)}, ${withPostgres ? `Postgres ${s(used.postgres)}` : 'Postgres not counted (DATABASE_URL: not the bench’s own)'}; SSC ${s(sscTotal)} wall, ${s(sscCpuTotal)} CPU`,
    );
    b.notes.push(await compareSweeps(base, ids, sscNpv));
  } finally {
    await worker.stop();
    await web.stop();
  }
}

/** (c)'s outputs: the sampled variants' equity NPV, SSC's against the sweeps' own results. */
async function compareSweeps(base: string, ids: string[], sscNpv: Map<number, number>): Promise<string> {
  const diffs: number[] = [];
  const rel: number[] = [];
  for (const [k, id] of ids.entries()) {
    const { json } = await getJson(`${base}/api/sweeps/${id}/results?sort=index`);
    const variants = (json as { variants: { index: number; kpis: { equity_npv: number } | null }[] }).variants;
    for (const v of variants) {
      const theirs = sscNpv.get(k * variants.length + v.index);
      if (theirs === undefined || !v.kpis) continue;
      diffs.push(Math.abs(v.kpis.equity_npv - theirs));
      rel.push(Math.abs(v.kpis.equity_npv - theirs) / Math.max(Math.abs(theirs), 1));
    }
  }
  const worst = Math.max(...diffs);
  const k$ = (v: number) => `${(v / 1e3).toFixed(1)} k$`;
  return `SSC peer (c): equity NPV of the ${diffs.length} variants SSC ran, against the sweeps': median difference ${k$(median(diffs))} (${(100 * median(rel)).toFixed(3)} %), largest ${k$(worst)}`;
}

/** Every peer figure; `driver` is started, `url` a database of its own for (c). */
export async function sscPeer(
  b: Bench,
  driver: SscDriver,
  build: SscBuild,
  url: string,
  sscVariants: number,
  step: (what: string) => void,
) {
  step('#30 (a) the hybrid: both engines, in turn');
  await single(b, driver, build, '(a) hybrid, 25 years', resolvedInputs(measuredRequest()));
  step('#30 (b) the same with the battery');
  const battery = resolvedInputs({ ...measuredRequest(), ...BATTERY });
  await single(b, driver, build, '(b) the same + 100 MW / 400 MWh battery', battery);
  // At flat prices and no limit neither battery has anything to do; behind a limit both store what
  // it would curtail and sell it later, which exercises the dispatch and the cells.
  const limited = resolvedInputs({ ...measuredRequest(), ...BATTERY, grid: { export_limit_mw: 60 } });
  await single(b, driver, build, '(b) with the battery behind a 60 MW export limit', limited);
  step('#30 (v8) the hybrid on PVWatts v8: default plant, bifacial, single-axis');
  for (const [label, solar] of V8_CASES) {
    const request = measuredRequest();
    const inputs = resolvedInputs({ ...request, solar: { ...request.solar, ...solar } });
    await single(b, driver, build, `(v8) hybrid, ${label}`, inputs);
  }
  step(`#30 (c) ${sscVariants} SSC runs of the sweep's variants, then the sweep through web + worker`);
  await parametric(b, driver, build, url, sscVariants);
}
