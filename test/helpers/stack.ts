// One running Hourglass for a test: a database (a fresh clone of the migrated template, or a URL
// the test owns), a pool on it, the web and worker processes, and the SSE clients following it.
// stop() ends all of it; logs() is what a failure message shows of every process.
import type pg from 'pg';
import { createTestDatabase, quietPool, type TestDatabase } from './db.ts';
import { killAll } from './faults.ts';
import { type Proc, type SpawnOptions, startWeb, startWorker, type Web } from './processes.ts';
import { type Follower, follow } from './sse.ts';

type Env = Record<string, string>;

export interface StackOptions {
  /** A database the test owns (e.g. its own embedded Postgres); default: a fresh test database, dropped on stop(). */
  databaseUrl?: string;
  /** Start a web with this env (default {}); false for none. */
  web?: Env | false;
  /** Start one worker per env given (default: none). */
  workers?: Env[];
}

export interface Stack {
  /** The database's URL and a small pool on it. */
  url: string;
  pool: pg.Pool;
  /** The first web started (with the stack, or by startWeb() after `web: false`). */
  web: Web;
  workers: Proc[];
  /** Every process started through the stack, in order. */
  procs: Proc[];
  startWeb(env?: Env): Promise<Web>;
  /** A worker with this env; `options` start another entry (`slowEngine(ms)`: calculations slowed down). */
  startWorker(env?: Env, options?: SpawnOptions): Promise<Proc>;
  /** An SSE client on the stack's first web (path like /api/scenarios/<id>/events), closed by stop(). */
  follow(path: string, opts?: Parameters<typeof follow>[1]): Follower;
  /** Each process's stderr and last log lines. */
  logs(lines?: number): string;
  /** The error, with every process's last log lines appended. */
  explain(err: unknown): Error;
  stop(): Promise<void>;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  let owned: TestDatabase | undefined;
  let pool: pg.Pool;
  let url: string;
  if (options.databaseUrl) {
    url = options.databaseUrl;
    pool = quietPool(url, { max: 2 });
  } else {
    owned = await createTestDatabase();
    url = owned.url;
    pool = owned.pool;
  }
  const procs: Proc[] = [];
  const followers: Follower[] = [];
  const stack: Stack = {
    url,
    pool,
    web: undefined as unknown as Web,
    workers: [],
    procs,
    async startWeb(env = {}) {
      const web = await startWeb(url, env);
      procs.push(web);
      stack.web ??= web;
      return web;
    },
    async startWorker(env = {}, options = {}) {
      const worker = await startWorker(url, env, options);
      procs.push(worker);
      stack.workers.push(worker);
      return worker;
    },
    follow(path, opts) {
      const follower = follow(`${stack.web.baseUrl}${path}`, opts);
      followers.push(follower);
      return follower;
    },
    logs(lines = 30) {
      // Named by its entry point (a slow worker's delay argument comes after it).
      const entry = (p: Proc) => p.child.spawnargs.find((a) => a.endsWith('.ts')) ?? p.child.spawnargs.at(-1);
      return procs.map((p) => `\n[${entry(p)} pid ${p.child.pid}] ${p.output(lines)}`).join('');
    },
    explain(err) {
      const error = err instanceof Error ? err : new Error(String(err));
      error.message += `\nprocess output:${stack.logs()}`;
      return error;
    },
    async stop() {
      for (const f of followers) f.close();
      await killAll(procs);
      if (owned) await owned.drop();
      else await pool.end().catch(() => {});
    },
  };
  try {
    if (options.web !== false) stack.web = await stack.startWeb(options.web ?? {});
    for (const env of options.workers ?? []) await stack.startWorker(env);
  } catch (err) {
    await stack.stop();
    throw err;
  }
  return stack;
}

/** Runs a test's body so that a failure, thrown or asserted, shows every process's last log lines. */
export async function withProcessLogs(
  t: { passing(): boolean; comment(...message: unknown[]): void },
  stack: Stack,
  body: () => Promise<void>,
): Promise<void> {
  try {
    await body();
  } catch (err) {
    throw stack.explain(err);
  }
  if (!t.passing()) t.comment(`process output:${stack.logs()}`);
}
