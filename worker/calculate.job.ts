// One calculation: load → running → engine (with throttled progress) → save result + succeeded.
// An engine error fails the scenario at once; anything else throws, and pg-boss retries.
import { sql } from 'kysely';
import type { Job } from 'pg-boss';
import type { Logger } from 'pino';
import type { Db } from '../shared/db.ts';
import type { CalculateJob } from '../shared/queue.ts';
import { insertResult } from '../shared/results.repository.ts';
import { appendEvent, findScenario } from '../shared/scenarios.repository.ts';
import type { ResolvedInputs } from '../shared/schemas/inputs.ts';
import type { EnginePool } from './engine.pool.ts';

export interface JobDeps {
  db: Db;
  engines: EnginePool;
  logger: Logger;
}

/** About 40 progress events per calculation: every notifying commit takes a global lock. */
const PROGRESS_STEP = 0.025;

const STAGE_MESSAGES: Record<string, string> = {
  weather: 'Generating weather',
  generation: 'Calculating solar and wind generation',
  market: 'Calculating revenue',
  finance: 'Building the financial statements',
};

export async function calculateScenario(deps: JobDeps, job: Job<CalculateJob>): Promise<string> {
  const { db, engines, logger } = deps;
  const id = job.data.scenario_id;
  const scenario = await findScenario(db, id);
  if (!scenario) return 'missing';
  // A duplicate delivery of a finished scenario changes nothing.
  if (scenario.status === 'succeeded' || scenario.status === 'failed') return scenario.status;

  const attempt = Math.max(scenario.attempt, job.retryCount) + 1;
  await db.transaction().execute(async (trx) => {
    if (scenario.attempt > 0) {
      await appendEvent(trx, id, 'queued', { attempt, reason: 'retry' }, { status: 'queued' });
    }
    await appendEvent(
      trx,
      id,
      'running',
      { attempt },
      { status: 'running', attempt, started_at: new Date(), progress: 0, stage: 'starting' },
    );
  });

  // Progress writes go out in order, one short transaction each, while the engine thread computes.
  let reported = 0;
  let writes: Promise<unknown> = Promise.resolve();
  const onProgress = (stage: string, fraction: number) => {
    if (fraction < 1 && fraction - reported < PROGRESS_STEP) return;
    reported = fraction;
    const progress = Math.min(1, Math.max(0, fraction));
    writes = writes.then(() =>
      db.transaction().execute(async (trx) => {
        // Progress is replaceable; skipping the fsync keeps ~40 commits off the critical path.
        await sql`SET LOCAL synchronous_commit = off`.execute(trx);
        await appendEvent(
          trx,
          id,
          'progress',
          { progress, stage, message: STAGE_MESSAGES[stage] ?? stage },
          { progress, stage },
        );
      }),
    );
  };

  const outcome = await engines.run(id, scenario.inputs as ResolvedInputs, onProgress, job.signal);
  await writes;

  if (!outcome.ok) {
    await failScenario(db, id, { code: outcome.code, message: outcome.message });
    logger.info({ scenario: id, code: outcome.code }, 'calculation failed: %s', outcome.message);
    return 'failed';
  }

  const { summary, ...stored } = outcome.result;
  const saved = await db.transaction().execute(async (trx) => {
    const inserted = await insertResult(trx, { scenario_id: id, ...stored });
    if (!inserted) return false;
    await appendEvent(
      trx,
      id,
      'succeeded',
      { summary, statements_url: `/api/scenarios/${id}/statements` },
      { status: 'succeeded', progress: 1, stage: 'done', summary, finished_at: new Date() },
    );
    return true;
  });
  logger.info({ scenario: id, attempt, engineMs: Math.round(outcome.engineMs), duplicate: !saved }, 'calculated');
  return 'succeeded';
}

/** pg-boss moved the job here after its last retry failed: the scenario fails, with the reason. */
export async function failExhausted(db: Db, job: Job<CalculateJob>, retryLimit: number): Promise<void> {
  const id = job.data.scenario_id;
  const scenario = await findScenario(db, id);
  if (!scenario || scenario.status === 'succeeded' || scenario.status === 'failed') return;
  const error = {
    code: 'retries_exhausted',
    message: `the calculation did not finish after ${retryLimit + 1} attempts (worker crash or timeout)`,
  };
  await failScenario(db, id, error);
}

async function failScenario(db: Db, id: string, error: { code: string; message: string }): Promise<void> {
  await db
    .transaction()
    .execute((trx) =>
      appendEvent(trx, id, 'failed', { error }, { status: 'failed', error, finished_at: new Date(), stage: 'failed' }),
    );
}
