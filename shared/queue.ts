// The calculation queue: its name, its options and the pg-boss instance each process needs.
import { PgBoss, type SendOptions } from 'pg-boss';
import type { Config } from './config.ts';

export const CALCULATE_QUEUE = 'calculate';
/** pg-boss copies a job here when its last retry fails, so the worker can mark the scenario failed. */
export const CALCULATE_DEAD_QUEUE = 'calculate-dead';

/**
 * A sweep's variants wait behind single scenarios (priority 0): pg-boss fetches by priority, then
 * age, and the worker claims singles and variants in loops of their own (variants in batches).
 * Each variant's priority is its round (shared/fair.share.ts): −1 or below.
 */
export const VARIANT_PRIORITY = -1;

export interface CalculateJob {
  scenario_id: string;
}

type Role = 'web' | 'worker' | 'migrate';

export function createBoss(config: Readonly<Config>, connectionString: string, role: Role): PgBoss {
  const boss = new PgBoss({
    connectionString,
    application_name: `hourglass-${role}-boss`,
    // One size for every role: the web's creates, sweeps and cancels run pg-boss's SQL on our own pools.
    max: 4,
    // Only the worker may take lost jobs back (supervise) and listen for new ones.
    supervise: role === 'worker',
    superviseIntervalSeconds: config.superviseIntervalSeconds,
    monitorIntervalSeconds: Math.max(config.superviseIntervalSeconds, 10),
    schedule: false,
    migrate: role !== 'web',
    useListenNotify: role === 'worker',
    connectionTimeoutMillis: 3000,
  });
  // pg-boss reports connection trouble here; without a listener EventEmitter would throw.
  boss.on('error', () => {});
  return boss;
}

export async function ensureQueues(boss: PgBoss): Promise<void> {
  await boss.createQueue(CALCULATE_DEAD_QUEUE, { notify: true });
  await boss.createQueue(CALCULATE_QUEUE, { notify: true, deadLetter: CALCULATE_DEAD_QUEUE });
}

/** Retry, heartbeat and expiry travel with each job, so a deployment's config applies without a queue migration. */
export function calculateJobOptions(config: Readonly<Config>, scenarioId: string): SendOptions {
  return {
    id: scenarioId,
    retryLimit: config.jobRetryLimit,
    retryDelay: 1,
    heartbeatSeconds: config.jobHeartbeatSeconds,
    expireInSeconds: config.jobExpireSeconds,
  };
}
