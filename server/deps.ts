import type { Router } from 'express';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { Config } from '../shared/config.ts';
import type { DbHandle } from '../shared/db.ts';
import type { ResponseCheck } from './route.ts';
import type { ChannelListener } from './sse/listener.ts';

/** What createApp needs; tests build it with their own database. */
export interface AppDeps {
  config: Readonly<Config>;
  /**
   * The database, one handle (shared/db.ts DbHandle): itself the kysely instance, for every query
   * (the worker's repository functions take a `Db`; a route gets its request's `WorkspaceDb`, made
   * from this, shared/workspace.ts) and `transaction(deps.db, fn)`
   * (shared/transaction.ts), pipelined ones included; `deps.db.pool` only for binary COPY.
   */
  db: DbHandle;
  boss: PgBoss;
  listener: ChannelListener;
  logger: Logger;
  /** Tests only: called when an answer does not match the schema its route declares for its status. */
  checkResponses?: ResponseCheck;
  /** More routes, mounted after the API's and before the 404. */
  routes?: readonly Router[];
}
