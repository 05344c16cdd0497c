// What the fault tests assert about the database once the dust settles: every scenario is
// finished, has exactly one result (or none when failed), and an event log without gaps, with
// exactly one terminal event, last. Plus small pollers that wait on rows, never on time.
import type pg from 'pg';
import type { Test } from 'tap';
import { type ScenarioStatus, TERMINAL_STATUSES, UNFINISHED_STATUSES } from '../../shared/lifecycle.ts';
import { type Proc, slowEngine } from './processes.ts';
import type { Stack } from './stack.ts';
import { waitUntil } from './wait.ts';

export type Status = ScenarioStatus;

export interface ScenarioAudit {
  id: string;
  status: Status;
  attempt: number;
  last_seq: number;
  events: number;
  min_seq: number | null;
  max_seq: number | null;
  terminals: number;
  terminal_seq: number | null;
  results: number;
  job_state: string | null;
  has_summary: boolean;
}

/** One row per scenario (all of them, or those in `ids`), with what its events, result and job say. */
export async function auditScenarios(pool: pg.Pool, ids?: readonly string[]): Promise<ScenarioAudit[]> {
  const { rows } = await pool.query<ScenarioAudit>(
    `WITH ev AS (
       SELECT scenario_id, count(*)::int AS events, min(seq) AS min_seq, max(seq) AS max_seq,
              count(*) FILTER (WHERE name = ANY($2::text[]))::int AS terminals,
              max(seq) FILTER (WHERE name = ANY($2::text[])) AS terminal_seq
       FROM scenario_events GROUP BY scenario_id
     ), res AS (
       SELECT scenario_id, count(*)::int AS results FROM scenario_results GROUP BY scenario_id
     )
     SELECT s.id, s.status, s.attempt, s.last_seq, coalesce(ev.events, 0) AS events, ev.min_seq, ev.max_seq,
            coalesce(ev.terminals, 0) AS terminals, ev.terminal_seq, coalesce(res.results, 0) AS results,
            j.state AS job_state, s.summary IS NOT NULL AS has_summary
     FROM scenarios s
     LEFT JOIN ev ON ev.scenario_id = s.id
     LEFT JOIN res ON res.scenario_id = s.id
     LEFT JOIN pgboss.job j ON j.id = s.id AND j.name = 'calculate'
     WHERE $1::uuid[] IS NULL OR s.id = ANY($1::uuid[])
     ORDER BY s.id`,
    [ids ? [...ids] : null, TERMINAL_STATUSES],
  );
  return rows;
}

/** Everything wrong with one finished scenario, as readable strings; [] when it is sound. */
export function problemsOf(a: ScenarioAudit, expected: Status = 'succeeded'): string[] {
  const out: string[] = [];
  const p = (what: string) => out.push(`${a.id}: ${what}`);
  if (a.status !== expected) p(`status ${a.status}, expected ${expected}`);
  if (a.min_seq !== 1 || a.max_seq !== a.last_seq || a.events !== a.last_seq) {
    p(`event seqs not 1..${a.last_seq} without gaps (${a.events} events, ${a.min_seq}..${a.max_seq})`);
  }
  if (a.terminals !== 1) p(`${a.terminals} terminal events`);
  if (a.terminal_seq !== a.last_seq) p(`terminal event at seq ${a.terminal_seq}, last seq ${a.last_seq}`);
  const results = expected === 'succeeded' ? 1 : 0;
  if (a.results !== results) p(`${a.results} result rows, expected ${results}`);
  if (expected === 'succeeded' && !a.has_summary) p('no summary');
  return out;
}

/** The problems of every scenario (or of `ids`), at most `limit` of them. */
export async function scenarioProblems(
  pool: pg.Pool,
  opts: { ids?: readonly string[]; expected?: Status; limit?: number } = {},
): Promise<string[]> {
  const audits = await auditScenarios(pool, opts.ids);
  return audits.flatMap((a) => problemsOf(a, opts.expected)).slice(0, opts.limit ?? 20);
}

