// The one place that reads process.env. Everything else receives this frozen object.
export interface Config {
  /** Absent means "start an embedded Postgres" (npm start only). */
  databaseUrl: string | undefined;
  port: number;
  host: string;
  logLevel: string;
  workerConcurrency: number;
  /** Jobs a worker claims beyond its running ones, each waiting (still queued) for a free engine thread. */
  workerPrefetch: number;
  /** Variants of a sweep one claim takes (WORKER_VARIANT_BATCH); single scenarios are claimed one at a time. */
  variantBatch: number;
  /** Variants one sweep may have (checked before expanding them). */
  maxSweepVariants: number;
  /**
   * Megabytes of generation profiles each worker keeps between calculations (sweeps reuse them).
   * 32 by default: a design's two profiles take 3.5 MB, so a sweep over capacities, limits and
   * prices needs only those, while a sweep that reuses nothing filled any bound with dead profiles
   * (256 MB of them in a 400-variant latitude sweep); see docs/sizing.md.
   */
  engineCacheMb: number;
  /** Library files and series a worker keeps read (worker/resources.store.ts), MB. */
  resourceCacheMb: number;
  /**
   * RESULT_CACHE_MB: megabytes of built full statements answers (gzip JSON made from a result's
   * stored form) each web process keeps, least recently used out (server/answer.cache.ts); 0 keeps
   * none and makes the answer on every read. 64 by default: ~30–70 results (a cycling battery's
   * answer is ~2 MB, the default scenario's ~0.9 MB) within a 512 MB web dyno (docs/sizing.md).
   */
  resultCacheMb: number;
  /** Large enough for a SAM CSV weather file (~1.5 MB) or 5 × 8,760 supplied values as JSON. */
  bodyLimitBytes: number;
  /** Size of each of the web's two pools (queries, creates); it also holds one connection for LISTEN. A worker's pool is WORKER_CONCURRENCY + 2. */
  poolMax: number;
  /** Guards API queries against a stuck statement holding a connection. */
  statementTimeoutMs: number;
  /** pg-boss: a crashed worker's job is retried; retryLimit retries, then the scenario fails. */
  jobRetryLimit: number;
  /** pg-boss: a job that sends no heartbeat for this long is taken back (min 10). */
  jobHeartbeatSeconds: number;
  /** pg-boss: an upper bound on one calculation, whatever the heartbeat says. */
  jobExpireSeconds: number;
  /** pg-boss: how often a worker checks for lost jobs (heartbeat / expiry). */
  superviseIntervalSeconds: number;
  /** Seconds a stopping worker lets its running calculation finish before handing it back. */
  shutdownGraceSeconds: number;
  maxSseStreams: number;
  sseHeartbeatMs: number;
  /**
   * API_KEYS: each key with its workspace (`workspace:key`; a bare key is the `default`
   * workspace's, as every key was before workspaces). Empty: one open workspace, `default`.
   */
  apiKeys: readonly ApiKey[];
  /** Port of the Postgres that `npm start` embeds when DATABASE_URL is unset. */
  embeddedPgPort: number;
  corsOrigins: readonly string[];
  /** Slow-loris guard: a client must send its request headers within this long. */
  headersTimeoutMs: number;
  /** RETENTION_DAYS: finished resources older than this are deleted by the worker; 0 (unset) keeps everything. */
  retentionDays: number;
  /** How often a worker looks for expired resources (RETENTION_INTERVAL_SECONDS). */
  retentionIntervalSeconds: number;
  /** Start-up waits for the database: 250 ms after the first failed attempt, doubling up to this. */
  dbRetryMaxDelayMs: number;
  /**
   * Each workspace's quotas (0: none). Queued scenarios, variants included: one key must not fill
   * the queue for every other. Stored bytes: its results' stored forms. Requests a minute: counted
   * by each web process on its own.
   */
  quotas: Readonly<QuotaLimits>;
}

export interface QuotaLimits {
  queued_variants: number;
  stored_bytes: number;
  requests_per_minute: number;
}

type Env = Record<string, string | undefined>;

/** The workspace of what was stored before workspaces, of bare keys, and of a deployment without API_KEYS. */
export const DEFAULT_WORKSPACE = 'default';
const WORKSPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface ApiKey {
  workspace: string;
  key: string;
}

