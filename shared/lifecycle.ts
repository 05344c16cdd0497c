// A scenario's lifecycle, defined once: its statuses and which of them are final, the stage a
// calculation reports (apart from the status), the events of its stream (and of a sweep's), and
// what one calculation job came to. Schemas, SQL, the worker, the routes and the tests import these.

export const SCENARIO_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type ScenarioStatus = (typeof SCENARIO_STATUSES)[number];

/** A scenario in one of these never changes again (invariant 5): its stream ends, its job is done. */
export const TERMINAL_STATUSES = ['succeeded', 'failed', 'cancelled'] as const satisfies readonly ScenarioStatus[];
type TerminalStatus = (typeof TERMINAL_STATUSES)[number];

/** Still to be calculated: only these may become `running`, `succeeded` or `failed`. */
export const UNFINISHED_STATUSES = ['queued', 'running'] as const satisfies readonly ScenarioStatus[];

export const isTerminal = (status: string): status is TerminalStatus =>
  (TERMINAL_STATUSES as readonly string[]).includes(status);

/**
 * Where a calculation is, which the status does not say: `starting` once a worker has it, then the
 * engine's stages as it reports them; a finished scenario's stage is FINAL_STAGE of its status.
 * A queued scenario has none (null).
 */
const ENGINE_STAGES = ['weather', 'generation', 'market', 'finance'] as const;
export type EngineStage = (typeof ENGINE_STAGES)[number];
export const STARTING_STAGE = 'starting';
export const FINAL_STAGE = { succeeded: 'done', failed: 'failed', cancelled: 'cancelled' } as const satisfies Record<
  TerminalStatus,
  string
>;
export type Stage = typeof STARTING_STAGE | EngineStage | (typeof FINAL_STAGE)[TerminalStatus];

/** The events of a scenario's stream (scenario_events.name); its terminal events are its terminal statuses. */
export const SCENARIO_EVENTS = ['queued', 'running', 'progress', ...TERMINAL_STATUSES] as const;
export type ScenarioEventName = (typeof SCENARIO_EVENTS)[number];
export const TERMINAL_EVENTS: ReadonlySet<string> = new Set<string>(TERMINAL_STATUSES);

/** The events a sweep stores (sweep_events.name, written by its trigger); its stream adds `progress`. */
export const SWEEP_EVENTS = ['variant', 'finished'] as const;

/** The events an optimization stores (optimization_events.name, written by its trigger and its search step). */
export const OPTIMIZATION_EVENTS = ['evaluation', 'improved', 'finished'] as const;

/**
 * A parent of variant scenarios (a sweep, an optimization): the kinds, which name its table
 * (`<kind>s`), its event log (`<kind>_events`), its variants' column (`<kind>_id`) and its channel.
 */
const PARENT_KINDS = ['sweep', 'optimization'] as const;
export type ParentKind = (typeof PARENT_KINDS)[number];

/**
 * An optimization's status is stored; a sweep's is derived from its variants' (server/routes/
 * sweeps.route.ts). A sweep ends when its last variant does: that is a fact of the counts. An
 * optimization ends when its search step decides no round is left (converged, or out of budget),
 * or when it is cancelled; no count of its evaluations can tell either, so the step stores it.
 */
export const OPTIMIZATION_STATUSES = ['running', 'succeeded', 'cancelled'] as const;
export type OptimizationStatus = (typeof OPTIMIZATION_STATUSES)[number];

/**
 * What one calculation job came to (the worker's handler returns it, and pg-boss stores it as the
 * job's output). A job that throws instead is retried by pg-boss.
 * - `succeeded`: the result is saved; `saved` false when another attempt had saved it first.
 * - `failed`: the engine refused the inputs; the scenario failed with `code`.
 * - `skipped`: nothing to do: the scenario is gone (`missing`) or already finished (its status).
 * - `finished meanwhile`: it finished (or was cancelled) while this job waited for an engine thread.
 * - `given back`: the worker is stopping; the job went back to the queue unstarted.
 */
export type JobOutcome =
  | { outcome: 'succeeded'; saved: boolean }
  | { outcome: 'failed'; code: string }
  | { outcome: 'skipped'; status: TerminalStatus | 'missing' }
  | { outcome: 'finished meanwhile' }
  | { outcome: 'given back' };
