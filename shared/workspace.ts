// The database as one workspace sees it: a branded handle that route-facing repository functions
// require instead of a raw handle and a workspace argument. server/route.ts builds it from the
// authenticated request's workspace (the API key middleware's, server/app.ts); a route has no
// other way to reach the database. The worker and retention hold the raw handle (shared/db.ts).
import type { DbHandle } from './db.ts';

declare const scopedDb: unique symbol;

/** The database within one workspace: every read and write through it is that workspace's. */
export interface WorkspaceDb {
  readonly workspace: string;
  /** The raw handle, for repository functions only (`unscoped`); a route never reads it. */
  readonly [scopedDb]: DbHandle;
}

/** The handle of `workspace`: built by server/route.ts from a request's API key (tests and bench build their own). */
export function withinWorkspace(db: DbHandle, workspace: string): WorkspaceDb {
  return { workspace, db } as unknown as WorkspaceDb;
}

/**
 * The raw handle under a workspace's, for a repository function to query with (every query it
 * sends filters on `ws.workspace`, or reads by an id the workspace was already checked to own).
 */
export const unscoped = (ws: WorkspaceDb): DbHandle => (ws as unknown as { db: DbHandle }).db;
