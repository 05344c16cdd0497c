// What the orchestrator (bench/run.ts) asks of the load process (bench/load.ts) over IPC.
import { DEFAULT_SCENARIO as TEST_SCENARIO } from '../test/helpers/http.ts';
import type { ClosedLoopOptions, HttpRequest, LoadResult } from './http.client.ts';

/** The README's minimal scenario: every other input takes its default. */
export const DEFAULT_SCENARIO = JSON.stringify({ ...TEST_SCENARIO, name: 'bench' });

/** What triggers one broadcast: a bare NOTIFY, or one progress event appended as the worker would. */
export type Broadcast = { kind: 'notify'; channel: string; seq: number } | { kind: 'event'; scenarioId: string };

export interface LoadCommands {
  /** BEGIN; NOTIFY; COMMIT on one connection, LISTEN on another: ms from sending COMMIT to receipt. */
  notifyLatency: { args: { databaseUrl: string; samples: number }; result: { latencyMs: number[] } };
  /**
   * Creates scenarios one at a time in the create transaction's shape (scenario + queued event +
   * pg-boss job), each after the previous one finished. Measured from the create's commit (its
   * COMMIT acknowledged: Postgres sends the notification when the commit is durable, at the same
   * moment as the acknowledgement) to the worker's claim (pgboss.job.started_on) and to the start
   * of its `running` transaction (the event's created_at). commitMs: how long each COMMIT took.
   */
  pickup: {
    args: { databaseUrl: string; samples: number };
    result: { claimMs: number[]; runningMs: number[]; commitMs: number[]; ids: string[] };
  };
  /**
   * POST → `succeeded` on the scenario's SSE stream, one at a time on an idle system. stages: the
   * same span cut at the running, last progress and succeeded events' transaction starts.
   */
  endToEnd: {
    args: { port: number; databaseUrl: string; samples: number };
    result: { latencyMs: number[]; stages: Record<string, number[]> };
  };
  /** POSTs `count` default scenarios over `connections` connections; the created ids. */
  createMany: { args: { port: number; count: number; connections: number }; result: { ids: string[] } };
  closedLoop: {
    args: ClosedLoopOptions;
    result: LoadResult;
  };
  /** `samples` requests one after another on one keep-alive connection, after `warmup` unmeasured ones. */
  sequential: {
    args: { port: number; request: HttpRequest; samples: number; warmup: number; expect: number };
    result: { latencyMs: number[]; headers: Record<string, string>; bytes: number };
  };
  /** The statements row read straight from Postgres: one client in sequence, then `clients` at once. */
  selectResult: {
    args: { databaseUrl: string; scenarioId: string; samples: number; clients: number; durationMs: number };
    result: { latencyMs: number[]; perSecond: number; bytes: number };
  };
  /** Opens `count` SSE streams to `path`, each ready once `ready` has arrived on it. */
  sseOpen: {
    args: { port: number; path: string; count: number; concurrency: number; ready: string };
    result: { opened: number; seconds: number };
  };
  /** Commits one broadcast and waits for `marker` on every open stream: ms from the commit to each receipt. */
  sseBroadcast: {
    args: { databaseUrl: string; broadcast: Broadcast; marker: string; timeoutMs: number };
    result: { latencyMs: number[]; missing: number };
  };
  sseClose: { args: Record<string, never>; result: { closed: number } };
  /** One GET of a streamed list: time to the response headers, to the end, and the `total` it reports. */
  list: {
    args: { port: number; path: string };
    result: { ttfbMs: number; totalMs: number; bytes: number; total: number };
  };
}

export type Command = keyof LoadCommands;
export interface LoadRequest {
  seq: number;
  cmd: Command;
  args: unknown;
}
