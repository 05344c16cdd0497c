// One calculation: load → wait for an engine thread → running → engine (with throttled progress)
// → save result + succeeded. An engine error fails the scenario at once; anything else throws, and
// pg-boss retries. A job still waiting for a thread when the worker stops is given back unstarted.
import type { Job } from 'pg-boss';
import type { Logger } from 'pino';
import type { Db, DbHandle, ScenarioRow } from '../shared/db.ts';
import { type EngineStage, isTerminal, type JobOutcome } from '../shared/lifecycle.ts';
import type { CalculateJob } from '../shared/queue.ts';
import { findScenarioById } from '../shared/scenarios.repository.ts';
import type { StoredInputs } from '../shared/schemas/inputs.ts';
import {
  type EngineLease,
  type EngineOutcome,
  type EnginePool,
  releaseResult,
  type ThreadPriority,
  WorkerStopping,
} from './engine.pool.ts';
import type { ResourceStore, SharedResources } from './resources.store.ts';
import {
  appendFailed,
  appendProgress,
  appendQueuedForRetry,
  appendRetryRunning,
  appendRunning,
  saveResultSucceeded,
} from './scenarios.repository.ts';

interface JobDeps {
  db: DbHandle;
  engines: EnginePool;
  logger: Logger;
  /** The library files and series the scenarios reference, read once per process. */
  resources: ResourceStore;
  /** Puts a claimed job back in the queue as if never claimed (same retry count). */
  requeueUnstarted: (job: Job<CalculateJob>) => Promise<void>;
}

/** At most 40 progress events per calculation (26 for a default scenario): every notifying commit takes a global lock. */
const PROGRESS_STEP = 0.025;

const STAGE_MESSAGES: Record<EngineStage, string> = {
  weather: 'Generating weather',
  generation: 'Calculating solar and wind generation',
  market: 'Calculating revenue',
  finance: 'Building the financial statements',
};

/** When each step of one job ended (performance.now()), for the log line of a saved result. */
interface Timings {
  start: number;
  thread: number;
  running: number;
}

/**
 * `loop`: which of the worker's loops claimed the job. A single scenario asks for an engine thread
 * while its scenario loads, so a variant this worker claimed earlier cannot take a thread freed
 * meanwhile; and it goes ahead of the variants waiting for one.
 */
export async function calculateScenario(
  deps: JobDeps,
  job: Job<CalculateJob>,
  loop: ThreadPriority,
): Promise<JobOutcome> {
  const start = performance.now();
  const id = job.data.scenario_id;
  const early = loop === 'single' ? deps.engines.acquire(job.signal, 'single') : null;
  // Awaited below, or released unused; until then a refusal must not count as unhandled.
  early?.catch(() => {});
  const unused = () =>
    early?.then(
      (lease) => lease.release(),
      () => {},
    );
  const scenario = await findScenarioById(deps.db, id).catch((err) => {
    unused();
    throw err;
  });
  // A duplicate delivery of a finished scenario changes nothing.
  if (!scenario || isTerminal(scenario.status)) {
    unused();
    return { outcome: 'skipped', status: scenario && isTerminal(scenario.status) ? scenario.status : 'missing' };
  }
  // What its library references hold: read while the scenario still waits for a thread.
  let resources: SharedResources;
  try {
    resources = await deps.resources.forInputs(scenario.inputs as StoredInputs);
  } catch (err) {
    unused();
    throw err;
  }
  // The scenario stays queued until a thread is free: a claimed job that only waits is not running.
  let lease: EngineLease;
  try {
    lease = await (early ?? deps.engines.acquire(job.signal, isVariant(scenario) ? 'variant' : 'single'));
  } catch (err) {
    if (!(err instanceof WorkerStopping)) throw err;
    await deps.requeueUnstarted(job);
    deps.logger.info({ scenario: id }, 'given back unstarted: the worker is stopping');
    return { outcome: 'given back' };
  }
  return runAttempt(deps, job, scenario, lease, resources, { start, thread: performance.now(), running: 0 });
}

/** A sweep's variant or an optimization's evaluation: claimed in batches behind single scenarios, no progress of its own. */
const isVariant = (s: ScenarioRow) => s.sweep_id !== null || s.optimization_id !== null;

/** One attempt on its engine thread: `running`, the engine with its progress, then the result or the failure. */
async function runAttempt(
  deps: JobDeps,
  job: Job<CalculateJob>,
  scenario: ScenarioRow,
  lease: EngineLease,
  resources: SharedResources,
  times: Timings,
): Promise<JobOutcome> {
  const id = scenario.id;
  const attempt = Math.max(scenario.attempt, job.retryCount) + 1;
  // The engine starts while `running` commits (a few ms of the thread's time per job); every later
  // write of this attempt (progress, the result) is chained after that commit and fails with it.
  const writes = new AttemptWrites(deps, id, attempt);
  const current = writes.after(async () => {
    const written = await writeRunning(deps, scenario, attempt);
    times.running = performance.now();
    return written;
  });
  let outcome: EngineOutcome;
  try {
    outcome = await lease.run(id, scenario.inputs as StoredInputs, {
      resources,
      // A variant reports no progress of its own (see AttemptWrites).
      onProgress: isVariant(scenario) ? undefined : (stage, fraction) => writes.report(stage, fraction),
      signal: job.signal,
      keepHourly: scenario.keep_hourly,
    });
  } catch (err) {
    // pg-boss aborts a job it has failed (shutdown past the grace period, expiry): hand it back
    // visibly, so the scenario never says `running` while no worker runs it.
    if (job.signal?.aborted) await appendQueuedForRetry(deps.db, id, attempt).catch(() => {});
    throw err;
  }
  const engineDone = performance.now();
  await writes.settled();
  // Finished meanwhile: the progress writes were refused too (they need this attempt running).
  if (!(await current)) {
    deps.logger.info({ scenario: id, attempt }, 'the scenario finished while this job waited: nothing written');
    return { outcome: 'finished meanwhile' };
  }
  if (!outcome.ok) {
    await appendFailed(deps.db, id, { code: outcome.code, message: outcome.message });
    deps.logger.info({ scenario: id, code: outcome.code }, 'calculation failed: %s', outcome.message);
    return { outcome: 'failed', code: outcome.code };
  }
  return saveSucceeded(deps, id, attempt, outcome, { ...times, engineDone, writesDone: performance.now() });
}

