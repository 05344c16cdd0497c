// Each workspace's quotas (config.quotas, 0: none), one mechanism: the middleware counts every API
// request against requests_per_minute, and a create asks admit() before it writes anything, with
// the number of scenarios it would queue. Over a quota: 429 `quota_exceeded`, Retry-After, and the
// problem names the quota with its limit and use. use() is what GET /api/workspace shows.
//
// Requests are counted in this process's memory (a fixed minute per workspace): N web processes
// allow N × the limit. Queued scenarios and stored bytes are counted in the database; admit() reads
// counts at most QUEUED_TTL_MS / STORED_TTL_MS old, plus what this process admitted since, so a
// create costs no count query in a burst. Two creates racing past one count may together go over
// by their own sizes: a quota bounds a workspace's share, it is not a transaction.

import type { RequestHandler } from 'express';
import { sql } from 'kysely';
import type { QuotaLimits } from '../shared/config.ts';
import type { Db } from '../shared/db.ts';
import { HttpProblem } from './problem.ts';
import { workspaceOf } from './route.ts';

export type QuotaName = keyof QuotaLimits;

export interface QuotaUse {
  /** null: no limit (the setting is 0). */
  limit: number | null;
  used: number;
}

const QUEUED_TTL_MS = 1_000;
const STORED_TTL_MS = 10_000;
const MINUTE_MS = 60_000;
/** What a client over a database-counted quota is told to wait: the queue drains, or it deletes. */
const RETRY_AFTER_S: Record<Exclude<QuotaName, 'requests_per_minute'>, number> = {
  queued_variants: 30,
  stored_bytes: 300,
};

const SETTINGS: Record<QuotaName, string> = {
  queued_variants: 'QUOTA_QUEUED_VARIANTS',
  stored_bytes: 'QUOTA_STORED_BYTES',
  requests_per_minute: 'QUOTA_REQUESTS_PER_MINUTE',
};

/** The workspace's queued scenarios (singles and variants): those still waiting for a worker. */
async function queuedCount(db: Db, workspace: string): Promise<number> {
  const row = await db
    .selectFrom('scenarios')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('workspace', '=', workspace)
    .where('status', '=', 'queued')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The workspace's stored bytes, as stored (compressed): each source one line of the union. The
 * results' two gzip forms; a table of library files adds its line (`UNION ALL SELECT bytes FROM
 * <table> WHERE workspace = …`).
 */
async function storedBytes(db: Db, workspace: string): Promise<number> {
  const { rows } = await sql<{ bytes: string }>`
    SELECT COALESCE(sum(bytes), 0)::bigint AS bytes FROM (
      SELECT octet_length(r.statements_gzip)::bigint + octet_length(r.statements_lite_gzip) AS bytes
        FROM scenario_results r JOIN scenarios s ON s.id = r.scenario_id WHERE s.workspace = ${workspace}
      UNION ALL
      SELECT bytes FROM resources WHERE workspace = ${workspace}
    ) stored`.execute(db);
  return Number(rows[0].bytes);
}

interface Counted {
  value: number;
  at: number;
}

export class Quotas {
  readonly #limits: Readonly<QuotaLimits>;
  readonly #db: Db;
  readonly #minutes = new Map<string, { start: number; count: number }>();
  readonly #queued = new Map<string, Counted>();
  readonly #stored = new Map<string, Counted>();

  constructor(limits: Readonly<QuotaLimits>, db: Db) {
    this.#limits = limits;
    this.#db = db;
  }

  /** Counts the request against its workspace's minute (after the API key set the workspace). */
  middleware(): RequestHandler {
    return (_req, res, next) => {
      const limit = this.#limits.requests_per_minute;
      if (limit === 0) return next();
      const workspace = workspaceOf(res);
      const now = Date.now();
      let minute = this.#minutes.get(workspace);
      if (!minute || now - minute.start >= MINUTE_MS) {
        minute = { start: now, count: 0 };
        this.#minutes.set(workspace, minute);
        this.#forgetIdle(now);
      }
      if (minute.count >= limit) {
        const retry = Math.max(1, Math.ceil((minute.start + MINUTE_MS - now) / 1000));
        return next(exceeded('requests_per_minute', limit, minute.count, retry));
      }
      minute.count++;
      next();
    };
  }

  /** Before a create writes: refused if the workspace is at its stored bytes, or `queue` more would pass its queued quota. */
  async admit(workspace: string, queue: number): Promise<void> {
    const { stored_bytes: storedLimit, queued_variants: queuedLimit } = this.#limits;
    if (storedLimit > 0) {
      const stored = await this.#cached(this.#stored, workspace, STORED_TTL_MS, () => storedBytes(this.#db, workspace));
      if (stored.value >= storedLimit) {
        throw exceeded('stored_bytes', storedLimit, stored.value, RETRY_AFTER_S.stored_bytes);
      }
    }
    if (queuedLimit > 0) {
      const queued = await this.#cached(this.#queued, workspace, QUEUED_TTL_MS, () => queuedCount(this.#db, workspace));
      if (queued.value + queue > queuedLimit) {
        throw exceeded('queued_variants', queuedLimit, queued.value, RETRY_AFTER_S.queued_variants, queue);
      }
      queued.value += queue;
    }
  }

  /** Each quota's limit and the workspace's use now (counted afresh). */
  async use(workspace: string): Promise<Record<QuotaName, QuotaUse>> {
    const [queued, stored] = await Promise.all([queuedCount(this.#db, workspace), storedBytes(this.#db, workspace)]);
    const minute = this.#minutes.get(workspace);
    const requests = minute && Date.now() - minute.start < MINUTE_MS ? minute.count : 0;
    const limit = (name: QuotaName) => this.#limits[name] || null;
    return {
      queued_variants: { limit: limit('queued_variants'), used: queued },
      stored_bytes: { limit: limit('stored_bytes'), used: stored },
      requests_per_minute: { limit: limit('requests_per_minute'), used: requests },
    };
  }

  async #cached(map: Map<string, Counted>, workspace: string, ttl: number, count: () => Promise<number>) {
    const now = Date.now();
    const hit = map.get(workspace);
    if (hit && now - hit.at < ttl) return hit;
    const fresh = { value: await count(), at: now };
    map.set(workspace, fresh);
    return fresh;
  }

  /** Workspaces whose minute ended long ago leave the map (a deployment with many keys). */
  #forgetIdle(now: number): void {
    if (this.#minutes.size < 1000) return;
    for (const [workspace, m] of this.#minutes) if (now - m.start >= MINUTE_MS) this.#minutes.delete(workspace);
  }
}

function exceeded(quota: QuotaName, limit: number, used: number, retryAfter: number, asked?: number): HttpProblem {
  const more = asked === undefined ? '' : `, and this request would queue ${asked} more`;
  return new HttpProblem(
    'quota_exceeded',
    `the workspace is at its ${quota} quota: ${used} of ${limit} (${SETTINGS[quota]})${more}`,
    { headers: { 'Retry-After': String(retryAfter) }, extra: { quota, limit, used } },
  );
}
