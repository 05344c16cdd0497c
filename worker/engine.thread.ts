// Runs one calculation at a time off the worker's main thread, so the main thread keeps writing
// progress, sending heartbeats and answering pg-boss while the engine computes. Each finished year
// goes to this thread's result thread, which writes and compresses it meanwhile and sends the
// result to the main thread itself: this thread is free for the next calculation at once.
import { type MessagePort, parentPort, type ResourceLimits, workerData } from 'node:worker_threads';
import { Value } from '@sinclair/typebox/value';
import { HOURS_PER_YEAR, YEARS } from '../shared/calendar.ts';
import { resolveInputs } from '../shared/inputs.resolve.ts';
import { inlineOnly, withContents } from '../shared/resources.refs.ts';
import { type ResolvedInputs, ScenarioInputs, type StoredInputs } from '../shared/schemas/inputs.ts';
import {
  CalculationInputError,
  calculate,
  type HourlyBuffers,
  loadReserveSolver,
  PlantMemo,
  profileKeys,
} from './engine/index.ts';
import { LruProfileCache } from './profile.cache.ts';
import type { SharedResources } from './resources.store.ts';
import { DecodedResources } from './resources.thread.ts';
import { ResultClient, withoutHourly } from './result/index.ts';

/** 25-year sums of the annual energy (a sweep's results table shows them). */
export interface EnergyTotals {
  solar_mwh: number;
  wind_mwh: number;
  curtailed_mwh: number;
}

export interface ThreadData {
  /** The URL of a module to calculate with instead of worker/engine/index.ts (a test's or a bench's; EngineModule). */
  engine?: string;
  /** This thread's share of ENGINE_CACHE_MB, in bytes (0: no profile cache). */
  cacheBytes: number;
  /** Where the result thread sends each finished result (ResultReply). */
  results: MessagePort;
  /** The result thread's V8 heap limits. */
  resultHeap: ResourceLimits;
}
/** seq numbers this thread's calculations; the result on the results port carries it back. */
/** keepHourly false: the hourly arrays are neither written nor stored (a sweep's variant, by default). */
/** `inputs` as stored, library references and all; `resources`: what they reference. */
export type ThreadRequest = {
  seq: number;
  scenarioId: string;
  inputs: StoredInputs;
  keepHourly: boolean;
  resources: SharedResources;
};
/**
 * What the thread calculates with: worker/engine/index.ts, or a module with the same `calculate`
 * that a test or a bench gives the worker (WorkerProcessOptions.engine). It throws
 * CalculationInputError for inputs it refuses, and reports progress and years as the engine does.
 */
export type EngineModule = { calculate: typeof calculate };
export type ThreadMessage =
  | { type: 'progress'; stage: string; fraction: number }
  | { type: 'computed'; engineMs: number; totals: EnergyTotals }
  | { type: 'engine_error'; code: string; message: string }
  | { type: 'crash'; message: string };

/** The bytes of decoded library files and series a thread keeps (their parses: as many again). */
const DECODED_LIMIT_BYTES = 16 * 2 ** 20;

const port = parentPort;
if (!port) throw new Error('engine.thread.ts must run as a worker thread');
const reply: NonNullable<typeof parentPort> = port;

const { engine: engineUrl, cacheBytes, results: resultPort, resultHeap } = workerData as ThreadData;
const profiles = cacheBytes > 0 ? new LruProfileCache(cacheBytes) : undefined;
const engine: EngineModule = engineUrl ? await import(engineUrl) : { calculate };

