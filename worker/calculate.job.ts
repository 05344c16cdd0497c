// One calculation: load → wait for an engine thread → running → engine (with throttled progress)
// → save result + succeeded. An engine error fails the scenario at once; anything else throws, and
// pg-boss retries. A job still waiting for a thread when the worker stops is given back unstarted.
import type pg from 'pg';
import type { Job } from 'pg-boss';
import type { Logger } from 'pino';
import type { Db } from '../shared/db.ts';
import type { CalculateJob } from '../shared/queue.ts';
import { saveResultSucceeded } from '../shared/results.repository.ts';
import {
  appendEventIf,
  appendEventIfAlone,
  appendProgress,
  appendRunning,
  findScenario,
} from '../shared/scenarios.repository.ts';
import type { ResolvedInputs } from '../shared/schemas/inputs.ts';
import { type EngineLease, type EngineOutcome, type EnginePool, WorkerStopping } from './engine.pool.ts';

export interface JobDeps {
  db: Db;
  /** The pool under `db`, for the named (prepared) running and progress statements. */
  pool: pg.Pool;
  engines: EnginePool;
  logger: Logger;
  /** Puts a claimed job back in the queue as if never claimed (same retry count). */
  requeueUnstarted: (job: Job<CalculateJob>) => Promise<void>;
}

/** At most 40 progress events per calculation (26 for a default scenario): every notifying commit takes a global lock. */
const PROGRESS_STEP = 0.025;

const STAGE_MESSAGES: Record<string, string> = {
  weather: 'Generating weather',
  generation: 'Calculating solar and wind generation',
  market: 'Calculating revenue',
  finance: 'Building the financial statements',
};

/**
 * `single`: the job came from the single scenarios' loop. It asks for an engine thread while its
 * scenario loads, so a variant this worker claimed earlier cannot take a thread freed meanwhile.
 */
export async function calculateScenario(deps: JobDeps, job: Job<CalculateJob>, single = false): Promise<string> {
  const { db, engines, logger } = deps;
  const t0 = performance.now();
  const id = job.data.scenario_id;
  const early = single ? engines.acquire(job.signal, true) : null;
  // Awaited below, or released unused; until then a refusal must not count as unhandled.
  early?.catch(() => {});
  const unused = () =>
    early?.then(
      (lease) => lease.release(),
      () => {},
    );
  const scenario = await findScenario(db, id).catch((err) => {
    unused();
    throw err;
  });
  // A duplicate delivery of a finished scenario changes nothing.
  if (!scenario || ['succeeded', 'failed', 'cancelled'].includes(scenario.status)) {
    unused();
    return scenario ? scenario.status : 'missing';
  }

  // The scenario stays queued until a thread is free: a claimed job that only waits is not running.
  // A single scenario goes ahead of the variants this worker has claimed (in batches).
  const variant = scenario.sweep_id !== null || scenario.optimization_id !== null; // a sweep's or an optimization's
  let lease: EngineLease;
  try {
    lease = await (early ?? engines.acquire(job.signal, !variant));
  } catch (err) {
    if (!(err instanceof WorkerStopping)) throw err;
    await deps.requeueUnstarted(job);
    logger.info({ scenario: id }, 'given back unstarted: the worker is stopping');
    return 'given back';
  }
  const tThread = performance.now();

  const attempt = Math.max(scenario.attempt, job.retryCount) + 1;
  // The engine starts while `running` commits (a few ms of the thread's time per job); every later
  // write of this attempt (progress, the result) is chained after that commit and fails with it.
  let tRunning = 0;
  let current = true;
  const running = writeRunning(deps, id, scenario, attempt).then((written) => {
    tRunning = performance.now();
    current = written;
  });
  // Progress writes go out in order, one short transaction each, while the engine thread computes.
  let reported = 0;
  let writes: Promise<unknown> = running;
  writes.catch(() => {});
  // A sweep's variants report no progress of their own: their sweep's stream follows them by their
  // `variant` events, and ~26 notifying commits a variant would slow a whole sweep's drain.
  const onProgress = (stage: string, fraction: number) => {
    if (variant || (fraction < 1 && fraction - reported < PROGRESS_STEP)) return;
    reported = fraction;
    const progress = Math.min(1, Math.max(0, fraction));
    // Only while this attempt is the scenario's current one: a worker that froze and lost its job
    // to a retry must not write into the new attempt's progress (or after its end).
    writes = writes.then(() =>
      appendProgress(deps.pool, id, attempt, { progress, stage, message: STAGE_MESSAGES[stage] ?? stage }),
    );
    // Awaited after the engine; until then a failed write must not count as an unhandled rejection.
    writes.catch(() => {});
  };

  let outcome: EngineOutcome;
  try {
    outcome = await lease.run(id, scenario.inputs as ResolvedInputs, onProgress, job.signal, scenario.keep_hourly);
  } catch (err) {
    // pg-boss aborts a job it has failed (shutdown past the grace period, expiry): hand it back
    // visibly, so the scenario never says `running` while no worker runs it.
    if (job.signal?.aborted) await markQueuedForRetry(db, id, attempt).catch(() => {});
    throw err;
  }
  const tEngine = performance.now();
  await writes;
  const tWrites = performance.now();
  // Finished meanwhile: the progress writes were refused too (they need this attempt running).
  if (!current) {
    logger.info({ scenario: id, attempt }, 'the scenario finished while this job waited: nothing written');
    return 'finished meanwhile';
  }

  if (!outcome.ok) {
    await failScenario(db, id, { code: outcome.code, message: outcome.message });
    logger.info({ scenario: id, code: outcome.code }, 'calculation failed: %s', outcome.message);
    return 'failed';
  }

  const { summary, ...stored } = outcome.result;
  const seq = await saveResultSucceeded(db, { scenario_id: id, ...stored }, outcome.totals, {
    summary,
    statements_url: `/api/scenarios/${id}/statements`,
  });
  const saved = seq !== null;
  const ms = (a: number, b: number) => Math.round((b - a) * 10) / 10;
  logger.info(
    {
      scenario: id,
      attempt,
      duplicate: !saved,
      // Where one job's time goes, for profiling the queue's overhead against the engine's.
      ms: {
        // Of which waiting for a free engine thread (a job claimed while another calculates).
        waitThread: ms(t0, tThread),
        start: ms(t0, tRunning),
        engine: ms(0, outcome.engineMs),
        // Writing the result after the engine's last year: most of it is done while the engine runs.
        serialize: ms(0, outcome.serializeMs),
        thread: ms(tThread, tEngine),
        progressWait: ms(tEngine, tWrites),
        save: ms(tWrites, performance.now()),
        total: ms(t0, performance.now()),
      },
    },
    'calculated',
  );
  return 'succeeded';
}

