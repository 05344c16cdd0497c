// RETENTION_DAYS: the worker deletes finished resources (single scenarios, sweeps, optimizations,
// with their variants, events, results and jobs) that finished more than that many days ago, a
// small batch at a time between pauses, so calculation never waits long on it. Every worker runs
// it; two that pick the same rows delete them once (the second finds nothing). Each run that
// removed anything is logged with what it removed.

import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { DbHandle } from '../shared/db.ts';
import { deleteExpired, type RetentionRun } from '../shared/deletion.repository.ts';

export interface RetentionOptions {
  db: DbHandle;
  boss: PgBoss;
  logger: Logger;
  days: number;
  /** The clock: tests give their own. */
  now?: () => Date;
  /** Pause between runs, and between the batches of one run. */
  intervalMs: number;
  pauseMs?: number;
  /** Single scenarios per batch (parents: one of each kind per batch). */
  batch?: number;
}

const DAY_MS = 86_400_000;

/** One run: batches until nothing older than the cutoff is left. Returns what it removed. */
export async function retentionRun(o: RetentionOptions, stopped: () => boolean = () => false): Promise<RetentionRun> {
  const now = o.now ?? (() => new Date());
  const before = new Date(now().getTime() - o.days * DAY_MS);
  const total: RetentionRun = { scenarios: 0, sweeps: 0, optimizations: 0 };
  const batch = o.batch ?? 200;
  while (!stopped()) {
    const run = await deleteExpired(o.db, o.boss, before, batch);
    total.scenarios += run.scenarios;
    total.sweeps += run.sweeps;
    total.optimizations += run.optimizations;
    if (run.scenarios < batch && run.sweeps === 0 && run.optimizations === 0) break;
    await new Promise((resolve) => setTimeout(resolve, o.pauseMs ?? 200));
  }
  return total;
}

/** Runs retention every intervalMs until stopped; a failed run (the database away) is logged and tried next time. */
export function startRetention(o: RetentionOptions): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = (async () => {
      try {
        const run = await retentionRun(o, () => stopped);
        if (run.scenarios + run.sweeps + run.optimizations > 0) {
          o.logger.info({ retention: run, days: o.days }, 'retention: deleted finished resources');
        }
      } catch (err) {
        o.logger.warn({ err }, 'retention: run failed; trying again next time');
      }
      if (!stopped) timer = setTimeout(tick, o.intervalMs);
    })();
  };
  timer = setTimeout(tick, Math.min(o.intervalMs, 5_000));
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  };
}
