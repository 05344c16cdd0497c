// The worker's SQL: what one attempt of a calculation writes. Each write appends an event, applies
// its change to the scenario and NOTIFYs the scenario's channel (delivered at commit), and each is
// guarded: it writes only while the scenario is unfinished (or while its attempt is the running
// one), so a stale attempt, a duplicate job or a late dead letter writes nothing.
import { sql } from 'kysely';
import { scenarioChannel } from '../shared/channels.ts';
import { type Db, type DbHandle, executePrepared, precompiled, type ScenarioRow } from '../shared/db.ts';
import { FINAL_STAGE, STARTING_STAGE, type Stage, UNFINISHED_STATUSES } from '../shared/lifecycle.ts';
import { withEvents } from '../shared/scenarios.repository.ts';
import type { EventData, EventName } from '../shared/schemas/events.ts';
import { type Tx, transaction } from '../shared/transaction.ts';

type ScenarioPatch = Partial<{
  status: ScenarioRow['status'];
  progress: number;
  stage: Stage | null;
  attempt: number;
  summary: unknown;
  error: { code: string; message: string };
  started_at: Date;
  finished_at: Date;
}>;

/** What a writer expects the scenario to be in; a stale writer (another attempt, a finished scenario) writes nothing. */
interface EventGuard {
  status?: ReadonlyArray<ScenarioRow['status']>;
  attempt?: number;
}

/**
 * Appends one event and applies its change to the scenario in the caller's transaction, only while
 * the scenario matches `expect`; the new seq, or null (and nothing written) when it does not.
 * Bumping last_seq in the same statement serializes concurrent writers of one scenario, so seqs
 * are gapless.
 */
