// The load process's direct Postgres work: the NOTIFY baseline, scenarios created in the create
// transaction's exact shape (for a precise commit time), broadcasts, and the plain SELECT baseline.
import pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { createQueuedScenario } from '../server/scenarios.create.ts';
import { loadConfig } from '../shared/config.ts';
import { createDb, createPool, type Db, openDb } from '../shared/db.ts';
import { uuidv7 } from '../shared/ids.ts';
import { resolveInputs } from '../shared/inputs.resolve.ts';
import { createBoss } from '../shared/queue.ts';
import { validateScenario } from '../shared/validate.ts';
import { withinWorkspace } from '../shared/workspace.ts';
import { epochMs, waitUntil } from '../test/helpers/wait.ts';
import { appendEventIf } from '../worker/scenarios.repository.ts';
import type { Broadcast, LoadCommands } from './load.protocol.ts';
import { DEFAULT_SCENARIO } from './load.protocol.ts';
import { sleep } from './stats.ts';

type Args<C extends keyof LoadCommands> = LoadCommands[C]['args'];
type Result<C extends keyof LoadCommands> = Promise<LoadCommands[C]['result']>;

const config = loadConfig();
const pools = new Map<string, { pool: pg.Pool; db: Db }>();

export function dbFor(url: string): { pool: pg.Pool; db: Db } {
  let entry = pools.get(url);
  if (!entry) {
    const pool = createPool(url, { max: 12, applicationName: 'hourglass-bench-load' });
    entry = { pool, db: createDb(pool) };
    pools.set(url, entry);
  }
  return entry;
}

export async function closeDbs(): Promise<void> {
  await Promise.all([...pools.values()].map((p) => p.db.destroy()));
  pools.clear();
}

async function listener(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: 'hourglass-bench-listen' });
  await client.connect();
  return client;
}

/**
 * The baseline of #2: a NOTIFY transaction on one connection, the notification on another; ms from
 * sending its COMMIT to the notification's arrival, the same span #2 measures for a real create.
 */
export async function notifyLatency({ databaseUrl, samples }: Args<'notifyLatency'>): Result<'notifyLatency'> {
  const listen = await listener(databaseUrl);
  const send = await listener(databaseUrl);
  await listen.query('LISTEN bench_ping');
  const latencyMs: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      const received = new Promise<number>((resolve) => listen.once('notification', () => resolve(performance.now())));
      await send.query('BEGIN');
      await send.query(`NOTIFY bench_ping, '${i}'`);
      const commitSent = performance.now();
      await send.query('COMMIT');
      latencyMs.push((await received) - commitSent);
      await sleep(2);
    }
  } finally {
    await Promise.all([listen.end(), send.end()]);
  }
  return { latencyMs };
}

/** Waits until pg-boss has marked the job completed, so the worker is idle before the next sample. */
export async function jobDone(pool: pg.Pool, id: string): Promise<void> {
  await waitUntil(
    async () => {
      const { rows } = await pool.query<{ state: string }>('SELECT state FROM pgboss.job WHERE id = $1', [id]);
      const state = rows[0]?.state;
      if (state === 'failed' || state === 'cancelled') throw new Error(`job ${id} ended ${state}`);
      return state === 'completed';
    },
    { what: `job ${id} to complete`, timeoutMs: 60_000, everyMs: 5 },
  );
}

export async function pickup({ databaseUrl, samples }: Args<'pickup'>): Result<'pickup'> {
  const { pool } = dbFor(databaseUrl);
  // Creates go through a handle with a pipeline-mode pool, as the web's do (server/web.process.ts).
  const creates = openDb(databaseUrl, { max: 2, applicationName: 'hourglass-bench-create', pipelined: true });
  let commitSent = 0;
  // The commit time starts when COMMIT is handed to the client: each new client's query() notes it.
  creates.pipelinePool?.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      if (args[0] === 'COMMIT') commitSent = epochMs();
      return query(...args);
    };
  });
  const boss: PgBoss = createBoss(config, databaseUrl, 'web');
  await boss.start();
  const validated = validateScenario(JSON.parse(DEFAULT_SCENARIO));
  if (!validated.ok) throw new Error('the default scenario does not validate');
  const ids: string[] = [];
  const committedAt: number[] = [];
  const commitMs: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      const id = uuidv7();
      const inputs = resolveInputs(validated.value, { scenarioId: id, now: new Date() });
      // The route's transaction, statement for statement (server/routes/scenarios.route.ts).
      await createQueuedScenario(withinWorkspace(creates, 'default'), boss, config, {
        id,
        name: inputs.name,
        inputs,
        idempotencyKey: null,
        requestHash: null,
      });
      const committed = epochMs();
      committedAt.push(committed);
      commitMs.push(committed - commitSent);
      ids.push(id);
      await jobDone(pool, id);
      await sleep(10);
    }
  } finally {
    await boss.stop({ graceful: false, close: true });
    await creates.close();
  }
  const { rows } = await pool.query<{ id: string; claim: number; running: number }>(
    `SELECT s.id,
            extract(epoch FROM j.started_on)::float8 * 1000 AS claim,
            extract(epoch FROM e.created_at)::float8 * 1000 AS running
       FROM unnest($1::uuid[]) AS s(id)
       JOIN pgboss.job j ON j.id = s.id
       JOIN scenario_events e ON e.scenario_id = s.id AND e.name = 'running'`,
    [ids],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const claimMs: number[] = [];
  const runningMs: number[] = [];
  ids.forEach((id, i) => {
    const r = byId.get(id);
    if (!r) throw new Error(`scenario ${id} has no running event`);
    claimMs.push(r.claim - committedAt[i]);
    runningMs.push(r.running - committedAt[i]);
  });
  return { claimMs, runningMs, commitMs, ids };
}

/** Commits the broadcast; returns the wall-clock time the commit was acknowledged. */
export async function commitBroadcast(databaseUrl: string, broadcast: Broadcast): Promise<number> {
  const { pool, db } = dbFor(databaseUrl);
  if (broadcast.kind === 'notify') {
    await pool.query(`NOTIFY ${broadcast.channel}, '${broadcast.seq}'`);
    return epochMs();
  }
  // The worker's progress transaction (worker/calculate.job.ts), but with the fsync: one commit.
  await db.transaction().execute(async (trx) => {
    await appendEventIf(
      trx,
      broadcast.scenarioId,
      'progress',
      { progress: 0.5, stage: 'generation', message: 'bench broadcast' },
      { progress: 0.5, stage: 'generation' },
      {},
    );
  });
  return epochMs();
}

export async function selectResult(args: Args<'selectResult'>): Result<'selectResult'> {
  const { pool } = dbFor(args.databaseUrl);
  const text = 'SELECT statements_gzip FROM scenario_results WHERE scenario_id = $1';
  const latencyMs: number[] = [];
  let bytes = 0;
  for (let i = 0; i < args.samples + 5; i++) {
    const t0 = performance.now();
    const { rows } = await pool.query<{ statements_gzip: Buffer }>(text, [args.scenarioId]);
    if (i >= 5) latencyMs.push(performance.now() - t0);
    bytes = rows[0]?.statements_gzip.length ?? 0;
  }
  const stopAt = performance.now() + args.durationMs;
  let done = 0;
  await Promise.all(
    Array.from({ length: args.clients }, async () => {
      while (performance.now() < stopAt) {
        await pool.query(text, [args.scenarioId]);
        if (performance.now() <= stopAt) done++;
      }
    }),
  );
  return { latencyMs, perSecond: done / (args.durationMs / 1000), bytes };
}