// A fresh thread runs its first calculation several times slower while V8 compiles the engine;
// one throwaway default scenario at start-up keeps that off the first user's scenario. It runs the
// engine itself, not a stand-in (which wraps or replaces it: no delay, no replay here).
const warmId = '00000000-0000-7000-8000-000000000000';
const warm = inlineOnly(
  resolveInputs(
    Value.Default(ScenarioInputs, { name: 'warm-up', site: { latitude: 35.2, longitude: -101.8 } }) as ScenarioInputs,
    { scenarioId: warmId, now: new Date(0) },
  ),
);
/** Library resources decoded in this thread (their files parsed once: worker/engine/weather/weather.load.ts). */
const decoded = new DecodedResources(DECODED_LIMIT_BYTES);
for (let i = 0; i < 2; i++) calculate(warm, { onYear: (_, series) => Object.values(series).map((a) => a?.slice()) });
const results = new ResultClient(resultPort, resultHeap);
// The engine writes every calculation's hourly results into these two arrays: this thread keeps
// none of them (the result thread gets copies of each year), and 3.5 MB of fresh arrays per
// calculation piled up as garbage between scavenges when variants reused cached profiles (a
// 1,000-variant reuse sweep: the engine pool alone peaked at 424 MB, with these 353 MB; bench/worker.memory.bench.ts --reuse).
// A battery's four series join them at its first calculation (HourlyBuffers.storage: its charge,
// discharge and SOC are views of the battery kernel's memory, where a market strategy commits its
// days, storage.ts `keptRunSeries`; its grid series an array of its own), and a load's six and its
// excess prices at its first (HourlyBuffers.load): 12.25 MB more, kept.
const hourly: HourlyBuffers = {
  solar: new Float64Array(YEARS * HOURS_PER_YEAR),
  wind: new Float64Array(YEARS * HOURS_PER_YEAR),
};
// The plant's hours before the battery, kept from the last calculation that had one: a sweep's
// variants that differ only in the battery compute them once (docs/sweeps.md). With profiles only:
// a hit needs the cache's profile objects.
const plantMemo = profiles ? new PlantMemo() : undefined;

// One request at a time, in order: a request with ancillary products first loads HiGHS (once), and
// a request that arrives meanwhile waits its turn.
let turn: Promise<void> = Promise.resolve();
port.on('message', (req: ThreadRequest) => {
  turn = turn
    .then(() => (req.inputs.market.ancillary?.length ? loadReserveSolver() : undefined))
    .then(
      () => handle(req),
      (err: unknown) =>
        port.postMessage({ type: 'crash', message: `loading HiGHS: ${String(err)}` } satisfies ThreadMessage),
    );
});

function handle(req: ThreadRequest): void {
  try {
    results.begin();
    const t0 = performance.now();
    const referenced = Object.keys(req.resources).length > 0;
    const inputs: ResolvedInputs = referenced
      ? withContents(req.inputs, (id) => decoded.content(id, req.resources[id]))
      : (req.inputs as ResolvedInputs);
    const result = engine.calculate(inputs, {
      onProgress: (stage, fraction) => reply.postMessage({ type: 'progress', stage, fraction }),
      onYear: req.keepHourly ? (_, series) => results.year(series) : undefined,
      cache: profiles,
      // Keys of the stored inputs: a library file is named there by its id, not its megabytes of text.
      profileKeys: referenced && profiles ? profileKeys(req.inputs as ResolvedInputs) : undefined,
      hourly,
      plantMemo,
    });
    const engineMs = performance.now() - t0;
    const statements = withoutHourly(result);
    results.finish(req.seq, req.scenarioId, statements, req.keepHourly);
    const totals: EnergyTotals = { solar_mwh: 0, wind_mwh: 0, curtailed_mwh: 0 };
    for (const y of statements.annual) {
      totals.solar_mwh += y.solar_mwh;
      totals.wind_mwh += y.wind_mwh;
      totals.curtailed_mwh += y.curtailed_mwh;
    }
    reply.postMessage({ type: 'computed', engineMs, totals } satisfies ThreadMessage);
  } catch (err) {
    const msg: ThreadMessage =
      err instanceof CalculationInputError
        ? { type: 'engine_error', code: err.code, message: err.message }
        : { type: 'crash', message: err instanceof Error ? err.message : String(err) };
    reply.postMessage(msg);
  } finally {
    profiles?.releaseDropped();
  }
}