/** API_KEYS: `workspace:key` or a bare key, comma-separated; a bad workspace name fails the start. */
function apiKeys(raw: string | undefined): ApiKey[] {
  return list(raw).map((entry) => {
    const colon = entry.indexOf(':');
    if (colon < 0) return { workspace: DEFAULT_WORKSPACE, key: entry };
    const workspace = entry.slice(0, colon);
    const key = entry.slice(colon + 1);
    if (!WORKSPACE_NAME.test(workspace) || key === '') {
      throw new Error(
        'API_KEYS entries are workspace:key or a bare key; a workspace is 1–64 letters, digits, _ . - (starting with a letter or digit) and its key is not empty',
      );
    }
    return { workspace, key };
  });
}

function int(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

/** A malformed DATABASE_URL is a configuration error: the processes exit on it instead of waiting. */
function databaseUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('DATABASE_URL must be a URL such as postgres://user:password@host:5432/database');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new Error(`DATABASE_URL must start with postgres:// or postgresql://, got "${url.protocol}//"`);
  }
  if (!url.hostname && !url.searchParams.has('host')) throw new Error('DATABASE_URL names no host');
  return raw;
}

function list(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export function loadConfig(env: Env = process.env): Readonly<Config> {
  return Object.freeze({
    databaseUrl: databaseUrl(env.DATABASE_URL),
    port: int(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '0.0.0.0',
    logLevel: env.LOG_LEVEL || 'info',
    workerConcurrency: int(env, 'WORKER_CONCURRENCY', 1, 1, 64),
    workerPrefetch: int(env, 'WORKER_PREFETCH', 0, 0, 64),
    variantBatch: int(env, 'WORKER_VARIANT_BATCH', 4, 1, 64),
    maxSweepVariants: int(env, 'MAX_SWEEP_VARIANTS', 2000, 1, 100_000),
    engineCacheMb: int(env, 'ENGINE_CACHE_MB', 32, 0, 65_536),
    resourceCacheMb: int(env, 'RESOURCE_CACHE_MB', 32, 1, 65_536),
    resultCacheMb: int(env, 'RESULT_CACHE_MB', 64, 0, 65_536),
    // 16 MiB: a solar file and a wind file with 3 more real years of each (PSM3 ~1.3 MB, SRW ~1 MB a year).
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 16 * 1024 * 1024, 1024),
    poolMax: int(env, 'PG_POOL_MAX', 10, 1, 200),
    statementTimeoutMs: int(env, 'STATEMENT_TIMEOUT_MS', 10_000, 100),
    jobRetryLimit: int(env, 'JOB_RETRY_LIMIT', 2, 0, 20),
    jobHeartbeatSeconds: int(env, 'JOB_HEARTBEAT_SECONDS', 30, 10),
    jobExpireSeconds: int(env, 'JOB_EXPIRE_SECONDS', 600, 10),
    superviseIntervalSeconds: int(env, 'SUPERVISE_INTERVAL_SECONDS', 10, 1),
    shutdownGraceSeconds: int(env, 'SHUTDOWN_GRACE_SECONDS', 20, 0),
    maxSseStreams: int(env, 'MAX_SSE_STREAMS', 10_000, 1),
    sseHeartbeatMs: int(env, 'SSE_HEARTBEAT_MS', 15_000, 100),
    apiKeys: Object.freeze(apiKeys(env.API_KEYS)),
    embeddedPgPort: int(env, 'EMBEDDED_PG_PORT', 5488, 1, 65535),
    corsOrigins: Object.freeze(list(env.CORS_ORIGINS)),
    headersTimeoutMs: int(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    dbRetryMaxDelayMs: int(env, 'DB_RETRY_MAX_DELAY_MS', 10_000, 250, 600_000),
    retentionDays: int(env, 'RETENTION_DAYS', 0, 0, 36_500),
    retentionIntervalSeconds: int(env, 'RETENTION_INTERVAL_SECONDS', 600, 1, 86_400),
    quotas: Object.freeze({
      queued_variants: int(env, 'QUOTA_QUEUED_VARIANTS', 20_000, 0),
      stored_bytes: int(env, 'QUOTA_STORED_BYTES', 50 * 1024 ** 3, 0),
      requests_per_minute: int(env, 'QUOTA_REQUESTS_PER_MINUTE', 1_200, 0),
    }),
  });
}

/** A process's configuration, or exit 1 with the reason: a configuration error is never retried. */
export function loadConfigOrExit(env: Env = process.env): Readonly<Config> {
  try {
    return loadConfig(env);
  } catch (err) {
    process.stderr.write(`configuration error: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