export async function appendEventIf<N extends EventName>(
  trx: Tx,
  scenarioId: string,
  name: N,
  data: EventData[N],
  patch: ScenarioPatch,
  expect: EventGuard,
): Promise<number | null> {
  const { summary, error, ...plain } = patch;
  let update = trx
    .updateTable('scenarios')
    .set({
      ...plain,
      ...(summary !== undefined ? { summary: JSON.stringify(summary) } : {}),
      ...(error !== undefined ? { error: JSON.stringify(error) } : {}),
      last_seq: sql<number>`last_seq + 1`,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', scenarioId);
  if (expect.status) update = update.where('status', 'in', [...expect.status]);
  if (expect.attempt !== undefined) update = update.where('attempt', '=', expect.attempt);
  const updated = await update.returning('last_seq').executeTakeFirst();
  if (!updated) return null;
  const seq = updated.last_seq;
  await trx
    .insertInto('scenario_events')
    .values({ scenario_id: scenarioId, seq, name, data: JSON.stringify(data) })
    .execute();
  await sql`SELECT pg_notify(${scenarioChannel(scenarioId)}, ${String(seq)})`.execute(trx);
  return seq;
}

/** What a one-statement event write binds: the scenario, the event's data (JSON text) and the channel. */
interface EventArgs {
  id: string;
  data: string;
  channel: string;
}

const eventArgs = (scenarioId: string, data: unknown): EventArgs => ({
  id: scenarioId,
  data: JSON.stringify(data),
  channel: scenarioChannel(scenarioId),
});

/** The NOTIFY of the new seq, delivered at commit. */
const notified = (a: EventArgs) => sql<null>`pg_notify(${a.channel}, seq::text)`.as('notified');

/** The `running` event: only while the scenario is unfinished; started_at is the transaction's time, as the event's created_at. */
const appendRunningQuery = precompiled((db, a: EventArgs & { attempt: number }) =>
  withEvents(
    db,
    'running',
    a.data,
    db
      .updateTable('scenarios')
      .set({
        last_seq: sql`last_seq + 1`,
        status: 'running',
        attempt: a.attempt,
        started_at: sql`now()`,
        progress: 0,
        stage: STARTING_STAGE,
        updated_at: sql`now()`,
      })
      .where('id', '=', a.id)
      .where('status', 'in', UNFINISHED_STATUSES)
      .returning(['id', 'last_seq']),
  )
    .selectFrom('event')
    .select(['seq', notified(a)]),
);

/**
 * The `running` event of an attempt as one statement (one round trip, prepared once per
 * connection). The seq, or null (nothing written) when the scenario is finished.
 */
export async function appendRunning(db: DbHandle, scenarioId: string, attempt: number): Promise<number | null> {
  const data: EventData['running'] = { attempt };
  const query = appendRunningQuery(db, { ...eventArgs(scenarioId, data), attempt });
  const [row] = await executePrepared(db, query);
  return row?.seq ?? null;
}

/**
 * A retry's start, in one transaction: `queued {attempt, reason: retry}` (the previous attempt did
 * not hand the job back), then `running`; only while the scenario is unfinished. False, and
 * nothing written, when it is finished.
 */
export async function appendRetryRunning(db: Db, scenarioId: string, attempt: number): Promise<boolean> {
  const unfinished = { status: UNFINISHED_STATUSES };
  return transaction(db, async (trx) => {
    const queued = { status: 'queued' } as const;
    const seq = await appendEventIf(trx, scenarioId, 'queued', { attempt, reason: 'retry' }, queued, unfinished);
    if (seq === null) return false;
    const running = await appendEventIf(
      trx,
      scenarioId,
      'running',
      { attempt },
      { status: 'running', attempt, started_at: new Date(), progress: 0, stage: STARTING_STAGE },
      unfinished,
    );
    return running !== null;
  });
}

/**
 * One progress report: the event row, the scenario's progress and the NOTIFY, only while `attempt`
 * is the scenario's running attempt. Progress is replaceable, so its commit skips the WAL flush
 * wait (synchronous_commit off for this transaction).
 */
const appendProgressQuery = precompiled((db, a: EventArgs & { attempt: number; progress: number; stage: Stage }) =>
  withEvents(
    db,
    'progress',
    a.data,
    db
      .updateTable('scenarios')
      .set({ last_seq: sql`last_seq + 1`, progress: a.progress, stage: a.stage, updated_at: sql`now()` })
      .where('id', '=', a.id)
      .where('status', '=', 'running')
      .where('attempt', '=', a.attempt)
      .returning(['id', 'last_seq']),
  )
    .selectFrom('event')
    .select(['seq', notified(a), sql<string>`set_config('synchronous_commit', 'off', true)`.as('async_commit')]),
);

/**
 * One progress report as one statement (its own transaction, prepared once per connection: a
 * calculation writes ~26). Returns the seq, or null when the attempt is no longer the scenario's
 * running one (nothing written).
 */
export async function appendProgress(
  db: DbHandle,
  scenarioId: string,
  attempt: number,
  data: EventData['progress'],
): Promise<number | null> {
  const args = { ...eventArgs(scenarioId, data), attempt, progress: data.progress, stage: data.stage as Stage };
  const [row] = await executePrepared(db, appendProgressQuery(db, args));
  return row?.seq ?? null;
}

/** appendEventIf in a transaction of its own: the same arguments, a database instead of a transaction. */
async function appendEventAlone<N extends EventName>(
  db: Db,
  ...args: Parameters<typeof appendEventIf<N>> extends [unknown, ...infer Rest] ? Rest : never
): Promise<number | null> {
  return transaction(db, (trx) => appendEventIf(trx, ...args));
}

/** The job went back to the queue: the scenario is queued for the next attempt, if `attempt` is still its running one. */
export async function appendQueuedForRetry(db: Db, scenarioId: string, attempt: number): Promise<void> {
  const data = { attempt: attempt + 1, reason: 'retry' };
  const patch = { status: 'queued', stage: null, progress: 0 } as const;
  await appendEventAlone(db, scenarioId, 'queued', data, patch, { status: ['running'], attempt });
}

/**
 * The scenario fails with `error`, only while it is unfinished, as the succeeded save does: a stale
 * attempt (or a dead letter that arrives late) never writes `failed` after `succeeded` or a second `failed`.
 */
export async function appendFailed(
  db: Db,
  scenarioId: string,
  error: { code: string; message: string },
): Promise<void> {
  const patch = { status: 'failed', error, finished_at: new Date(), stage: FINAL_STAGE.failed } as const;
  await appendEventAlone(db, scenarioId, 'failed', { error }, patch, { status: UNFINISHED_STATUSES });
}

interface StoredResult {
  scenario_id: string;
  etag: string;
  /** null: the scenario keeps no hourly data (a sweep variant's default). */
  statements_gzip: Buffer | null;
  statements_lite_gzip: Buffer;
}

/**
 * Saves the result and appends `succeeded` in one statement (one transaction, one round trip),
 * only while the scenario is unfinished: a stale attempt that finishes after its scenario was
 * failed or already succeeded writes nothing (the UPDATE's status check is re-evaluated after
 * any concurrent writer commits). Returns the event's seq, or null when nothing was written.
 */
export async function saveResultSucceeded(
  db: Db,
  r: StoredResult,
  totals: { solar_mwh: number; wind_mwh: number; curtailed_mwh: number },
  succeeded: EventData['succeeded'],
): Promise<number | null> {
  const a = eventArgs(r.scenario_id, succeeded);
  const update = db
    .updateTable('scenarios')
    .set({
      last_seq: sql`last_seq + 1`,
      status: 'succeeded',
      progress: 1,
      stage: FINAL_STAGE.succeeded,
      summary: JSON.stringify(succeeded.kpis),
      totals: JSON.stringify(totals),
      finished_at: sql`now()`,
      updated_at: sql`now()`,
    })
    .where('id', '=', r.scenario_id)
    .where('status', 'in', UNFINISHED_STATUSES)
    .returning(['id', 'last_seq']);
  const row = await withEvents(db, 'succeeded', a.data, update)
    .with('result', (q) =>
      q
        .insertInto('scenario_results')
        .columns(['scenario_id', 'etag', 'statements_gzip', 'statements_lite_gzip'])
        .expression((eb) =>
          eb
            .selectFrom('scenario')
            .select([
              sql.val(r.scenario_id).as('scenario_id'),
              sql.val(r.etag).as('etag'),
              sql.val(r.statements_gzip).as('statements_gzip'),
              sql.val(r.statements_lite_gzip).as('statements_lite_gzip'),
            ]),
        )
        .onConflict((oc) => oc.column('scenario_id').doNothing())
        .returning('scenario_id'),
    )
    .selectFrom('event')
    .select(['seq', notified(a)])
    .executeTakeFirst();
  return row?.seq ?? null;
}
