import type { Router } from 'express';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { Config } from '../shared/config.ts';
import type { Db } from '../shared/db.ts';
import type { ResponseCheck } from './route.ts';
import type { ChannelListener } from './sse/listener.ts';

/** What createApp needs; tests build it with their own database. */
export interface AppDeps {
  config: Readonly<Config>;
  pool: pg.Pool;
  /** For the create transaction: a pool in node-pg's pipeline mode. */
  createsPool: pg.Pool;
  db: Db;
  boss: PgBoss;
  listener: ChannelListener;
  logger: Logger;
  /** Tests only: called when an answer does not match the schema its route declares for its status. */
  checkResponses?: ResponseCheck;
  /** More routes, mounted after the API's and before the 404. */
  routes?: readonly Router[];
}