/**
 * The attempt's writes, in order, one short transaction each, while the engine thread computes:
 * first `running`, then throttled progress. A sweep's variants and an optimization's evaluations
 * are given no progress to report (runAttempt passes no `onProgress`): their parent's stream
 * follows them by its own events, and ~26 notifying commits a variant would slow a whole drain.
 */
class AttemptWrites {
  #chain: Promise<unknown> = Promise.resolve();
  #reported = 0;
  readonly #deps: JobDeps;
  readonly #id: string;
  readonly #attempt: number;

  constructor(deps: JobDeps, id: string, attempt: number) {
    this.#deps = deps;
    this.#id = id;
    this.#attempt = attempt;
  }

  /** Chains a write; its result, which fails (and fails every later write) if it fails. */
  after<T>(write: () => Promise<T>): Promise<T> {
    const next = this.#chain.then(write);
    this.#chain = next;
    // Awaited after the engine; until then a failed write must not count as an unhandled rejection.
    next.catch(() => {});
    return next;
  }

  report(stage: string, fraction: number): void {
    if (fraction < 1 && fraction - this.#reported < PROGRESS_STEP) return;
    this.#reported = fraction;
    const progress = Math.min(1, Math.max(0, fraction));
    const message = STAGE_MESSAGES[stage as EngineStage] ?? stage;
    // Only while this attempt is the scenario's current one: a worker that froze and lost its job
    // to a retry must not write into the new attempt's progress (or after its end).
    this.after(() => appendProgress(this.#deps.db, this.#id, this.#attempt, { progress, stage, message }));
  }

  /** Every write so far has committed; throws the first that failed. */
  async settled(): Promise<void> {
    await this.#chain;
  }
}

/** Saves the result and `succeeded`, and logs where the job's time went. */
async function saveSucceeded(
  deps: JobDeps,
  id: string,
  attempt: number,
  outcome: Extract<EngineOutcome, { ok: true }>,
  times: Timings & { engineDone: number; writesDone: number },
): Promise<JobOutcome> {
  const { kpis, ...stored } = outcome.result;
  const seq = await saveResultSucceeded(deps.db, { scenario_id: id, ...stored }, outcome.totals, {
    kpis,
    statements_url: `/api/scenarios/${id}/statements`,
  }).finally(() => releaseResult(outcome.result));
  const saved = seq !== null;
  const ms = (a: number, b: number) => Math.round((b - a) * 10) / 10;
  const now = performance.now();
  deps.logger.info(
    {
      scenario: id,
      attempt,
      duplicate: !saved,
      // Where one job's time goes, for profiling the queue's overhead against the engine's.
      ms: {
        // Of which waiting for a free engine thread (a job claimed while another calculates).
        waitThread: ms(times.start, times.thread),
        start: ms(times.start, times.running),
        engine: ms(0, outcome.engineMs),
        // Writing the result after the engine's last year: most of it is done while the engine runs.
        serialize: ms(0, outcome.serializeMs),
        thread: ms(times.thread, times.engineDone),
        progressWait: ms(times.engineDone, times.writesDone),
        save: ms(times.writesDone, now),
        total: ms(times.start, now),
      },
    },
    'calculated',
  );
  return { outcome: 'succeeded', saved };
}

/**
 * The `running` event (after a `queued {retry}` one when this is a retry the previous attempt did
 * not hand back), only while the scenario is unfinished: a job that waited for a thread may find
 * it finished meanwhile by a stale attempt. False, and nothing written, in that case. The common
 * case (no retry event to write first) is one prepared statement.
 */
async function writeRunning(deps: JobDeps, scenario: ScenarioRow, attempt: number): Promise<boolean> {
  // A calculation handed back on shutdown already wrote its queued event.
  if (!(scenario.attempt > 0 && scenario.status !== 'queued')) {
    return (await appendRunning(deps.db, scenario.id, attempt)) !== null;
  }
  return appendRetryRunning(deps.db, scenario.id, attempt);
}

/** pg-boss moved the job here after its last retry failed: the scenario fails, with the reason. */
export async function failExhausted(db: Db, job: Job<CalculateJob>, retryLimit: number): Promise<void> {
  const id = job.data.scenario_id;
  const scenario = await findScenarioById(db, id);
  if (!scenario || isTerminal(scenario.status)) return;
  const error = {
    code: 'retries_exhausted',
    message: `the calculation did not finish after ${retryLimit + 1} attempts (worker crash or timeout)`,
  };
  await appendFailed(db, id, error);
}