/**
 * The `running` event (after a `queued {retry}` one when this is a retry the previous attempt did
 * not hand back), only while the scenario is unfinished: a job that waited for a thread may find
 * it finished meanwhile by a stale attempt. False, and nothing written, in that case. The common
 * case (no retry event to write first) is one prepared statement.
 */
async function writeRunning(
  deps: JobDeps,
  id: string,
  scenario: { attempt: number; status: string },
  attempt: number,
): Promise<boolean> {
  const unfinished = { status: ['queued', 'running'] } as const;
  // A calculation handed back on shutdown already wrote its queued event.
  if (!(scenario.attempt > 0 && scenario.status !== 'queued')) {
    return (await appendRunning(deps.pool, id, attempt)) !== null;
  }
  return deps.db.transaction().execute(async (trx) => {
    const seq = await appendEventIf(trx, id, 'queued', { attempt, reason: 'retry' }, { status: 'queued' }, unfinished);
    if (seq === null) return false;
    const running = await appendEventIf(
      trx,
      id,
      'running',
      { attempt },
      { status: 'running', attempt, started_at: new Date(), progress: 0, stage: 'starting' },
      unfinished,
    );
    return running !== null;
  });
}

/** The job went back to the queue: the scenario is queued for the next attempt, if it is still ours. */
async function markQueuedForRetry(db: Db, id: string, attempt: number): Promise<void> {
  await appendEventIfAlone(
    db,
    id,
    'queued',
    { attempt: attempt + 1, reason: 'retry' },
    { status: 'queued', stage: null, progress: 0 },
    { status: ['running'], attempt },
  );
}

/** pg-boss moved the job here after its last retry failed: the scenario fails, with the reason. */
export async function failExhausted(db: Db, job: Job<CalculateJob>, retryLimit: number): Promise<void> {
  const id = job.data.scenario_id;
  const scenario = await findScenario(db, id);
  if (!scenario || !['queued', 'running'].includes(scenario.status)) return;
  const error = {
    code: 'retries_exhausted',
    message: `the calculation did not finish after ${retryLimit + 1} attempts (worker crash or timeout)`,
  };
  await failScenario(db, id, error);
}

/**
 * Fails the scenario only while it is unfinished, as the succeeded save does: a stale attempt (or
 * a dead letter that arrives late) never writes `failed` after `succeeded` or a second `failed`.
 */
async function failScenario(db: Db, id: string, error: { code: string; message: string }): Promise<void> {
  await appendEventIfAlone(
    db,
    id,
    'failed',
    { error },
    { status: 'failed', error, finished_at: new Date(), stage: 'failed' },
    { status: ['queued', 'running'] },
  );
}
