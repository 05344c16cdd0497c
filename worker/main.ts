// The worker process: claims calculation jobs (SKIP LOCKED, woken by NOTIFY), runs them, and
// stops cleanly on SIGTERM: no new claims, running calculations get the grace period.
import type { Job } from 'pg-boss';
import { loadConfig } from '../shared/config.ts';
import { createDb, createPool } from '../shared/db.ts';
import { createLogger } from '../shared/logger.ts';
import { CALCULATE_DEAD_QUEUE, CALCULATE_QUEUE, type CalculateJob, createBoss, ensureQueues } from '../shared/queue.ts';
import { calculateScenario, failExhausted } from './calculate.job.ts';
import { EnginePool } from './engine.pool.ts';

const config = loadConfig();
const logger = createLogger(config.logLevel, 'worker');
if (!config.databaseUrl) {
  logger.fatal('DATABASE_URL is not set (use `npm start` to run on an embedded Postgres)');
  process.exit(1);
}

const pool = createPool(config.databaseUrl, { max: config.workerConcurrency + 2, applicationName: 'hourglass-worker' });
const db = createDb(pool);
const boss = createBoss(config, config.databaseUrl, 'worker');
const engines = new EnginePool({ testDelayMs: config.engineTestDelayMs });
boss.on('error', (err) => logger.warn({ err: err.message }, 'pg-boss error'));
/** Handlers still running; pg-boss stops waiting for an aborted one, but it may still be handing its job back. */
const inflight = new Set<Promise<unknown>>();

try {
  await boss.start();
  await ensureQueues(boss);
  // One pg-boss worker per slot, so each handler can wake its own loop: after a job, pg-boss would
  // otherwise wait out the polling interval before claiming the next job of a backlog.
  for (let slot = 0; slot < config.workerConcurrency; slot++) {
    let workId = '';
    workId = await boss.work<CalculateJob>(
      CALCULATE_QUEUE,
      { batchSize: 1, pollingIntervalSeconds: 2, notifyPollingIntervalSeconds: 10 },
      async ([job]: Job<CalculateJob>[]) => {
        const run = calculateScenario({ db, engines, logger }, job);
        inflight.add(run);
        try {
          return await run;
        } finally {
          inflight.delete(run);
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
    async ([job]) => failExhausted(db, job, config.jobRetryLimit),
  );
  logger.info({ concurrency: config.workerConcurrency }, 'worker started');
} catch (err) {
  logger.fatal({ err }, 'could not start');
  process.exit(1);
}

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping: no new jobs; running calculations get the grace period');
  await boss.stop({ graceful: true, close: true, timeout: config.shutdownGraceSeconds * 1000 }).catch(() => {});
  // An aborted handler is still handing its scenario back: let it (briefly) before the pool closes.
  await Promise.race([Promise.allSettled(inflight), new Promise((r) => setTimeout(r, 5000).unref())]);
  await engines.close();
  await pool.end().catch(() => {});
  logger.info('stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