export async function statusCounts(pool: pg.Pool): Promise<Record<string, number>> {
  const { rows } = await pool.query<{ status: string; n: number }>(
    'SELECT status, count(*)::int AS n FROM scenarios GROUP BY status ORDER BY status',
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** Waits until no scenario (or none of `ids`) is queued or running. */
export async function waitForAllFinished(
  pool: pg.Pool,
  timeoutMs: number,
  ids?: readonly string[],
): Promise<Record<string, number>> {
  let last: Record<string, number> = {};
  try {
    await waitUntil(
      async () => {
        const { rows } = await pool.query<{ open: number }>(
          `SELECT count(*)::int AS open FROM scenarios
           WHERE status = ANY($2::text[]) AND ($1::uuid[] IS NULL OR id = ANY($1::uuid[]))`,
          [ids ? [...ids] : null, UNFINISHED_STATUSES],
        );
        last = await statusCounts(pool);
        return rows[0].open === 0;
      },
      { timeoutMs: timeoutMs, what: 'every scenario to finish' },
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; statuses: ${JSON.stringify(last)}`);
  }
  return last;
}

/**
 * Waits (up to 15 s) until no job of the scenarios (or of `ids`) is 'active': the worker writes a
 * scenario's terminal row before it completes the job, so an audit right after the last terminal
 * row may see its job a moment early. Returns quietly when it times out: the audit shows the state.
 */
export async function waitForJobsSettled(pool: pg.Pool, ids?: readonly string[]): Promise<void> {
  await waitUntil(
    async () => {
      const { rows } = await pool.query<{ active: number }>(
        `SELECT count(*)::int AS active FROM pgboss.job j JOIN scenarios s ON s.id = j.id
          WHERE j.name = 'calculate' AND j.state = 'active' AND ($1::uuid[] IS NULL OR s.id = ANY($1::uuid[]))`,
        [ids ? [...ids] : null],
      );
      return rows[0].active === 0;
    },
    { what: "the jobs to leave 'active'", timeoutMs: 15_000 },
  ).catch(() => {});
}

export async function scenarioRow(
  pool: pg.Pool,
  id: string,
): Promise<{ status: Status; attempt: number; progress: number; stage: string | null; error: unknown }> {
  const { rows } = await pool.query('SELECT status, attempt, progress, stage, error FROM scenarios WHERE id = $1', [
    id,
  ]);
  return rows[0];
}

/** Waits until the scenario has an event matching the predicate in the database. */
export async function waitForEvent(
  pool: pg.Pool,
  id: string,
  predicate: (e: { seq: number; name: string; data: Record<string, unknown> }) => boolean,
  timeoutMs = 30_000,
  what = 'an event',
): Promise<{ seq: number; name: string; data: Record<string, unknown> }> {
  return waitUntil(async () => (await eventLog(pool, id)).find(predicate), {
    timeoutMs: timeoutMs,
    what: `${what} of scenario ${id}`,
  });
}

export async function eventLog(
  pool: pg.Pool,
  id: string,
): Promise<Array<{ seq: number; name: string; data: Record<string, unknown> }>> {
  const { rows } = await pool.query('SELECT seq, name, data FROM scenario_events WHERE scenario_id = $1 ORDER BY seq', [
    id,
  ]);
  return rows;
}

/**
 * A scenario's job once it has left 'active': the worker writes the scenario's terminal row before
 * it completes the job, so a test that saw the row may look a moment too early.
 */
export async function jobOf(pool: pg.Pool, id: string): Promise<{ state: string; retry_count: number } | undefined> {
  await waitForJobsSettled(pool, [id]);
  const { rows } = await pool.query<{ state: string; retry_count: number }>(
    `SELECT state, retry_count FROM pgboss.job WHERE name = 'calculate' AND id = $1`,
    [id],
  );
  return rows[0];
}

/** The attempts of a scenario's `running` events, in order: [1, 2] after one retry. */
export const runningAttempts = (events: Array<{ name: string; data: Record<string, unknown> }>): unknown[] =>
  events.filter((e) => e.name === 'running').map((e) => e.data.attempt);

/** Kills every process still alive: teardown must not leave a worker holding a test database. */
export async function killAll(procs: readonly Proc[]): Promise<void> {
  await Promise.all(procs.map((p) => p.stop('SIGKILL')));
}

/** Is the OS process still there (a zombie that exited is not)? */
export function alive(proc: Proc): boolean {
  return proc.child.exitCode === null && proc.child.signalCode === null;
}

// The shortest heartbeat pg-boss allows. It travels with each job, so the web (which sends the job)
// needs it too. pg-boss checks heartbeats at most every 10 s, and a retried job is picked up by the
// fallback poll (10 s): a lost job runs again some 10–30 s after the kill.
export const HEARTBEAT = { JOB_HEARTBEAT_SECONDS: '10', SUPERVISE_INTERVAL_SECONDS: '1' };

/**
 * Workers for the subtests of `t` on `stack`, with the short HEARTBEAT (and `env`); with `delayMs`,
 * each of a worker's calculations takes that much longer. Each subtest ends with its workers
 * killed, so the next starts clean.
 */
export function subtestWorkers(
  t: Test,
  stack: Stack,
): (env?: Record<string, string>, delayMs?: number) => Promise<Proc> {
  let workers: Proc[] = [];
  t.afterEach(async () => {
    await killAll(workers);
    workers = [];
  });
  return async (env = {}, delayMs) => {
    const w = await stack.startWorker({ ...HEARTBEAT, ...env }, delayMs === undefined ? {} : slowEngine(delayMs));
    workers.push(w);
    return w;
  };
}
