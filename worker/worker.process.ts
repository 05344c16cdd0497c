// The worker process: claims calculation jobs (SKIP LOCKED, woken by NOTIFY), runs them, and
// stops cleanly on SIGTERM: no new claims, running calculations get the grace period.
// worker/main.ts runs it; a test or a bench that runs it gives its own engine (WorkerProcessOptions).

import { fromKysely, type Job, type JobResult, type PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { Config } from '../shared/config.ts';
import { type DbHandle, openDb } from '../shared/db.ts';
import type { JobOutcome } from '../shared/lifecycle.ts';
import { processBasics, startOrExit, stopOnSignals } from '../shared/process.common.ts';
import {
  CALCULATE_DEAD_QUEUE,
  CALCULATE_QUEUE,
  type CalculateJob,
  createBoss,
  ensureQueues,
  VARIANT_PRIORITY,
} from '../shared/queue.ts';
import { transaction } from '../shared/transaction.ts';
import { calculateScenario, failExhausted } from './calculate.job.ts';
import { EnginePool, type ThreadPriority } from './engine.pool.ts';
import { afterEvaluation } from './optimizations.step.ts';
import { ResourceStore } from './resources.store.ts';
import { startRetention } from './retention.ts';

export interface WorkerProcessOptions {
  /**
   * A module the engine threads calculate with instead of worker/engine/index.ts: it exports a
   * `calculate` of the same signature (EngineModule, worker/engine.thread.ts). Tests slow the engine
   * down with one (test/helpers/engine.slow.ts); a bench may replay recorded results with another.
   */
  engine?: URL;
}

/** What the process's parts share; `boss` is the started pg-boss (each start-up attempt makes a fresh one). */
interface WorkerProcess {
  config: Readonly<Config>;
  logger: Logger;
  db: DbHandle;
  engines: EnginePool;
  /** The library resources calculations reference, read once per process. */
  resources: ResourceStore;
  boss: PgBoss;
  /** Handlers still running; pg-boss stops waiting for an aborted one, but it may still be handing its job back. */
  inflight: Set<Promise<unknown>>;
  /** Stops the retention loop (RETENTION_DAYS), when it runs. */
  stopRetention?: () => Promise<void>;
}

export async function runWorkerProcess(options: WorkerProcessOptions = {}): Promise<void> {
  const basics = processBasics('worker');
  const { config, logger, databaseUrl } = basics;
  const db = openDb(databaseUrl, { max: config.workerConcurrency + 2, applicationName: 'hourglass-worker' });
  const engines = new EnginePool({
    size: config.workerConcurrency,
    cacheMb: config.engineCacheMb,
    engine: options.engine,
  });
  engines.prestart();
  const worker: WorkerProcess = {
    config,
    logger,
    db,
    engines,
    resources: new ResourceStore(db, config.resourceCacheMb * 2 ** 20),
    boss: undefined as unknown as PgBoss,
    inflight: new Set(),
  };

  // Started during an outage, or before the release phase migrated pg-boss: wait, do not exit.
  await startOrExit(basics, () => startQueue(worker, databaseUrl));
  if (config.retentionDays > 0) {
    worker.stopRetention = startRetention({
      db: worker.db,
      boss: worker.boss,
      logger,
      days: config.retentionDays,
      intervalMs: config.retentionIntervalSeconds * 1000,
    });
  }

  stopOnSignals((signal) => shutdown(worker, signal));
}

/**
 * Puts a claimed job that never started back in the queue: cancelled and resumed in one transaction,
 * fenced to this claim. Its next claim counts as a retry (pg-boss's retry count goes up by one).
 */
async function requeueUnstarted(worker: WorkerProcess, job: Job<CalculateJob>): Promise<void> {
  await transaction(worker.db, async (trx) => {
    const options = { db: fromKysely(trx) };
    await worker.boss.cancel(CALCULATE_QUEUE, { id: job.id, retryCount: job.retryCount }, options);
    await worker.boss.resume(CALCULATE_QUEUE, job.id, options);
  });
}

/**
 * One job's calculation, tracked until it has settled (for shutdown). When it finished the last
 * evaluation of an optimization's round, the search step runs before the job completes: a crash in
 * between redelivers the job, and the duplicate delivery runs the step again.
 */
async function track(worker: WorkerProcess, job: Job<CalculateJob>, loop: ThreadPriority): Promise<JobOutcome> {
  const { db, engines, resources, logger, config } = worker;
  const requeue = (unstarted: Job<CalculateJob>) => requeueUnstarted(worker, unstarted);
  const run = calculateScenario({ db, engines, resources, logger, requeueUnstarted: requeue }, job, loop).then(
    async (outcome) => {
      if (outcome.outcome !== 'given back') {
        await afterEvaluation({ db: db, boss: worker.boss, config }, job.data.scenario_id);
      }
      return outcome;
    },
  );
  worker.inflight.add(run);
  try {
    return await run;
  } finally {
    worker.inflight.delete(run);
  }
}

/** A failed job's output, as pg-boss stores a thrown error's. */
function errorOutput(err: unknown): { name: string; message: string; stack?: string } {
  return err instanceof Error
    ? { name: err.name, message: err.message, stack: err.stack }
    : { name: 'Error', message: String(err) };
}

/** Starts pg-boss, its queues and the job loops; a failure stops that pg-boss so the next attempt starts clean. */
async function startQueue(worker: WorkerProcess, databaseUrl: string): Promise<void> {
  const { config, logger, db } = worker;
  const boss = createBoss(config, databaseUrl, 'worker');
  worker.boss = boss;
  boss.on('error', (err) => logger.warn({ err: err.message }, 'pg-boss error'));
  try {
    await boss.start();
    await ensureQueues(boss);
    // One pg-boss worker per slot, so each handler can wake its own loop: after a job, pg-boss would
    // otherwise wait out the polling interval before claiming the next job of a backlog. The prefetch
    // slots' jobs wait (still queued) for an engine thread, so a thread goes from one calculation
    // straight to the next while the previous result is saved and its job completed.
    // Single scenarios (priority ≥ 0) and sweep variants (below) have loops of their own: a single is
    // claimed at once even while every variant loop holds a batch, and it takes the next free engine
    // thread ahead of the claimed variants (EnginePool.acquire). Variants are claimed in batches of
    // WORKER_VARIANT_BATCH (one fetch and one settling statement per batch) and each is settled on
    // its own (perJobResults): a variant that throws is retried alone. A variant's priority is its
    // round (shared/fair.share.ts), so a batch takes the workspaces' queued variants in turn.
    const slots = config.workerConcurrency + config.workerPrefetch;
    for (let slot = 0; slot < slots; slot++) {
      let workId = '';
      workId = await boss.work<CalculateJob>(
        CALCULATE_QUEUE,
        { batchSize: 1, minPriority: 0, pollingIntervalSeconds: 2, notifyPollingIntervalSeconds: 10 },
        async ([job]: Job<CalculateJob>[]) => {
          try {
            return await track(worker, job, 'single');
          } finally {
            boss.notifyWorker(workId);
          }
        },
      );
    }
    for (let slot = 0; slot < slots; slot++) {
      let workId = '';
      workId = await boss.work<CalculateJob>(
        CALCULATE_QUEUE,
        {
          batchSize: config.variantBatch,
          maxPriority: VARIANT_PRIORITY,
          perJobResults: true,
          pollingIntervalSeconds: 2,
          notifyPollingIntervalSeconds: 10,
        },
        async (jobs: Job<CalculateJob>[]) => {
          try {
            const settled = await Promise.allSettled(jobs.map((job) => track(worker, job, 'variant')));
            return settled.map(
              (r, i): JobResult =>
                r.status === 'fulfilled'
                  ? { id: jobs[i].id, status: 'completed', output: r.value }
                  : { id: jobs[i].id, status: 'failed', output: errorOutput(r.reason) },
            );
          } finally {
            boss.notifyWorker(workId);
          }
        },
      );
    }
    // Dead letters arrive without a NOTIFY, so the poll is what finds them: every 5 s, not pg-boss's
    // 30 s default for a queue that has NOTIFY on.
    await boss.work<CalculateJob>(
      CALCULATE_DEAD_QUEUE,
      { pollingIntervalSeconds: 5, notifyPollingIntervalSeconds: 5 },
      async ([job]) => {
        await failExhausted(db, job, config.jobRetryLimit);
        await afterEvaluation({ db: db, boss, config }, job.data.scenario_id);
      },
    );
    logger.info(
      { concurrency: config.workerConcurrency, prefetch: config.workerPrefetch, variantBatch: config.variantBatch },
      'worker started',
    );
  } catch (err) {
    await boss.stop({ graceful: false, close: true }).catch(() => {});
    throw err;
  }
}

/** Postgres closed the connection (shutting down, or a terminated backend). */
const connectionLost = (err: unknown) =>
  err instanceof Error &&
  (['57P01', '57P02', '57P03'].includes(String((err as { code?: unknown }).code)) ||
    /Connection terminated/.test(err.message));

async function shutdown(worker: WorkerProcess, signal: string): Promise<void> {
  const { config, logger, engines, boss, db } = worker;
  // pg-boss ends its LISTEN connection after removing that client's listeners; if Postgres stops at
  // the same moment (Ctrl-C under `npm start` signals both), the connection's FATAL arrives with no
  // listener and is thrown. While stopping, a lost connection is expected: note it and go on.
  process.on('uncaughtException', (err) => {
    if (connectionLost(err)) {
      logger.warn({ err: (err as Error).message }, 'a database connection closed while stopping');
      return;
    }
    logger.fatal({ err }, 'uncaught exception while stopping');
    process.exit(1);
  });
  logger.info({ signal }, 'stopping: no new jobs; running calculations get the grace period');
  // Jobs claimed but not started go back to the queue now, not after the running ones.
  engines.drain();
  await worker.stopRetention?.();
  await boss.stop({ graceful: true, close: true, timeout: config.shutdownGraceSeconds * 1000 }).catch(() => {});
  // An aborted handler is still handing its scenario back: let it (briefly) before the pool closes.
  await Promise.race([Promise.allSettled(worker.inflight), new Promise((r) => setTimeout(r, 5000).unref())]);
  await engines.close();
  await db.close().catch(() => {});
  logger.info('stopped');
  process.exit(0);
}
